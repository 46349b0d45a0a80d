/**
 * Which writes in flight came through the App Facade: a `records` row of `tbl`
 * 'facade_in_flight' under the key of the engine's in-flight mark. The mark is the engine's and
 * names no path, while a write's decided approval is found on the path it came by
 * (approval-store.ts, `ApprovalOrigin`): without this row a facade write recovered after a restart
 * was audited with no approval. Written in the transaction that writes the mark, deleted with it
 * (the run's step two, or the recovery); held like the mark, never swept.
 * @module
 */
import { run } from "../../kernel/sql";
import { HOLD } from "./store";

const TABLE = "facade_in_flight";

/** Notes that the write in flight under `key` came through the App Facade. */
export function markFacadeInFlight(sql: SqlStorage, key: string, now: number): void {
  run(
    sql,
    "INSERT INTO records (tbl, key, value, stored_at, hold) VALUES (?, ?, 'true', ?, ?) ON CONFLICT (tbl, key) DO NOTHING",
    TABLE,
    key,
    now,
    HOLD.live,
  );
}

/** Whether the write in flight under `key` came through the App Facade; forgets it. */
export function takeFacadeInFlight(sql: SqlStorage, key: string): boolean {
  return sql.exec("DELETE FROM records WHERE tbl = ? AND key = ?", TABLE, key).rowsWritten > 0;
}
