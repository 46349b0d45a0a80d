import { canonicalJson } from "../../../core/json";
import { PREPARED_ACTION_SECONDS } from "../../kernel/limits";
import type { ExpiryRule, Migration } from "../../kernel/schema";
import { all, int, one, run, text, textOrNull, type SqlRow } from "../../kernel/sql";

/** When a prepared action stops mattering: when it was committed or rejected, or once its approval can no longer be used. */
const ACTION_END = `COALESCE(closed_at, prepared_at + ${PREPARED_ACTION_SECONDS})`;

/**
 * The runtime service's tables (schema v3, v4; docs/runtime-transport.md describes each):
 * `runtime_settings` (the facade-target map's revision, the outbox's event and byte counters),
 * `runtime_facade_targets`, `runtime_actions` (prepared App Facade actions), `runtime_outbox`
 * (events waiting for their `event_ack`, with their size), `runtime_purges` (completed
 * checkpoint purges).
 */
export const RUNTIME_MIGRATIONS: readonly Migration[] = [
  {
    version: 3,
    sql: `
  CREATE TABLE runtime_settings (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  );
  CREATE TABLE runtime_facade_targets (
    target TEXT PRIMARY KEY,
    tool TEXT NOT NULL
  );
  CREATE TABLE runtime_actions (
    action_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    run_id TEXT NOT NULL,
    operation_id TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    target TEXT NOT NULL,
    tool TEXT NOT NULL,
    request TEXT NOT NULL,
    request_sha256 TEXT NOT NULL,
    revision INTEGER NOT NULL,
    approval_id TEXT,
    state TEXT NOT NULL,
    result TEXT,
    dispatch_id TEXT NOT NULL,
    agent_session_id TEXT NOT NULL,
    prepared_at INTEGER NOT NULL,
    closed_at INTEGER
  );
  CREATE TABLE runtime_outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL UNIQUE,
    envelope TEXT NOT NULL,
    received_at INTEGER NOT NULL
  );
  CREATE TABLE runtime_purges (
    purge_id TEXT PRIMARY KEY,
    request_key TEXT NOT NULL,
    thread_prefix TEXT NOT NULL,
    deleted_objects INTEGER NOT NULL,
    completed_at INTEGER NOT NULL
  );`,
  },
  {
    // v4: the outbox bounds (limits.outbox_max_events / outbox_max_bytes) read two counters
    // instead of scanning the table; each event keeps its size so an ack can subtract it.
    version: 4,
    sql: `
  ALTER TABLE runtime_outbox ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
  UPDATE runtime_outbox SET bytes = LENGTH(CAST(envelope AS BLOB));
  INSERT INTO runtime_settings (key, value) SELECT 'outbox_events', COUNT(*) FROM runtime_outbox;
  INSERT INTO runtime_settings (key, value) SELECT 'outbox_bytes', COALESCE(SUM(bytes), 0) FROM runtime_outbox;`,
  },
  {
    // v14: retention (docs/storage.md): the ages the sweep reads, indexed.
    version: 14,
    sql: `
  CREATE INDEX runtime_actions_by_end ON runtime_actions (${ACTION_END});
  CREATE INDEX runtime_purges_by_completion ON runtime_purges (completed_at);`,
  },
  {
    // v17: each waiting event keeps the credential that sent it (its share of the outbox) and
    // the user it speaks for (who may acknowledge it); events kept before have neither.
    version: 17,
    sql: `
  ALTER TABLE runtime_outbox ADD COLUMN credential_id TEXT;
  ALTER TABLE runtime_outbox ADD COLUMN subject_id TEXT;
  CREATE INDEX runtime_outbox_by_credential ON runtime_outbox (credential_id);`,
  },
];

/**
 * The service's expiring rows (retention/sweep.ts): a prepared action a window after it ended (a
 * repeated commit or prepare after that finds none), a completed purge a window after it
 * completed (its id then runs as a new purge).
 */
export const RUNTIME_EXPIRY: readonly ExpiryRule[] = [
  { table: "runtime_actions", key: "action_id", age: ACTION_END, keep: (window) => window },
  { table: "runtime_purges", key: "purge_id", age: "completed_at", keep: (window) => window },
];

/** The consumer's map from App Facade target to tool name, and its revision. */
export interface FacadeTargets {
  targets: ReadonlyMap<string, string>;
  /** Starts at 0; every `PUT …/runtime/facade-targets` adds one. Prepared actions carry it. */
  revision: number;
}

/** A prepared App Facade action as stored. */
export interface ActionRow {
  action_id: string;
  thread_id: string;
  run_id: string;
  operation_id: string;
  subject_id: string;
  target: string;
  tool: string;
  /** Canonical JSON of the tool call, in the shape of the tool-call contract. */
  request: string;
  request_sha256: string;
  revision: number;
  approval_id: string | null;
  state: "prepared" | "committed" | "rejected";
  /** Canonical JSON of the committed value. */
  result: string | null;
  dispatch_id: string;
  agent_session_id: string;
  prepared_at: number;
}

function actionOf(row: SqlRow): ActionRow {
  return {
    action_id: text(row, "action_id"),
    thread_id: text(row, "thread_id"),
    run_id: text(row, "run_id"),
    operation_id: text(row, "operation_id"),
    subject_id: text(row, "subject_id"),
    target: text(row, "target"),
    tool: text(row, "tool"),
    request: text(row, "request"),
    request_sha256: text(row, "request_sha256"),
    revision: int(row, "revision"),
    approval_id: textOrNull(row, "approval_id"),
    state: text(row, "state") as ActionRow["state"],
    result: textOrNull(row, "result"),
    dispatch_id: text(row, "dispatch_id"),
    agent_session_id: text(row, "agent_session_id"),
    prepared_at: int(row, "prepared_at"),
  };
}

/** What keeping an event did: stored (at `seq`), already waiting, or refused (the outbox is full). */
export type OutboxAdd = { status: "stored"; seq: number } | { status: "duplicate" } | { status: "full" };

/** The outbox's bounds (from the consumer's limits). */
export interface OutboxBounds {
  maxEvents: number;
  maxBytes: number;
  /** What one credential's waiting events may hold at most (its share of the outbox). */
  perCredential: { maxEvents: number; maxBytes: number };
}

/** Who kept an event: the sending credential, and the user its envelope's actor names. */
export interface EventOwner {
  credentialId: string;
  subjectId: string;
}

/** One waiting event: its place and its envelope text. */
export interface OutboxEvent {
  seq: number;
  text: string;
}

function setting(sql: SqlStorage, key: string): number {
  const row = one(sql, "SELECT value FROM runtime_settings WHERE key = ?", key);
  return row === undefined ? 0 : int(row, "value");
}

function addSetting(sql: SqlStorage, key: string, delta: number): void {
  run(
    sql,
    "INSERT INTO runtime_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = value + excluded.value",
    key,
    delta,
  );
}

/** All SQL of the runtime service; every call runs inside the caller's transaction where it writes. */
export class RuntimeStore {
  constructor(private readonly sql: SqlStorage) {}

  /** The facade-target map (empty, revision 0, until an admin sets one). */
  targets(): FacadeTargets {
    const targets = new Map<string, string>();
    for (const row of all(this.sql, "SELECT target, tool FROM runtime_facade_targets ORDER BY target"))
      targets.set(text(row, "target"), text(row, "tool"));
    const rev = one(this.sql, "SELECT value FROM runtime_settings WHERE key = 'facade_targets_revision'");
    return { targets, revision: rev === undefined ? 0 : int(rev, "value") };
  }

  /** Replaces the whole map and bumps its revision. */
  saveTargets(targets: Readonly<Record<string, string>>): FacadeTargets {
    run(this.sql, "DELETE FROM runtime_facade_targets");
    for (const [target, tool] of Object.entries(targets))
      run(this.sql, "INSERT INTO runtime_facade_targets (target, tool) VALUES (?, ?)", target, tool);
    run(
      this.sql,
      "INSERT INTO runtime_settings (key, value) VALUES ('facade_targets_revision', 1) ON CONFLICT (key) DO UPDATE SET value = value + 1",
    );
    return this.targets();
  }

  action(actionId: string): ActionRow | undefined {
    const row = one(this.sql, "SELECT * FROM runtime_actions WHERE action_id = ?", actionId);
    return row === undefined ? undefined : actionOf(row);
  }

  insertAction(action: Omit<ActionRow, "state" | "result">): void {
    run(
      this.sql,
      `INSERT INTO runtime_actions (action_id, thread_id, run_id, operation_id, subject_id, target, tool, request, request_sha256, revision,
         approval_id, state, result, dispatch_id, agent_session_id, prepared_at, closed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'prepared', NULL, ?, ?, ?, NULL)`,
      action.action_id,
      action.thread_id,
      action.run_id,
      action.operation_id,
      action.subject_id,
      action.target,
      action.tool,
      action.request,
      action.request_sha256,
      action.revision,
      action.approval_id,
      action.dispatch_id,
      action.agent_session_id,
      action.prepared_at,
    );
  }

  /** Closes a prepared action as committed with its value. */
  commitAction(actionId: string, value: unknown, now: number): void {
    run(
      this.sql,
      "UPDATE runtime_actions SET state = 'committed', result = ?, closed_at = ? WHERE action_id = ? AND state = 'prepared'",
      canonicalJson(value),
      now,
      actionId,
    );
  }

  rejectAction(actionId: string, now: number): void {
    run(this.sql, "UPDATE runtime_actions SET state = 'rejected', closed_at = ? WHERE action_id = ?", now, actionId);
  }

  /**
   * Keeps an event; an event id already waiting (or a re-sent one) keeps its first text and
   * place. A new event that would take the outbox over either bound is refused (`full`).
   */
  addEvent(eventId: string, envelopeText: string, now: number, bounds: OutboxBounds, owner: EventOwner): OutboxAdd {
    if (one(this.sql, "SELECT 1 AS present FROM runtime_outbox WHERE event_id = ?", eventId) !== undefined)
      return { status: "duplicate" };
    const bytes = new TextEncoder().encode(envelopeText).byteLength;
    const usage = this.outboxUsage();
    if (usage.events + 1 > bounds.maxEvents || usage.bytes + bytes > bounds.maxBytes) return { status: "full" };
    const own = one(
      this.sql,
      "SELECT COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS b FROM runtime_outbox WHERE credential_id = ?",
      owner.credentialId,
    );
    if (own === undefined) throw new Error("an aggregate query returned no row");
    if (int(own, "n") + 1 > bounds.perCredential.maxEvents || int(own, "b") + bytes > bounds.perCredential.maxBytes)
      return { status: "full" };
    const row = one(
      this.sql,
      "INSERT INTO runtime_outbox (event_id, envelope, received_at, bytes, credential_id, subject_id) VALUES (?, ?, ?, ?, ?, ?) RETURNING seq",
      eventId,
      envelopeText,
      now,
      bytes,
      owner.credentialId,
      owner.subjectId,
    );
    if (row === undefined) throw new Error("outbox insert answered no seq");
    addSetting(this.sql, "outbox_events", 1);
    addSetting(this.sql, "outbox_bytes", bytes);
    return { status: "stored", seq: int(row, "seq") };
  }

  /** The user a waiting event speaks for (`null`: kept before events recorded it; `undefined`: no such event). */
  eventSubject(eventId: string): string | null | undefined {
    const row = one(this.sql, "SELECT subject_id FROM runtime_outbox WHERE event_id = ?", eventId);
    return row === undefined ? undefined : textOrNull(row, "subject_id");
  }

  /** Clears an event; `false` when no such event waits (an unknown or repeated ack is a no-op). */
  ackEvent(eventId: string): boolean {
    const row = one(this.sql, "DELETE FROM runtime_outbox WHERE event_id = ? RETURNING bytes", eventId);
    if (row === undefined) return false;
    addSetting(this.sql, "outbox_events", -1);
    addSetting(this.sql, "outbox_bytes", -int(row, "bytes"));
    return true;
  }

  /** Waiting events and the bytes of their envelopes. */
  outboxUsage(): { events: number; bytes: number } {
    return { events: setting(this.sql, "outbox_events"), bytes: setting(this.sql, "outbox_bytes") };
  }

  /** At most `limit` waiting events after `seq`, oldest first. */
  eventsAfter(seq: number, limit: number): OutboxEvent[] {
    return all(this.sql, "SELECT seq, envelope FROM runtime_outbox WHERE seq > ? ORDER BY seq LIMIT ?", seq, limit).map(
      (row) => ({ seq: int(row, "seq"), text: text(row, "envelope") }),
    );
  }

  /** How many events up to `seq` still wait for their ack (counted up to `cap`). */
  waitingThrough(seq: number, cap: number): number {
    const row = one(
      this.sql,
      "SELECT COUNT(*) AS n FROM (SELECT 1 FROM runtime_outbox WHERE seq <= ? LIMIT ?)",
      seq,
      cap,
    );
    return row === undefined ? 0 : int(row, "n");
  }

  /** Whether an event waits strictly between `after` and `before`. */
  waitingBetween(after: number, before: number): boolean {
    return (
      one(this.sql, "SELECT 1 AS present FROM runtime_outbox WHERE seq > ? AND seq < ? LIMIT 1", after, before) !==
      undefined
    );
  }

  /** A completed purge, by id. */
  purge(purgeId: string): { requestKey: string; deletedObjects: number } | undefined {
    const row = one(this.sql, "SELECT request_key, deleted_objects FROM runtime_purges WHERE purge_id = ?", purgeId);
    return row === undefined
      ? undefined
      : { requestKey: text(row, "request_key"), deletedObjects: int(row, "deleted_objects") };
  }

  recordPurge(purgeId: string, requestKey: string, prefix: string, deleted: number, now: number): void {
    run(
      this.sql,
      "INSERT INTO runtime_purges (purge_id, request_key, thread_prefix, deleted_objects, completed_at) VALUES (?, ?, ?, ?, ?)",
      purgeId,
      requestKey,
      prefix,
      deleted,
      now,
    );
  }
}
