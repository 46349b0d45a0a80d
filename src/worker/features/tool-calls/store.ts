import { canonicalJson, type Json } from "../../../core/json";
import { isNotExecuted, type UnknownOutcome } from "../../../core/tool-result/dispatcher-state";
import { claimByGetPut, type StoreTable, type ToolResultStore } from "../../../core/tool-result/store";
import { RESULT_MIN_KEEP_SECONDS, UNRECONCILED_KEEP_SECONDS } from "../../kernel/limits";
import type { ExpiryRule, Migration } from "../../kernel/schema";
import { all, int, one, run, storedJson, text } from "../../kernel/sql";
import { APPROVAL_END, APPROVAL_SEQ } from "./approval-store";

/** The tool-call service's tables (part of schema v1): the engine's records and counters, approvals. */
export const TOOL_CALL_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
  CREATE TABLE records (
    tbl TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (tbl, key)
  );
  CREATE TABLE counters (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  );
  CREATE TABLE approvals (
    approval_id TEXT PRIMARY KEY,
    binding_key TEXT NOT NULL,
    state TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    call TEXT NOT NULL,
    requested_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    approver_id TEXT,
    decision_digest TEXT,
    decided_at INTEGER,
    valid_until INTEGER
  );
  CREATE INDEX approvals_by_binding ON approvals (binding_key);
  CREATE INDEX approvals_by_state ON approvals (state, requested_at);`,
  },
  {
    // v4: approvals listed in pages by insertion order (`seq`, never reused), and the count of a
    // subject's pending approvals (its quota) read from an index.
    version: 4,
    sql: `
  ALTER TABLE approvals ADD COLUMN seq INTEGER;
  UPDATE approvals SET seq = rowid;
  CREATE UNIQUE INDEX approvals_by_seq ON approvals (seq);
  CREATE INDEX approvals_by_state_seq ON approvals (state, seq);
  CREATE INDEX approvals_by_subject ON approvals (subject_id, state, expires_at);`,
  },
  {
    // v10: the agent credential whose call opened an approval (its own approvals are the ones
    // it may wait on and stream); NULL for approvals opened before, or by the App Facade.
    version: 10,
    sql: `
  ALTER TABLE approvals ADD COLUMN opened_by TEXT;
  CREATE INDEX approvals_by_opener ON approvals (opened_by, state, seq);
  CREATE INDEX approvals_by_decision ON approvals (decided_at) WHERE decided_at IS NOT NULL;`,
  },
  {
    // v14: retention (docs/storage.md): a record's stamp and hold (HOLD; stored before: stamped now).
    version: 14,
    sql: `
  ALTER TABLE records ADD COLUMN stored_at INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE records ADD COLUMN hold INTEGER NOT NULL DEFAULT 0;
  UPDATE records SET stored_at = CAST(strftime('%s', 'now') AS INTEGER),
    hold = CASE tbl WHEN 'in_flight' THEN 3 WHEN 'uncertain_outcomes' THEN 2 WHEN 'status_refs' THEN 2 WHEN 'call_fingerprints' THEN 0 ELSE 1 END;
  UPDATE records SET hold = 2 WHERE tbl = 'downstream_receipts' AND key IN (SELECT key FROM records WHERE tbl = 'uncertain_outcomes');
  CREATE INDEX records_by_age ON records (hold, stored_at);
  CREATE INDEX approvals_by_end ON approvals (${APPROVAL_END});
  INSERT INTO counters (name, value) SELECT '${APPROVAL_SEQ}', MAX(seq) FROM approvals HAVING COUNT(*) > 0;`,
  },
  {
    // v19: the approver's words with a decision and the agent's with the call (docs/approvals.md); NULL: none given.
    version: 19,
    sql: `
  ALTER TABLE approvals ADD COLUMN reason TEXT;
  ALTER TABLE approvals ADD COLUMN rationale TEXT;`,
  },
  {
    // v20: an edited request's edit (docs/approvals.md, "Edit"): the request digest of the
    // approver's arguments and those arguments (canonical JSON); NULL: not edited.
    version: 20,
    sql: `
  ALTER TABLE approvals ADD COLUMN edited_request_sha256 TEXT;
  ALTER TABLE approvals ADD COLUMN edited_arguments TEXT;`,
  },
  {
    // v21: who confirms (docs/approvals.md, "Who decides"): 'end_user' when the requesting end user
    // confirms the request in chat, and 'end_user' when it decided; NULL: the approvers.
    version: 21,
    sql: `
  ALTER TABLE approvals ADD COLUMN confirmed_by TEXT;
  ALTER TABLE approvals ADD COLUMN decided_by TEXT;`,
  },
];

/**
 * How long a record is held (`records.hold`): a call identity, the window; a write's result, at least
 * {@link RESULT_MIN_KEEP_SECONDS}; an unknown outcome not reconciled, {@link UNRECONCILED_KEEP_SECONDS}; in flight, never.
 */
export const HOLD = { call: 0, result: 1, unreconciled: 2, live: 3 } as const;

/**
 * The service's expiring rows (retention/sweep.ts); an approval goes no later than its write's
 * result, never while valid (both are kept at least the consumer's approval window).
 */
export const TOOL_CALL_EXPIRY: readonly ExpiryRule[] = [
  { table: "records", key: "rowid", where: `hold = ${HOLD.call}`, age: "stored_at", keep: (window) => window },
  {
    table: "records",
    key: "rowid",
    where: `hold = ${HOLD.result}`,
    age: "stored_at",
    keep: (window, approvalWindow) => Math.max(window, RESULT_MIN_KEEP_SECONDS, approvalWindow),
  },
  {
    table: "records",
    key: "rowid",
    where: `hold = ${HOLD.unreconciled}`,
    age: "stored_at",
    keep: () => UNRECONCILED_KEEP_SECONDS,
  },
  {
    table: "approvals",
    key: "approval_id",
    age: APPROVAL_END,
    keep: (window, approvalWindow) => Math.max(window, RESULT_MIN_KEEP_SECONDS, approvalWindow),
  },
];

/**
 * The engine's store port over the `records` and `counters` tables. Values are written as
 * canonical JSON and read back with the strict reader, so integral floats (`1.0`) survive the
 * round trip and digests stay byte-identical. Each record is stamped with `now` (the object's clock) and its HOLD.
 */
export class SqlToolResultStore implements ToolResultStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly now: () => number,
  ) {}

  /** How long a record is held (the store holds only the engine's records); an unknown write's status reference and receipt wait for the status query. */
  #hold(table: StoreTable, key: string, value: Json): number {
    if (table === "call_fingerprints") return HOLD.call;
    if (table === "in_flight") return HOLD.live;
    if (table === "status_refs") return HOLD.unreconciled;
    if (table === "uncertain_outcomes") return isNotExecuted(value as UnknownOutcome) ? HOLD.result : HOLD.unreconciled;
    if (
      table === "downstream_receipts" &&
      one(this.sql, "SELECT 1 AS present FROM records WHERE tbl = 'uncertain_outcomes' AND key = ?", key) !== undefined
    )
      return HOLD.unreconciled;
    return HOLD.result;
  }

  /**
   * In-flight marks set inside {@link holdingMarks} and not yet written (by key), and the keys
   * whose mark a read there found absent from the table; `null` outside it.
   */
  #held: { marks: Map<string, Json>; absent: Set<string> } | null = null;

  /**
   * Runs `step` (synchronous, inside the caller's transaction) holding its in-flight marks in
   * memory. The engine marks a write in flight before it runs and clears the mark after; when an
   * in-process tool runs in the same transaction, nothing outside it can see the mark in between,
   * so a mark set and cleared there is never written, and the marks still set at the end are
   * written before the transaction commits: it commits the same rows, two statements fewer per
   * such write. A throw writes nothing (the caller's transaction rolls back).
   */
  holdingMarks<T>(step: () => T): T {
    if (this.#held !== null) return step();
    const held = { marks: new Map<string, Json>(), absent: new Set<string>() };
    this.#held = held;
    let result: T;
    try {
      result = step();
    } finally {
      this.#held = null;
    }
    for (const [key, value] of held.marks) this.#upsert("in_flight", key, value);
    return result;
  }

  get(table: StoreTable, key: string): Json | undefined {
    const held = table === "in_flight" ? this.#held : null;
    if (held?.marks.has(key) === true) return held.marks.get(key);
    const row = one(this.sql, "SELECT value FROM records WHERE tbl = ? AND key = ?", table, key);
    if (row === undefined) {
      held?.absent.add(key);
      return undefined;
    }
    return storedJson(text(row, "value"), `${table} record`);
  }

  put(table: StoreTable, key: string, value: Json): void {
    if (table === "in_flight" && this.#held !== null) this.#held.marks.set(key, value);
    else this.#upsert(table, key, value);
  }

  #upsert(table: StoreTable, key: string, value: Json): void {
    const upsert =
      "INSERT INTO records (tbl, key, value, stored_at, hold) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tbl, key) DO UPDATE SET value = excluded.value, stored_at = excluded.stored_at, hold = excluded.hold";
    run(this.sql, upsert, table, key, canonicalJson(value), this.now(), this.#hold(table, key, value));
  }

  claim(table: StoreTable, key: string, value: Json): Json | undefined {
    // Over held marks, through get and put (the engine claims only call identities).
    if (table === "in_flight" && this.#held !== null) return claimByGetPut(this, table, key, value);
    // Inserted, or the same value restamped: one row written; another value held: none (then read it).
    const claim =
      "INSERT INTO records (tbl, key, value, stored_at, hold) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tbl, key) DO UPDATE SET stored_at = excluded.stored_at, hold = excluded.hold WHERE records.value = excluded.value";
    return this.sql.exec(claim, table, key, canonicalJson(value), this.now(), this.#hold(table, key, value))
      .rowsWritten === 0
      ? this.get(table, key)
      : undefined;
  }

  delete(table: StoreTable, key: string): void {
    const held = table === "in_flight" ? this.#held : null;
    // A mark held here and found absent from the table before: nothing to delete there.
    if (held?.marks.delete(key) === true && held.absent.has(key)) return;
    run(this.sql, "DELETE FROM records WHERE tbl = ? AND key = ?", table, key);
  }

  entries(table: StoreTable): Array<[string, Json]> {
    const stored = all(this.sql, "SELECT key, value FROM records WHERE tbl = ? ORDER BY rowid", table).map(
      (row): [string, Json] => [text(row, "key"), storedJson(text(row, "value"), `${table} record`)],
    );
    const held = table === "in_flight" ? this.#held?.marks : undefined;
    if (held === undefined || held.size === 0) return stored;
    return [...stored.filter(([key]) => !held.has(key)), ...held];
  }

  counter(name: string): number {
    const row = one(this.sql, "SELECT value FROM counters WHERE name = ?", name);
    return row === undefined ? 0 : int(row, "value");
  }

  increment(name: string): number {
    const row = one(
      this.sql,
      "INSERT INTO counters (name, value) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value",
      name,
    );
    if (row === undefined) throw new Error("counter upsert returned no row");
    return int(row, "value");
  }
}
