import { FEATURES } from "./features";
import type { Migration } from "./schema";
import { int, one } from "./sql";

export type { Migration } from "./schema";

/**
 * Every feature's migrations (./features, each feature's `store.ts`). Tables were first created (v1: consumer,
 * credentials, tool-call records and approvals, audit chain; v2: capability; v3: runtime;
 * v4: credential bindings, consumer issuer and limits, approval order, mailboxes, outbox bounds;
 * v5: data-defined tools and consumer secrets; v6: MCP sessions and tasks; v7: registered MCP
 * servers; v8: a server's relay setting and a session's client capabilities; v9: the audit
 * log's Merkle tree and signed checkpoints; v11: webhook endpoints, messages, deliveries and attempts;
 * v12: the approver console's sessions; v13: the consumer's CORS allow-list; v14: the ages the
 * retention sweep reads: a record's stamp and hold, the approvals' and runtime rows' ends); v15: the
 * audit archive (how far the entries went to R2 as tlog-tiles, and the tiles held back); v16: the
 * OAuth client of a credential an MCP sign-in minted, and the capability of each completion in a
 * mailbox (a scoped credential drains only its capabilities'); v17: the sending credential and
 * user of each runtime outbox event (a credential's share, a subject-bound credential's own events); v18: the
 * idempotency keys derived for stock MCP clients; v19: what a consumer's tool-call audit records keep of arguments,
 * the consumer's approval window, and an approval's reason and rationale; v20: an approval's edit, standing
 * approvals and shadow rules; v21: who confirms an approval and who decided it; v22: the audit log's
 * Merkle tree keyed in the order appends store its nodes.
 * docs/storage.md documents every table. Stored formats are an API: change them only through
 * a new version, never by editing an old one.
 */
const MIGRATIONS: readonly Migration[] = FEATURES.flatMap((feature) => feature.migrations ?? []);

/** The schema version this code writes. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** The DDL of one version, every feature's part in registry order. */
function versionSql(version: number): string {
  return MIGRATIONS.filter((m) => m.version === version)
    .map((m) => m.sql)
    .join("\n");
}

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
  for (let v = from + 1; v <= SCHEMA_VERSION; v++) sql.exec(versionSql(v));
  if (from !== SCHEMA_VERSION) {
    sql.exec(
      "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      SCHEMA_VERSION,
    );
  }
  return from;
}
