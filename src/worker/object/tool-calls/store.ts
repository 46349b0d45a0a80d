import { canonicalJson, readJson, type Json, type JsonObject } from "../../../core/json";
import { err, ok, type Result } from "../../../core/result";
import type { ApprovalBook, ApprovalDecisionRecord, ApprovalQuotaExceeded, ApprovalRecord, ApprovalRequest, ApprovalState } from "../../../core/tool-result/approval-book";
import { callFromJson, callJson, isNotExecuted, type UnknownOutcome } from "../../../core/tool-result/dispatcher-state";
import type { StoreTable, ToolResultStore } from "../../../core/tool-result/store";
import { RESULT_MIN_KEEP_SECONDS, UNRECONCILED_KEEP_SECONDS } from "../limits";
import type { Migration } from "../migrations";
import type { ExpiryRule } from "../retention/sweep";
import { all, int, intOrNull, one, run, STORED_JSON, text, textOrNull, type SqlRow } from "../sql";

/** An approval's age: its decision (it is valid at most 3600 s after), or the lapse of a request never decided. */
const APPROVAL_END = "COALESCE(decided_at, expires_at)";
/** The counter of the approvals' positions (`seq`): never reused, even once the rows before expired (v14 seeds it). */
const APPROVAL_SEQ = "toolgate.approvals.seq";

/** The tool-call plane's tables (part of schema v1): the engine's records and counters, approvals. */
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
];

/**
 * How long a record is held (`records.hold`): a call identity, the window; a write's result, at least
 * {@link RESULT_MIN_KEEP_SECONDS}; an unknown outcome not reconciled, {@link UNRECONCILED_KEEP_SECONDS}; in flight, never.
 */
export const HOLD = { call: 0, result: 1, unreconciled: 2, live: 3 } as const;

/** The plane's expiring rows (retention/sweep.ts); an approval goes no later than its write's result, never while valid. */
export const TOOL_CALL_EXPIRY: readonly ExpiryRule[] = [
  { table: "records", key: "rowid", where: `hold = ${HOLD.call}`, age: "stored_at", keep: (window) => window },
  { table: "records", key: "rowid", where: `hold = ${HOLD.result}`, age: "stored_at", keep: (window) => Math.max(window, RESULT_MIN_KEEP_SECONDS) },
  { table: "records", key: "rowid", where: `hold = ${HOLD.unreconciled}`, age: "stored_at", keep: () => UNRECONCILED_KEEP_SECONDS },
  { table: "approvals", key: "approval_id", age: APPROVAL_END, keep: (window) => Math.max(window, RESULT_MIN_KEEP_SECONDS) },
];

function stored(value: string, what: string): Json {
  const parsed = readJson(value, STORED_JSON);
  if (!parsed.ok) throw new Error(`stored ${what} is not strict JSON`);
  return parsed.value;
}

/**
 * The engine's store port over the `records` and `counters` tables. Values are written as
 * canonical JSON and read back with the strict reader, so integral floats (`1.0`) survive the
 * round trip and digests stay byte-identical. Each record is stamped with `now` (the object's clock) and its HOLD.
 */
export class SqlToolResultStore implements ToolResultStore {
  constructor(private readonly sql: SqlStorage, private readonly now: () => number) {}

  /** How long a record is held (the store holds only the engine's records); an unknown write's status reference and receipt wait for the status query. */
  #hold(table: StoreTable, key: string, value: Json): number {
    if (table === "call_fingerprints") return HOLD.call;
    if (table === "in_flight") return HOLD.live;
    if (table === "status_refs") return HOLD.unreconciled;
    if (table === "uncertain_outcomes") return isNotExecuted(value as UnknownOutcome) ? HOLD.result : HOLD.unreconciled;
    if (table === "downstream_receipts" && one(this.sql, "SELECT 1 AS present FROM records WHERE tbl = 'uncertain_outcomes' AND key = ?", key) !== undefined) return HOLD.unreconciled;
    return HOLD.result;
  }

  get(table: StoreTable, key: string): Json | undefined {
    const row = one(this.sql, "SELECT value FROM records WHERE tbl = ? AND key = ?", table, key);
    return row === undefined ? undefined : stored(text(row, "value"), `${table} record`);
  }

  put(table: StoreTable, key: string, value: Json): void {
    const upsert = "INSERT INTO records (tbl, key, value, stored_at, hold) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tbl, key) DO UPDATE SET value = excluded.value, stored_at = excluded.stored_at, hold = excluded.hold";
    run(this.sql, upsert, table, key, canonicalJson(value), this.now(), this.#hold(table, key, value));
  }

  claim(table: StoreTable, key: string, value: Json): Json | undefined {
    const insert = "INSERT INTO records (tbl, key, value, stored_at, hold) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tbl, key) DO NOTHING";
    return this.sql.exec(insert, table, key, canonicalJson(value), this.now(), this.#hold(table, key, value)).rowsWritten === 0 ? this.get(table, key) : undefined;
  }

  delete(table: StoreTable, key: string): void {
    run(this.sql, "DELETE FROM records WHERE tbl = ? AND key = ?", table, key);
  }

  entries(table: StoreTable): Array<[string, Json]> {
    return all(this.sql, "SELECT key, value FROM records WHERE tbl = ? ORDER BY rowid", table).map((row) => [text(row, "key"), stored(text(row, "value"), `${table} record`)]);
  }

  counter(name: string): number {
    const row = one(this.sql, "SELECT value FROM counters WHERE name = ?", name);
    return row === undefined ? 0 : int(row, "value");
  }

  increment(name: string): number {
    const row = one(this.sql, "INSERT INTO counters (name, value) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value", name);
    if (row === undefined) throw new Error("counter upsert returned no row");
    return int(row, "value");
  }
}

const STATES: readonly ApprovalState[] = ["pending", "approved", "denied", "withdrawn"];

function recordOf(row: SqlRow): ApprovalRecord {
  const state = text(row, "state") as ApprovalState;
  if (!STATES.includes(state)) throw new Error("stored approval state is unknown");
  const bound = stored(text(row, "call"), "approval call") as JsonObject;
  const requestSha256 = bound["request_sha256"];
  if (typeof requestSha256 !== "string") throw new Error("stored approval digest is not text");
  return {
    approval_id: text(row, "approval_id"),
    state,
    subject_id: text(row, "subject_id"),
    call: callFromJson(bound["call"] as JsonObject),
    request_sha256: requestSha256,
    requested_at: int(row, "requested_at"),
    expires_at: int(row, "expires_at"),
    approver_id: textOrNull(row, "approver_id"),
    decision_digest: textOrNull(row, "decision_digest"),
    decided_at: intOrNull(row, "decided_at"),
    valid_until: intOrNull(row, "valid_until"),
  };
}

function randomId(): string {
  return `apr_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** One page of pending approvals, in insertion order. */
export interface PendingPage {
  readonly records: readonly ApprovalRecord[];
  /** The position after the page's last row, or `null` when no row follows it. */
  readonly next: number | null;
}

/**
 * The approval book (the core's port) over the `approvals` table. `pendingQuota` answers how
 * many pending, unexpired approvals one subject may hold (read at each open, so a changed
 * configuration applies at once).
 */
export class SqlApprovalBook implements ApprovalBook {
  /** The agent credential of the call being dispatched (set for one transaction), stored with what it opens. */
  opener: string | null = null;

  constructor(
    private readonly sql: SqlStorage,
    private readonly pendingQuota: () => number,
    private readonly opened: (record: ApprovalRecord, openedBy: string | null) => void = () => {},
  ) {}

  byBinding(bindingKey: string): ApprovalRecord[] {
    return all(this.sql, "SELECT * FROM approvals WHERE binding_key = ? ORDER BY requested_at", bindingKey).map(recordOf);
  }

  open(request: ApprovalRequest): Result<string, ApprovalQuotaExceeded> {
    const held = one(
      this.sql,
      "SELECT COUNT(*) AS n, MIN(expires_at) AS first FROM approvals WHERE subject_id = ? AND state = 'pending' AND expires_at > ?",
      request.subject_id,
      request.requested_at,
    );
    if (held === undefined) throw new Error("an aggregate query returned no row");
    if (int(held, "n") >= this.pendingQuota()) {
      const first = intOrNull(held, "first") ?? request.requested_at + 1;
      return err({ code: "QUOTA_EXCEEDED", retry_after_seconds: Math.max(1, first - request.requested_at) });
    }
    const id = randomId();
    run(this.sql, "INSERT INTO counters (name, value) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM approvals)) ON CONFLICT (name) DO UPDATE SET value = value + 1", APPROVAL_SEQ);
    run(
      this.sql,
      `INSERT INTO approvals (approval_id, binding_key, state, subject_id, tool, arguments, call, requested_at, expires_at, opened_by, seq)
       VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, (SELECT value FROM counters WHERE name = '${APPROVAL_SEQ}'))`,
      id,
      request.binding_key,
      request.subject_id,
      request.call.name,
      canonicalJson(request.call.arguments),
      canonicalJson({ call: callJson(request.call), request_sha256: request.request_sha256 }),
      request.requested_at,
      request.expires_at,
      this.opener,
    );
    const record = this.get(id);
    if (record === undefined) throw new Error("an approval just opened is missing");
    this.opened(record, this.opener);
    return ok(id);
  }

  get(approvalId: string): ApprovalRecord | undefined {
    const row = one(this.sql, "SELECT * FROM approvals WHERE approval_id = ?", approvalId);
    return row === undefined ? undefined : recordOf(row);
  }

  /** The agent credential that opened an approval (`null`: none recorded, `undefined`: no such approval). */
  openedBy(approvalId: string): string | null | undefined {
    const row = one(this.sql, "SELECT opened_by FROM approvals WHERE approval_id = ?", approvalId);
    return row === undefined ? undefined : textOrNull(row, "opened_by");
  }

  /** The pending, unexpired approvals a credential opened (`null`: all), oldest first, at most `limit`. */
  pendingOf(openedBy: string | null, now: number, limit: number): ApprovalRecord[] {
    const rows =
      openedBy === null
        ? all(this.sql, "SELECT * FROM approvals WHERE state = 'pending' AND expires_at > ? ORDER BY seq LIMIT ?", now, limit)
        : all(this.sql, "SELECT * FROM approvals WHERE opened_by = ? AND state = 'pending' AND expires_at > ? ORDER BY seq LIMIT ?", openedBy, now, limit);
    return rows.map(recordOf);
  }

  /** Decided (or withdrawn) approvals, newest decision first, after position `before` (a `decided_at`/`seq` pair), at most `limit`. */
  decidedPage(before: { decidedAt: number; seq: number } | null, limit: number): { records: ApprovalRecord[]; next: { decidedAt: number; seq: number } | null } {
    const rows =
      before === null
        ? all(this.sql, "SELECT * FROM approvals WHERE decided_at IS NOT NULL ORDER BY decided_at DESC, seq DESC LIMIT ?", limit + 1)
        : all(this.sql, "SELECT * FROM approvals WHERE decided_at IS NOT NULL AND (decided_at < ? OR (decided_at = ? AND seq < ?)) ORDER BY decided_at DESC, seq DESC LIMIT ?", before.decidedAt, before.decidedAt, before.seq, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { records: page.map(recordOf), next: rows.length > limit && last !== undefined ? { decidedAt: int(last, "decided_at"), seq: int(last, "seq") } : null };
  }

  /**
   * Pending, unexpired requests after position `after` (0: from the start), oldest first, at
   * most `limit`. Positions follow insertion, so a request opened while an approver pages
   * always comes after the pages already read.
   */
  pendingPage(now: number, after: number, limit: number): PendingPage {
    const rows = all(this.sql, "SELECT * FROM approvals WHERE state = 'pending' AND seq > ? AND expires_at > ? ORDER BY seq LIMIT ?", after, now, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { records: page.map(recordOf), next: rows.length > limit && last !== undefined ? int(last, "seq") : null };
  }

  /** Records a decision on a request that is still pending. */
  decide(decision: ApprovalDecisionRecord, submittedDigest: string): void {
    run(
      this.sql,
      "UPDATE approvals SET state = ?, approver_id = ?, decision_digest = ?, decided_at = ?, valid_until = ? WHERE approval_id = ? AND state = 'pending'",
      decision.state,
      decision.approver_id,
      submittedDigest,
      decision.decided_at,
      decision.valid_until,
      decision.approval_id,
    );
  }

  /** Withdraws a pending request: it leaves the approvers' list and can no longer be decided. */
  withdraw(approvalId: string, now: number): void {
    run(this.sql, "UPDATE approvals SET state = 'withdrawn', decided_at = ? WHERE approval_id = ? AND state = 'pending'", now, approvalId);
  }
}
