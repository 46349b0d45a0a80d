/**
 * The runtime transport's tables (schema v3; docs/runtime-transport.md describes each).
 *
 * - `runtime_settings`: small counters (the facade-target map's revision).
 * - `runtime_facade_targets`: App Facade target → tool name, per consumer.
 * - `runtime_actions`: prepared App Facade actions, their tool call, approval and outcome.
 * - `runtime_outbox`: durable events waiting for their `event_ack`, in arrival order.
 * - `runtime_purges`: completed checkpoint purges, by `purge_id`.
 */
export const RUNTIME_MIGRATION = `
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
  );
`;
