/**
 * The schema a new consumer object creates is pinned: every table, index and trigger in
 * `sqlite_master`, and the stored version. Stored formats are an API (object/migrations.ts), so
 * a change to how the migrations are gathered must leave this dump byte for byte the same; a
 * new version adds exactly the objects its migration names.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION, storedSchemaVersion } from "../../../src/worker/kernel/migrations";
import schema from "../fixtures/schema-v17.json";

/** What v18 adds to the v17 dump (mcp/store.ts: the derived idempotency keys of stock MCP clients), as written in its migration. */
const V18_OBJECTS = [
  {
    type: "index",
    name: "mcp_call_keys_by_credential",
    tbl_name: "mcp_call_keys",
    sql: "CREATE INDEX mcp_call_keys_by_credential ON mcp_call_keys (credential_id, last_seen)",
  },
  {
    type: "index",
    name: "mcp_call_keys_by_seen",
    tbl_name: "mcp_call_keys",
    sql: "CREATE INDEX mcp_call_keys_by_seen ON mcp_call_keys (last_seen)",
  },
  {
    type: "table",
    name: "mcp_call_keys",
    tbl_name: "mcp_call_keys",
    sql: "CREATE TABLE mcp_call_keys (\n    scope TEXT PRIMARY KEY,\n    credential_id TEXT NOT NULL,\n    idempotency_key TEXT NOT NULL,\n    last_seen INTEGER NOT NULL\n  )",
  },
];

/**
 * What v19 changes of the v17 dump: the consumer's audit-arguments setting and approval window
 * (consumers/store.ts), an approval's reason and rationale (tool-calls/store.ts).
 */
const V19_CONSUMER_SQL =
  "CREATE TABLE consumer (\n    id INTEGER PRIMARY KEY CHECK (id = 1),\n    name TEXT NOT NULL,\n    tools TEXT NOT NULL,\n    approver_subjects TEXT NOT NULL,\n    created_at INTEGER NOT NULL,\n    updated_at INTEGER NOT NULL\n  , principal_tokens TEXT, limits TEXT NOT NULL DEFAULT '{}', cors_origins TEXT NOT NULL DEFAULT '[]', audit_arguments TEXT NOT NULL DEFAULT 'digest', approval_valid_seconds INTEGER)";

/**
 * What v20 adds, as written in its migrations: a tool's shadow counts and kept disagreements
 * (tools/shadow-store.ts), the standing approvals' table (standing/store.ts) and the setting's
 * column (consumers/store.ts).
 */
const V20_OBJECTS = [
  {
    type: "index",
    name: "standing_approvals_end",
    tbl_name: "standing_approvals",
    sql: "CREATE INDEX standing_approvals_end ON standing_approvals (COALESCE(revoked_at, expires_at))",
  },
  {
    type: "index",
    name: "standing_approvals_live",
    tbl_name: "standing_approvals",
    sql: "CREATE INDEX standing_approvals_live ON standing_approvals (subject_id, tool, seq) WHERE revoked_at IS NULL",
  },
  {
    type: "index",
    name: "tool_shadow_by_age",
    tbl_name: "tool_shadow_disagreements",
    sql: "CREATE INDEX tool_shadow_by_age ON tool_shadow_disagreements (at)",
  },
  {
    type: "index",
    name: "tool_shadow_by_tool",
    tbl_name: "tool_shadow_disagreements",
    sql: "CREATE INDEX tool_shadow_by_tool ON tool_shadow_disagreements (tool, id)",
  },
  {
    type: "index",
    name: "tool_shadow_counts_by_age",
    tbl_name: "tool_shadow_counts",
    sql: "CREATE INDEX tool_shadow_counts_by_age ON tool_shadow_counts (last_at)",
  },
  {
    type: "table",
    name: "standing_approvals",
    tbl_name: "standing_approvals",
    sql: "CREATE TABLE standing_approvals (\n    seq INTEGER PRIMARY KEY AUTOINCREMENT,\n    standing_id TEXT NOT NULL UNIQUE,\n    tool TEXT NOT NULL,\n    subject_id TEXT NOT NULL,\n    approver_id TEXT NOT NULL,\n    constraint_cel TEXT,\n    granted_at INTEGER NOT NULL,\n    expires_at INTEGER NOT NULL,\n    max_calls INTEGER NOT NULL,\n    used_calls INTEGER NOT NULL DEFAULT 0,\n    revoked_at INTEGER,\n    revoked_by TEXT\n  )",
  },
  {
    type: "table",
    name: "tool_shadow_counts",
    tbl_name: "tool_shadow_counts",
    sql: "CREATE TABLE tool_shadow_counts (\n    tool TEXT NOT NULL,\n    revision TEXT NOT NULL,\n    evaluated INTEGER NOT NULL,\n    agreed INTEGER NOT NULL,\n    authorize INTEGER NOT NULL,\n    approval INTEGER NOT NULL,\n    first_at INTEGER NOT NULL,\n    last_at INTEGER NOT NULL,\n    PRIMARY KEY (tool, revision)\n  )",
  },
  {
    type: "table",
    name: "tool_shadow_disagreements",
    tbl_name: "tool_shadow_disagreements",
    sql: "CREATE TABLE tool_shadow_disagreements (\n    id INTEGER PRIMARY KEY AUTOINCREMENT,\n    tool TEXT NOT NULL,\n    revision TEXT NOT NULL,\n    at INTEGER NOT NULL,\n    kind TEXT NOT NULL,\n    enforced TEXT NOT NULL,\n    shadow TEXT NOT NULL,\n    subject_id TEXT NOT NULL,\n    call_id TEXT NOT NULL,\n    request_sha256 TEXT NOT NULL,\n    arguments TEXT\n  )",
  },
];
const V20_CONSUMER_SQL = V19_CONSUMER_SQL.replace(/\)$/, ", standing_approvals TEXT)");

/**
 * What v22 makes of the Merkle tree's table (audit/store.ts): keyed by the order appends store its
 * nodes, built as `audit_tree_v22` and renamed (SQLite writes the new name quoted into the text).
 */
const V22_AUDIT_TREE_SQL =
  'CREATE TABLE "audit_tree" (\n    pos INTEGER PRIMARY KEY,\n    level INTEGER NOT NULL,\n    idx INTEGER NOT NULL,\n    hash BLOB NOT NULL\n  )';
const V20_TABLES = new Set(["standing_approvals", "tool_shadow_counts", "tool_shadow_disagreements"]);

describe("the consumer object's schema", () => {
  it("is version 22: the pinned v17 dump, the v18 table, the v19 columns, v20's tables and columns, v21's columns and v22's tree table, exactly", async () => {
    const stub = env.CONSUMER.get(env.CONSUMER.idFromName("migrations-schema"));
    const dump = await runInDurableObject(stub, (_instance, state) => ({
      version: storedSchemaVersion(state.storage.sql),
      objects: state.storage.sql
        .exec<{ type: string; name: string; tbl_name: string; sql: string | null }>(
          "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE '_cf_%' AND name NOT LIKE 'sqlite_%' ORDER BY type, name",
        )
        .toArray(),
    }));
    expect(SCHEMA_VERSION).toBe(22);
    expect(dump.version).toBe(22);
    const v19 = schema.map((o) =>
      o.name === "consumer"
        ? { ...o, sql: V20_CONSUMER_SQL }
        : o.name === "audit_tree"
          ? { ...o, sql: V22_AUDIT_TREE_SQL }
          : o.name === "approvals" && o.sql !== null
            ? {
                ...o,
                sql: o.sql.replace(
                  ", seq INTEGER, opened_by TEXT)",
                  // v20: an edited request's edit; v21: who confirms and who decided (tool-calls/store.ts).
                  ", seq INTEGER, opened_by TEXT, reason TEXT, rationale TEXT, edited_request_sha256 TEXT, edited_arguments TEXT, confirmed_by TEXT, decided_by TEXT)",
                ),
              }
            : o,
    );
    expect(dump.objects.filter((o) => o.tbl_name !== "mcp_call_keys" && !V20_TABLES.has(o.tbl_name))).toEqual(v19);
    expect(dump.objects.filter((o) => o.tbl_name === "mcp_call_keys")).toEqual(V18_OBJECTS);
    expect(dump.objects.filter((o) => V20_TABLES.has(o.tbl_name))).toEqual(V20_OBJECTS);
  });
});
