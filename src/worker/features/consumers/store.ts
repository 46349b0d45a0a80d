import { canonicalJson } from "../../../core/json";
import {
  AUDIT_ARGUMENTS,
  ConsumerLimits,
  PrincipalTokenIssuer,
  StandingApprovalsSetting,
  type AuditArguments,
} from "../../../contracts/consumer";
import type { Migration } from "../../kernel/schema";
import { intOrNull, one, run, storedJson, storedStrings, text, textOrNull } from "../../kernel/sql";

/**
 * The consumer service's table (schema v1: the one configuration row; v4: token issuer and limits; v13: the CORS
 * allow-list; v19: what tool calls' audit records keep of their arguments; v20: the standing approvals setting).
 */
export const CONSUMER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
  CREATE TABLE consumer (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    tools TEXT NOT NULL,
    approver_subjects TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );`,
  },
  {
    version: 4,
    sql: `
  ALTER TABLE consumer ADD COLUMN principal_tokens TEXT;
  ALTER TABLE consumer ADD COLUMN limits TEXT NOT NULL DEFAULT '{}';`,
  },
  { version: 13, sql: "ALTER TABLE consumer ADD COLUMN cors_origins TEXT NOT NULL DEFAULT '[]';" },
  // v19: what the consumer's tool-call audit records keep of arguments, and its approval window
  // (NULL: the default, DEFAULT_APPROVAL_VALID_SECONDS).
  {
    version: 19,
    sql: "ALTER TABLE consumer ADD COLUMN audit_arguments TEXT NOT NULL DEFAULT 'digest'; ALTER TABLE consumer ADD COLUMN approval_valid_seconds INTEGER;",
  },
  // v20: which tools allow standing approvals, as canonical JSON (NULL: none).
  { version: 20, sql: "ALTER TABLE consumer ADD COLUMN standing_approvals TEXT;" },
];

/** A consumer's stored configuration. */
export interface ConsumerRecord {
  name: string;
  tools: string[];
  approverSubjects: string[];
  /** The issuer of end users' tokens, if the consumer verifies them. */
  principalTokens: PrincipalTokenIssuer | null;
  /** Overrides of the default limits. */
  limits: ConsumerLimits;
  /** Browser origins allowed to call the consumer's credential routes (CORS), sorted; empty: none. */
  corsOrigins: string[];
  /** What a tool call's audit record keeps of its arguments. */
  auditArguments: AuditArguments;
  /** Seconds an approval admits the repeated call when its tool sets no window; `null`: the default. */
  approvalValidSeconds: number | null;
  /** Which tools allow standing approvals, their longest window and count; `null`: none. */
  standingApprovals: StandingApprovalsSetting | null;
}

function auditArgumentsOf(value: string): AuditArguments {
  const known = AUDIT_ARGUMENTS.find((a) => a === value);
  if (known === undefined) throw new Error("stored audit_arguments outside its contract");
  return known;
}

function storedObject<T>(json: string, schema: { parse(value: unknown): T }, what: string): T {
  return schema.parse(storedJson(json, what));
}

/** Reads the consumer row; `undefined` until an admin has created the consumer. */
export function loadConsumer(sql: SqlStorage): ConsumerRecord | undefined {
  const row = one(
    sql,
    "SELECT name, tools, approver_subjects, principal_tokens, limits, cors_origins, audit_arguments, approval_valid_seconds, standing_approvals FROM consumer WHERE id = 1",
  );
  if (row === undefined) return undefined;
  const issuer = textOrNull(row, "principal_tokens");
  const standing = textOrNull(row, "standing_approvals");
  return {
    name: text(row, "name"),
    tools: storedStrings(text(row, "tools"), "consumer tools"),
    approverSubjects: storedStrings(text(row, "approver_subjects"), "consumer approvers"),
    principalTokens: issuer === null ? null : storedObject(issuer, PrincipalTokenIssuer, "token issuer"),
    limits: storedObject(text(row, "limits"), ConsumerLimits, "consumer limits"),
    corsOrigins: storedStrings(text(row, "cors_origins"), "consumer CORS origins"),
    auditArguments: auditArgumentsOf(text(row, "audit_arguments")),
    approvalValidSeconds: intOrNull(row, "approval_valid_seconds"),
    standingApprovals:
      standing === null ? null : storedObject(standing, StandingApprovalsSetting, "standing approvals setting"),
  };
}

/** Creates or replaces the consumer row; answers whether it was created. */
export function saveConsumer(sql: SqlStorage, record: ConsumerRecord, now: number): boolean {
  const existed = one(sql, "SELECT 1 AS present FROM consumer WHERE id = 1") !== undefined;
  const tools = canonicalJson([...new Set(record.tools)].sort());
  const approvers = canonicalJson([...new Set(record.approverSubjects)].sort());
  // Both were checked by their contracts: strings, integers, arrays and objects only.
  const issuer = record.principalTokens === null ? null : JSON.stringify(record.principalTokens);
  const limits = JSON.stringify(record.limits);
  const origins = canonicalJson([...new Set(record.corsOrigins)].sort());
  const standing = record.standingApprovals === null ? null : canonicalJson({ ...record.standingApprovals });
  if (existed) {
    run(
      sql,
      "UPDATE consumer SET tools = ?, approver_subjects = ?, principal_tokens = ?, limits = ?, cors_origins = ?, audit_arguments = ?, approval_valid_seconds = ?, standing_approvals = ?, updated_at = ? WHERE id = 1",
      tools,
      approvers,
      issuer,
      limits,
      origins,
      record.auditArguments,
      record.approvalValidSeconds,
      standing,
      now,
    );
  } else {
    run(
      sql,
      "INSERT INTO consumer (id, name, tools, approver_subjects, created_at, updated_at, principal_tokens, limits, cors_origins, audit_arguments, approval_valid_seconds, standing_approvals) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      record.name,
      tools,
      approvers,
      now,
      now,
      issuer,
      limits,
      origins,
      record.auditArguments,
      record.approvalValidSeconds,
      standing,
    );
  }
  return !existed;
}
