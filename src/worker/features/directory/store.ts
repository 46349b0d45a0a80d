import { all, int, one, run, text } from "../../kernel/sql";

/** The directory's schema version (its own, apart from the consumer objects'). */
export const DIRECTORY_SCHEMA_VERSION = 1;

/** Creates the directory's tables; a stored version newer than this code refuses to run. */
export function migrateDirectory(sql: SqlStorage): void {
  sql.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)");
  const row = one(sql, "SELECT value FROM meta WHERE key = 'schema_version'");
  const from = row === undefined ? 0 : int(row, "value");
  if (from > DIRECTORY_SCHEMA_VERSION)
    throw new Error(`stored directory schema v${from} is newer than this code (v${DIRECTORY_SCHEMA_VERSION})`);
  if (from === DIRECTORY_SCHEMA_VERSION) return;
  sql.exec("CREATE TABLE directory_consumers (name TEXT PRIMARY KEY, created_at INTEGER NOT NULL)");
  sql.exec(
    "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    DIRECTORY_SCHEMA_VERSION,
  );
}

/** Records a consumer once; a name already there keeps its first `created_at`. */
export function recordConsumer(sql: SqlStorage, name: string, now: number): void {
  run(sql, "INSERT INTO directory_consumers (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", name, now);
}

/** Whether a name is in the directory (a cursor names one). */
export function hasConsumer(sql: SqlStorage, name: string): boolean {
  return one(sql, "SELECT 1 AS present FROM directory_consumers WHERE name = ?", name) !== undefined;
}

/** Up to `limit` consumers after `after` (exclusive; `null` from the first), in code-point order of their names. */
export function consumersAfter(
  sql: SqlStorage,
  after: string | null,
  limit: number,
): Array<{ consumer: string; created_at: number }> {
  const rows =
    after === null
      ? all(sql, "SELECT name, created_at FROM directory_consumers ORDER BY name LIMIT ?", limit)
      : all(sql, "SELECT name, created_at FROM directory_consumers WHERE name > ? ORDER BY name LIMIT ?", after, limit);
  return rows.map((row) => ({ consumer: text(row, "name"), created_at: int(row, "created_at") }));
}
