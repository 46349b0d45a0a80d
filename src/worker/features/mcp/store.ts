import type { ExpiryRule, Migration } from "../../kernel/schema";
import { all, int, one, run, text, textOrNull, type SqlRow } from "../../kernel/sql";
import { MCP_SESSION_IDLE_SECONDS, sessionRoom, taskRoom, type HeldTasks, type Owner, type Room } from "./quota";

/**
 * The MCP service's tables (schema v6; docs/storage.md): `mcp_sessions` (one row per
 * `initialize`, bound to the credential that made it) and `mcp_tasks` (task-augmented
 * `tools/call`s, with the call to run again once its approval is decided). v8 keeps the client
 * capabilities a session declared that the gate may relay requests for (`sampling`, `elicitation`).
 */
export const MCP_MIGRATIONS: readonly Migration[] = [
  {
    version: 6,
    sql: `
  CREATE TABLE mcp_sessions (
    session_id TEXT PRIMARY KEY,
    credential_id TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    protocol_version TEXT NOT NULL,
    log_level TEXT,
    created_at INTEGER NOT NULL,
    last_seen INTEGER NOT NULL
  );
  CREATE INDEX mcp_sessions_by_seen ON mcp_sessions (last_seen);
  CREATE TABLE mcp_tasks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL UNIQUE,
    credential_id TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    status TEXT NOT NULL,
    status_message TEXT,
    input TEXT NOT NULL,
    approval_id TEXT,
    result TEXT,
    ttl_ms INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX mcp_tasks_by_credential ON mcp_tasks (credential_id, seq);
  CREATE INDEX mcp_tasks_by_expiry ON mcp_tasks (expires_at);`,
  },
  { version: 8, sql: "ALTER TABLE mcp_sessions ADD COLUMN client_capabilities TEXT;" },
  {
    // v18: the idempotency keys the gate derives for a client that sends none (docs/mcp.md, "Stock clients").
    version: 18,
    sql: `
  CREATE TABLE mcp_call_keys (
    scope TEXT PRIMARY KEY,
    credential_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    last_seen INTEGER NOT NULL
  );
  CREATE INDEX mcp_call_keys_by_seen ON mcp_call_keys (last_seen);
  CREATE INDEX mcp_call_keys_by_credential ON mcp_call_keys (credential_id, last_seen);`,
  },
];

/**
 * How long a derived idempotency key lives, in seconds, counted from the last identical call
 * (same credential, tool and canonical arguments): a retry within it replays; an identical call
 * after it runs again. Longer than a consumer's default approval window, so an approved call made
 * again once a person decided still carries the key the approval is bound to.
 */
export const DERIVED_KEY_WINDOW_SECONDS = 15 * 60;

/** Derived keys one credential keeps at most: past it, its own least recently used go (never another's). */
export const MAX_DERIVED_KEYS_PER_CREDENTIAL = 256;

/** Derived keys past their window, swept by the retention alarm. */
export const MCP_EXPIRY: readonly ExpiryRule[] = [
  { table: "mcp_call_keys", key: "scope", age: "last_seen", keep: () => DERIVED_KEY_WINDOW_SECONDS },
];

/** One MCP session as stored. */
export interface McpSession {
  readonly sessionId: string;
  readonly credentialId: string;
  readonly subjectId: string;
  readonly protocolVersion: string;
  /** The level `logging/setLevel` asked for; `null`: no log messages are relayed. */
  readonly logLevel?: string | null;
  /** Canonical JSON of the client's declared `sampling` and `elicitation` capabilities (`{}`: neither); `null` for sessions opened before v8. */
  readonly clientCapabilities?: string | null;
  readonly lastSeen: number;
}

/** Where a task stands (MCP 2025-11-25 task statuses; `input_required` is never used). */
export type McpTaskStatus = "working" | "completed" | "failed" | "cancelled";

/** One task as stored. */
export interface McpTaskRow {
  readonly seq: number;
  readonly taskId: string;
  readonly credentialId: string;
  readonly subjectId: string;
  readonly status: McpTaskStatus;
  readonly statusMessage: string | null;
  /** Canonical JSON of the tool call, in the shape of the tool-call contract. */
  readonly input: string;
  readonly approvalId: string | null;
  /** Canonical JSON of the `CallToolResult` (completed) or of the JSON-RPC error (failed). */
  readonly result: string | null;
  readonly ttlMs: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A new task. */
export type NewTask = Omit<McpTaskRow, "seq" | "updatedAt">;

function sessionOf(row: SqlRow): McpSession {
  return {
    sessionId: text(row, "session_id"),
    credentialId: text(row, "credential_id"),
    subjectId: text(row, "subject_id"),
    protocolVersion: text(row, "protocol_version"),
    logLevel: textOrNull(row, "log_level"),
    clientCapabilities: textOrNull(row, "client_capabilities"),
    lastSeen: int(row, "last_seen"),
  };
}

function taskOf(row: SqlRow): McpTaskRow {
  return {
    seq: int(row, "seq"),
    taskId: text(row, "task_id"),
    credentialId: text(row, "credential_id"),
    subjectId: text(row, "subject_id"),
    status: text(row, "status") as McpTaskStatus,
    statusMessage: textOrNull(row, "status_message"),
    input: text(row, "input"),
    approvalId: textOrNull(row, "approval_id"),
    result: textOrNull(row, "result"),
    ttlMs: int(row, "ttl_ms"),
    createdAt: int(row, "created_at"),
    updatedAt: int(row, "updated_at"),
  };
}

/** All SQL of the MCP service. */
export class McpStore {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * The derived idempotency key of a call scope (`scope`: a digest of credential, tool and
   * canonical arguments): the stored one while its last call is less than the window old (each
   * call extends it), else `fresh`, stored for the next. A credential keeps at most
   * {@link MAX_DERIVED_KEYS_PER_CREDENTIAL}: its least recently used go first. Run inside the caller's transaction.
   */
  callKey(scope: string, credentialId: string, now: number, fresh: string): string {
    const row = one(this.sql, "SELECT idempotency_key, last_seen FROM mcp_call_keys WHERE scope = ?", scope);
    const live = row !== undefined && now - int(row, "last_seen") < DERIVED_KEY_WINDOW_SECONDS;
    const key = live ? text(row, "idempotency_key") : fresh;
    run(
      this.sql,
      "INSERT INTO mcp_call_keys (scope, credential_id, idempotency_key, last_seen) VALUES (?, ?, ?, ?) ON CONFLICT (scope) DO UPDATE SET idempotency_key = excluded.idempotency_key, last_seen = excluded.last_seen",
      scope,
      credentialId,
      key,
      now,
    );
    run(
      this.sql,
      "DELETE FROM mcp_call_keys WHERE scope IN (SELECT scope FROM mcp_call_keys WHERE credential_id = ? ORDER BY last_seen DESC, scope LIMIT -1 OFFSET ?)",
      credentialId,
      MAX_DERIVED_KEYS_PER_CREDENTIAL,
    );
    return key;
  }

  /** Stores a new session where its credential's and its subject's quotas make room for it (mcp/quota.ts); stores nothing when they do not. */
  openSession(session: McpSession, now: number): Room {
    const room = sessionRoom(this.sql, { credentialId: session.credentialId, subjectId: session.subjectId }, now);
    if (!room.fits) return room;
    run(
      this.sql,
      "INSERT INTO mcp_sessions (session_id, credential_id, subject_id, protocol_version, client_capabilities, created_at, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?)",
      session.sessionId,
      session.credentialId,
      session.subjectId,
      session.protocolVersion,
      session.clientCapabilities ?? null,
      now,
      now,
    );
    return room;
  }

  /** A session by id, any credential's (the service checks whose it is), unless it has been idle too long. */
  session(sessionId: string, now: number): McpSession | undefined {
    const row = one(
      this.sql,
      "SELECT * FROM mcp_sessions WHERE session_id = ? AND last_seen > ?",
      sessionId,
      now - MCP_SESSION_IDLE_SECONDS,
    );
    return row === undefined ? undefined : sessionOf(row);
  }

  /** Marks a session used now (its idle time, its place among its credential's sessions). */
  touchSession(sessionId: string, now: number): void {
    run(this.sql, "UPDATE mcp_sessions SET last_seen = ? WHERE session_id = ? AND last_seen <> ?", now, sessionId, now);
  }

  /** The level `logging/setLevel` asked for: relayed log messages are at least this severe (mcp/relay.ts). */
  setLogLevel(sessionId: string, level: string): void {
    run(this.sql, "UPDATE mcp_sessions SET log_level = ? WHERE session_id = ?", level, sessionId);
  }

  /** Ends a session (`DELETE …/mcp`). */
  endSession(sessionId: string): void {
    run(this.sql, "DELETE FROM mcp_sessions WHERE session_id = ?", sessionId);
  }

  /**
   * A credential was revoked: its sessions and tasks are deleted at once, their places free (a
   * revoked credential can never use a session or collect a task again).
   */
  forgetCredential(credentialId: string): void {
    run(this.sql, "DELETE FROM mcp_sessions WHERE credential_id = ?", credentialId);
    run(this.sql, "DELETE FROM mcp_tasks WHERE credential_id = ?", credentialId);
  }

  /** Makes the place of one more task of the credential (and its subject), beside the places `held` for calls still running (mcp/quota.ts). */
  taskRoom(owner: Owner, held: HeldTasks, now: number): Room {
    return taskRoom(this.sql, owner, held, now);
  }

  /** Stores a new task in the place {@link taskRoom} made for it. */
  addTask(task: NewTask): void {
    run(
      this.sql,
      "INSERT INTO mcp_tasks (task_id, credential_id, subject_id, status, status_message, input, approval_id, result, ttl_ms, created_at, updated_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      task.taskId,
      task.credentialId,
      task.subjectId,
      task.status,
      task.statusMessage,
      task.input,
      task.approvalId,
      task.result,
      task.ttlMs,
      task.createdAt,
      task.createdAt,
      task.createdAt + Math.ceil(task.ttlMs / 1000),
    );
  }

  /** A credential's unexpired task (another credential's reads as absent). */
  task(credentialId: string, taskId: string, now: number): McpTaskRow | undefined {
    const row = one(
      this.sql,
      "SELECT * FROM mcp_tasks WHERE task_id = ? AND credential_id = ? AND expires_at > ?",
      taskId,
      credentialId,
      now,
    );
    return row === undefined ? undefined : taskOf(row);
  }

  /** Ends a task with its status, message and result (JSON text). */
  finishTask(
    taskId: string,
    status: McpTaskStatus,
    statusMessage: string | null,
    result: string | null,
    now: number,
  ): void {
    run(
      this.sql,
      "UPDATE mcp_tasks SET status = ?, status_message = ?, result = ?, updated_at = ? WHERE task_id = ?",
      status,
      statusMessage,
      result,
      now,
      taskId,
    );
  }

  /** A waiting task's call opened another approval: the task waits for that one now. */
  awaitApproval(taskId: string, approvalId: string, statusMessage: string, now: number): void {
    run(
      this.sql,
      "UPDATE mcp_tasks SET approval_id = ?, status_message = ?, updated_at = ? WHERE task_id = ?",
      approvalId,
      statusMessage,
      now,
      taskId,
    );
  }

  /** A credential's unexpired tasks after position `after`, oldest first, at most `limit` (+1 to tell whether more follow). */
  tasksPage(credentialId: string, after: number, limit: number, now: number): McpTaskRow[] {
    return all(
      this.sql,
      "SELECT * FROM mcp_tasks WHERE credential_id = ? AND seq > ? AND expires_at > ? ORDER BY seq LIMIT ?",
      credentialId,
      after,
      now,
      limit + 1,
    ).map(taskOf);
  }
}
