import { readJson, type Json } from "../../core/json";

/** Values SQLite accepts as bound parameters. */
export type SqlValue = string | number | null | ArrayBuffer;

/** A row as the SQLite API returns it. */
export type SqlRow = Record<string, SqlStorageValue>;

/** First row of a parameterised query, or `undefined`. */
export function one(sql: SqlStorage, query: string, ...binds: SqlValue[]): SqlRow | undefined {
  const rows = sql.exec<SqlRow>(query, ...binds).toArray();
  return rows[0];
}

/** All rows of a parameterised query. */
export function all(sql: SqlStorage, query: string, ...binds: SqlValue[]): SqlRow[] {
  return sql.exec<SqlRow>(query, ...binds).toArray();
}

/** Runs a parameterised statement for its effect. */
export function run(sql: SqlStorage, query: string, ...binds: SqlValue[]): void {
  sql.exec(query, ...binds);
}

/** Reads a text column; a bug (thrown) if it is not text. */
export function text(row: SqlRow, column: string): string {
  const v = row[column];
  if (typeof v !== "string") throw new Error(`column ${column} is not text`);
  return v;
}

/** Reads a nullable text column. */
export function textOrNull(row: SqlRow, column: string): string | null {
  const v = row[column];
  if (v === null) return null;
  if (typeof v !== "string") throw new Error(`column ${column} is not text`);
  return v;
}

/** Reads an integer column. */
export function int(row: SqlRow, column: string): number {
  const v = row[column];
  if (typeof v !== "number") throw new Error(`column ${column} is not a number`);
  return v;
}

/** Reader options for JSON this object wrote itself (bigger than a request body may be). */
export const STORED_JSON = { maxBytes: 1 << 20 } as const;

/** Reads JSON this object stored; text that is not strict JSON is a bug (thrown). */
export function storedJson(json: string, what: string): Json {
  const parsed = readJson(json, STORED_JSON);
  if (!parsed.ok) throw new Error(`stored ${what} is not strict JSON`);
  return parsed.value;
}

/** Reads a JSON array of strings this object stored; anything else is a bug (thrown). */
export function storedStrings(json: string, what: string): string[] {
  const value = storedJson(json, what);
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
    throw new Error(`stored ${what} is not a string array`);
  return value;
}

/** Reads a nullable integer column. */
export function intOrNull(row: SqlRow, column: string): number | null {
  const v = row[column];
  if (v === null) return null;
  if (typeof v !== "number") throw new Error(`column ${column} is not a number`);
  return v;
}
