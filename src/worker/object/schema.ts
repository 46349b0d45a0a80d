import { CAPABILITY_MIGRATION } from "./capability-store";
import { RUNTIME_MIGRATION } from "./runtime-schema";
import { int, one } from "./sql";

/**
 * The consumer object's SQLite schema, versioned. Each migration runs once, in order, inside
 * one synchronous transaction with the version bump; docs/storage.md documents every table.
 * Stored formats are an API: change them only through a new migration.
 */
const MIGRATIONS: readonly string[] = [
  // v1: consumer, credentials, store-port records and counters, approvals, audit chain.
  `
  CREATE TABLE consumer (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    tools TEXT NOT NULL,
    approver_subjects TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE credentials (
    credential_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    subject_id TEXT,
    secret_sha256 BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );
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
  CREATE INDEX approvals_by_state ON approvals (state, requested_at);
  CREATE TABLE audit_chain (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    at INTEGER NOT NULL,
    record TEXT NOT NULL,
    prev_sha256 TEXT NOT NULL,
    entry_sha256 TEXT NOT NULL
  );
  `,
  // v2: the capability plane (engine state chunks, effect outbox, long-poll leases).
  CAPABILITY_MIGRATION,
  // v3: the runtime transport (facade targets, prepared actions, event outbox, checkpoint purges).
  RUNTIME_MIGRATION,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Reads the stored schema version (0 for a new object). */
export function storedSchemaVersion(sql: SqlStorage): number {
  sql.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)");
  const row = one(sql, "SELECT value FROM meta WHERE key = 'schema_version'");
  return row === undefined ? 0 : int(row, "value");
}

/**
 * Brings the schema to {@link SCHEMA_VERSION}. Call inside `blockConcurrencyWhile` and
 * `transactionSync`. A stored version newer than this code is a deployment bug: refuse to run.
 */
export function migrate(sql: SqlStorage): number {
  const from = storedSchemaVersion(sql);
  if (from > SCHEMA_VERSION) throw new Error(`stored schema v${from} is newer than this code (v${SCHEMA_VERSION})`);
  for (let v = from; v < SCHEMA_VERSION; v++) {
    sql.exec(MIGRATIONS[v] as string);
  }
  if (from !== SCHEMA_VERSION) {
    sql.exec(
      "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      SCHEMA_VERSION,
    );
  }
  return from;
}
