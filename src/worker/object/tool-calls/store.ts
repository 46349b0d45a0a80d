import { canonicalJson, readJson, type Json, type JsonObject } from "../../../core/json";
import type { ApprovalBook, ApprovalDecisionRecord, ApprovalRecord, ApprovalRequest, ApprovalState } from "../../../core/tool-result/approval-book";
import { callFromJson, callJson } from "../../../core/tool-result/dispatcher-state";
import type { StoreTable, ToolResultStore } from "../../../core/tool-result/store";
import type { Migration } from "../migrations";
import { all, int, intOrNull, one, run, STORED_JSON, text, textOrNull, type SqlRow } from "../sql";

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
];

function stored(value: string, what: string): Json {
  const parsed = readJson(value, STORED_JSON);
  if (!parsed.ok) throw new Error(`stored ${what} is not strict JSON`);
  return parsed.value;
}

/**
 * The engine's store port over the `records` and `counters` tables. Values are written as
 * canonical JSON and read back with the strict reader, so integral floats (`1.0`) survive the
 * round trip and digests stay byte-identical.
 */
export class SqlToolResultStore implements ToolResultStore {
  constructor(private readonly sql: SqlStorage) {}

  get(table: StoreTable, key: string): Json | undefined {
    const row = one(this.sql, "SELECT value FROM records WHERE tbl = ? AND key = ?", table, key);
    return row === undefined ? undefined : stored(text(row, "value"), `${table} record`);
  }

  put(table: StoreTable, key: string, value: Json): void {
    run(this.sql, "INSERT INTO records (tbl, key, value) VALUES (?, ?, ?) ON CONFLICT (tbl, key) DO UPDATE SET value = excluded.value", table, key, canonicalJson(value));
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

/** The approval book (the core's port) over the `approvals` table. */
export class SqlApprovalBook implements ApprovalBook {
  constructor(private readonly sql: SqlStorage) {}

  byBinding(bindingKey: string): ApprovalRecord[] {
    return all(this.sql, "SELECT * FROM approvals WHERE binding_key = ? ORDER BY requested_at", bindingKey).map(recordOf);
  }

  open(request: ApprovalRequest): string {
    const id = randomId();
    run(
      this.sql,
      `INSERT INTO approvals (approval_id, binding_key, state, subject_id, tool, arguments, call, requested_at, expires_at)
       VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?)`,
      id,
      request.binding_key,
      request.subject_id,
      request.call.name,
      canonicalJson(request.call.arguments),
      canonicalJson({ call: callJson(request.call), request_sha256: request.request_sha256 }),
      request.requested_at,
      request.expires_at,
    );
    return id;
  }

  get(approvalId: string): ApprovalRecord | undefined {
    const row = one(this.sql, "SELECT * FROM approvals WHERE approval_id = ?", approvalId);
    return row === undefined ? undefined : recordOf(row);
  }

  /** Pending, unexpired requests, oldest first (at most 500). */
  pending(now: number): ApprovalRecord[] {
    return all(this.sql, "SELECT * FROM approvals WHERE state = 'pending' AND expires_at > ? ORDER BY requested_at, approval_id LIMIT 500", now).map(recordOf);
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
