/**
 * Fixed revisions, limits and closed vocabularies of Tool Result v2.
 * Values are the reference dispatcher's, so digests and packages agree byte for byte.
 * @module
 */

/** Schema of a scenario fixture. */
export const FIXTURE_SCHEMA_VERSION = "tool-cases-v2";
/** Schema of the model-visible projection. */
export const MODEL_RESULT_SCHEMA_VERSION = "tool-model-result-v2";
/** Schema of the protected audit projection. */
export const AUDIT_SCHEMA_VERSION = "tool-audit-v2";
/** Producer revision stamped on every error package the dispatcher writes. */
export const DISPATCHER_REVISION = "offline-dispatcher-v2";
/** Source label stamped on every error package the dispatcher writes. */
export const DISPATCHER_SOURCE_LABEL = "offline-dispatcher";

/** Largest fixture file accepted, in bytes. */
export const MAX_FIXTURE_BYTES = 65_536;
/** Deepest container nesting accepted in a fixture. */
export const MAX_JSON_DEPTH = 32;
/** Identifiers are 1..255 code points after a non-empty strip. */
export const MAX_IDENTIFIER_CHARS = 255;
/** At most this many roles per principal. */
export const MAX_ROLES = 32;
/** At most this many cases per fixture. */
export const MAX_CASES = 256;
/** At most this many steps per case. */
export const MAX_STEPS_PER_CASE = 256;
/** 9999-12-31T23:59:59Z: the last second Python's datetime can format. */
export const MAX_PORTABLE_UNIX_SECONDS = 253_402_300_799;
/** An approval lives this many seconds after it is granted. */
export const APPROVAL_TTL_SECONDS = 60;
/** The approver fixture approvals name. */
export const DEFAULT_APPROVER_ID = "human-reviewer-1";
/** Approvers the demo dispatcher trusts unless told otherwise. */
export const AUTHORIZED_APPROVER_IDS: ReadonlySet<string> = new Set([DEFAULT_APPROVER_ID]);

/** The two engine actions a fixture step may take. */
export const VALID_ACTIONS = ["dispatch", "query_status"] as const;
/** Fixture approval modes. */
export const VALID_APPROVAL_MODES = ["none", "valid", "expired", "mismatched"] as const;
/** Failure injections a fixture step may ask for. */
export const VALID_FAILURES = [
  "none",
  "timeout_before_execute",
  "timeout_after_commit",
  "timeout_after_commit_receipt_unavailable",
  "rate_limit",
  "tool_error",
] as const;
/** `model_result.status` values. */
export const VALID_STATUSES = ["succeeded", "failed", "unknown"] as const;
/** `model_result.execution.outcome` values. */
export const VALID_OUTCOMES = ["not_started", "committed", "unknown"] as const;
/** `model_result.error.recovery` values ("none" only appears in summaries). */
export const VALID_RECOVERIES = [
  "none",
  "correct_input",
  "request_approval",
  "retry_after",
  "query_status",
  "human_review",
] as const;
/** `model_result.execution.delivery` values. */
export const VALID_DELIVERIES = ["fresh", "local_replay", "receipt_reconciled"] as const;
/** `model_result.provenance.trust` values. */
export const VALID_TRUST = ["untrusted_data", "trusted_control"] as const;

/** A fixture step action. */
export type Action = (typeof VALID_ACTIONS)[number];
/** A fixture approval mode. */
export type ApprovalMode = (typeof VALID_APPROVAL_MODES)[number];
/** A failure injection. */
export type Failure = (typeof VALID_FAILURES)[number];
/** A result delivery. */
export type Delivery = (typeof VALID_DELIVERIES)[number];

/** The reference's provider profiles: `provider/api_family` → the only adapter revision allowed. */
const REFERENCE_PROFILES: ReadonlyMap<string, string> = new Map([
  ["openai\u0000responses", "openai-responses-v1"],
  ["anthropic\u0000messages", "anthropic-messages-v1"],
  ["google\u0000interactions", "gemini-interactions-v1"],
]);

/**
 * The gate's own profile for calls that arrive over MCP (`tools/call`): the result is projected
 * as an MCP `CallToolResult` ({@link import("../adapters/provider-results").toMcpToolResult}).
 * It is not part of the reference's fixture contract, which keeps only the three above.
 */
export const MCP_PROFILE = { provider: "mcp", api_family: "tools", adapter_revision: "mcp-tools-v1" } as const;

const GATE_PROFILES: ReadonlyMap<string, string> = new Map([
  ...REFERENCE_PROFILES,
  [`${MCP_PROFILE.provider}\u0000${MCP_PROFILE.api_family}`, MCP_PROFILE.adapter_revision],
]);

/**
 * The adapter revision registered for a provider profile, or undefined when unregistered.
 * `scope` "reference" admits only the reference's profiles (fixtures); "gate" adds MCP's.
 */
export function expectedAdapterRevision(provider: unknown, apiFamily: unknown, scope: "gate" | "reference" = "gate"): string | undefined {
  if (typeof provider !== "string" || typeof apiFamily !== "string") return undefined;
  return (scope === "gate" ? GATE_PROFILES : REFERENCE_PROFILES).get(`${provider}\u0000${apiFamily}`);
}

/**
 * Keys that must never reach a model: credentials and the host's own correlation fields.
 * Compared after lower-casing and mapping `-` to `_`.
 */
export const SENSITIVE_OR_CONTROL_KEYS: ReadonlySet<string> = new Set([
  "authorization",
  "api_key",
  "access_token",
  "refresh_token",
  "password",
  "secret",
  "cookie",
  "set_cookie",
  "call_id",
  "operation_id",
  "request_digest",
  "request_sha256",
  "result_sha256",
  "call_binding_sha256",
]);

/** `true` when `value` is one of `choices` (strings only; anything else is not a member). */
export function isOneOf<T extends string>(choices: readonly T[], value: unknown): value is T {
  return typeof value === "string" && (choices as readonly string[]).includes(value);
}
