import { canonicalJson, readJson, type Json } from "../../core/json";
import type { StoreTable, ToolResultStore } from "../../core/tool-result/store";
import { all, one, run, STORED_JSON, text } from "./sql";

/**
 * The engine's store port over the consumer object's SQLite `records` and `counters` tables.
 * Values are written as canonical JSON and read back with the strict reader, so integral
 * floats (`1.0`) survive the round trip and digests stay byte-identical.
 */
export class SqlToolResultStore implements ToolResultStore {
  constructor(private readonly sql: SqlStorage) {}

  get(table: StoreTable, key: string): Json | undefined {
    const row = one(this.sql, "SELECT value FROM records WHERE tbl = ? AND key = ?", table, key);
    if (row === undefined) return undefined;
    const parsed = readJson(text(row, "value"), STORED_JSON);
    if (!parsed.ok) throw new Error(`stored ${table} record is not strict JSON`);
    return parsed.value;
  }

  put(table: StoreTable, key: string, value: Json): void {
    run(
      this.sql,
      "INSERT INTO records (tbl, key, value) VALUES (?, ?, ?) ON CONFLICT (tbl, key) DO UPDATE SET value = excluded.value",
      table,
      key,
      canonicalJson(value),
    );
  }

  delete(table: StoreTable, key: string): void {
    run(this.sql, "DELETE FROM records WHERE tbl = ? AND key = ?", table, key);
  }

  entries(table: StoreTable): Array<[string, Json]> {
    return all(this.sql, "SELECT key, value FROM records WHERE tbl = ? ORDER BY rowid", table).map((row) => {
      const parsed = readJson(text(row, "value"), STORED_JSON);
      if (!parsed.ok) throw new Error(`stored ${table} record is not strict JSON`);
      return [text(row, "key"), parsed.value];
    });
  }

  counter(name: string): number {
    const row = one(this.sql, "SELECT value FROM counters WHERE name = ?", name);
    return row === undefined ? 0 : (row.value as number);
  }

  increment(name: string): number {
    const row = one(
      this.sql,
      "INSERT INTO counters (name, value) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value",
      name,
    );
    if (row === undefined) throw new Error("counter upsert returned no row");
    return row.value as number;
  }
}
