/**
 * Fixed revisions, limits and closed vocabularies of Tool Result v2.
 * Values are the reference dispatcher's, so digests and packages agree byte for byte.
 * @module
 */

/** Schema of the model-visible projection. */
export const MODEL_RESULT_SCHEMA_VERSION = "tool-model-result-v2";
/** Schema of the protected audit projection. */
export const AUDIT_SCHEMA_VERSION = "tool-audit-v2";
/** Producer revision stamped on every error package the dispatcher writes. */
export const DISPATCHER_REVISION = "offline-dispatcher-v2";
/** Source label stamped on every error package the dispatcher writes. */
export const DISPATCHER_SOURCE_LABEL = "offline-dispatcher";

/** Identifiers are 1..255 code points after a non-empty strip. */
export const MAX_IDENTIFIER_CHARS = 255;
/** At most this many roles per principal. */
export const MAX_ROLES = 32;
/** 9999-12-31T23:59:59Z: the last second Python's datetime can format. */
export const MAX_PORTABLE_UNIX_SECONDS = 253_402_300_799;
/** An approval lives this many seconds after it is granted. */
export const APPROVAL_TTL_SECONDS = 60;

/** Failure injections a dispatch may ask for (tests and fixtures). */
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

/** A failure injection. */
export type Failure = (typeof VALID_FAILURES)[number];
/** A result delivery. */
export type Delivery = (typeof VALID_DELIVERIES)[number];

/** A provider profile: the model's vendor, its API family, and the adapter revision that answers it. */
export interface ProviderProfile {
  readonly provider: string;
  readonly api_family: string;
  readonly adapter_revision: string;
}

/** The reference's provider profiles: one adapter revision each (the fixtures' contract). */
export const REFERENCE_PROFILES: readonly ProviderProfile[] = [
  { provider: "openai", api_family: "responses", adapter_revision: "openai-responses-v1" },
  { provider: "anthropic", api_family: "messages", adapter_revision: "anthropic-messages-v1" },
  { provider: "google", api_family: "interactions", adapter_revision: "gemini-interactions-v1" },
];

const profileKey = (provider: string, apiFamily: string): string => `${provider}\u0000${apiFamily}`;
const REFERENCE_REVISIONS: ReadonlyMap<string, string> = new Map(
  REFERENCE_PROFILES.map((p) => [profileKey(p.provider, p.api_family), p.adapter_revision]),
);

/**
 * The gate's own profile for calls that arrive over MCP (`tools/call`): the result is projected
 * as an MCP `CallToolResult` ({@link import("../adapters/provider-results").toMcpToolResult}).
 * It is not part of the reference's fixture contract, which keeps only the three above.
 */
export const MCP_PROFILE = { provider: "mcp", api_family: "tools", adapter_revision: "mcp-tools-v1" } as const;

/** OpenAI Chat Completions: a message's `tool_calls[]` entry in, a `tool` message out (gate only). */
export const OPENAI_CHAT_COMPLETIONS_PROFILE = {
  provider: "openai",
  api_family: "chat_completions",
  adapter_revision: "openai-chat-completions-v1",
} as const;

/** Gemini generateContent: a `FunctionCall` (or its `Part`) in, a `functionResponse` part out (gate only). */
export const GEMINI_GENERATE_CONTENT_PROFILE = {
  provider: "google",
  api_family: "generate_content",
  adapter_revision: "gemini-generate-content-v1",
} as const;

/**
 * Gemini Interactions answered with `is_error` on each `function_result` (gate only). The
 * reference's `gemini-interactions-v1` keeps its bytes, which carry no `is_error`.
 */
export const GEMINI_INTERACTIONS_V2_PROFILE = {
  provider: "google",
  api_family: "interactions",
  adapter_revision: "gemini-interactions-v2",
} as const;

/** Every profile the gate answers: the reference's three first, then the gate's own. */
export const GATE_PROFILES: readonly ProviderProfile[] = [
  ...REFERENCE_PROFILES,
  MCP_PROFILE,
  OPENAI_CHAT_COMPLETIONS_PROFILE,
  GEMINI_GENERATE_CONTENT_PROFILE,
  GEMINI_INTERACTIONS_V2_PROFILE,
];

/**
 * The registered profiles as a person reads them, for the detail of a refused profile:
 * `provider/api_family (adapter_revision)`, comma-separated, in {@link GATE_PROFILES} order.
 */
export function registeredProfilesText(profiles: readonly ProviderProfile[] = GATE_PROFILES): string {
  return profiles.map((p) => `${p.provider}/${p.api_family} (${p.adapter_revision})`).join(", ");
}

/**
 * The first adapter revision registered for a provider profile (the reference's, where it has
 * one), or undefined when unregistered. `scope` "reference" admits only the reference's profiles
 * (fixtures); "gate" adds the gate's own.
 */
export function expectedAdapterRevision(
  provider: unknown,
  apiFamily: unknown,
  scope: "gate" | "reference" = "gate",
): string | undefined {
  if (typeof provider !== "string" || typeof apiFamily !== "string") return undefined;
  if (scope === "reference") return REFERENCE_REVISIONS.get(profileKey(provider, apiFamily));
  return GATE_PROFILES.find((p) => p.provider === provider && p.api_family === apiFamily)?.adapter_revision;
}

/**
 * Whether `adapterRevision` answers the provider profile: in scope "reference" only the
 * reference's one revision; in scope "gate" any revision the gate registers for it (Gemini
 * Interactions has two).
 */
export function isRegisteredProfile(
  provider: unknown,
  apiFamily: unknown,
  adapterRevision: unknown,
  scope: "gate" | "reference" = "gate",
): boolean {
  if (typeof provider !== "string" || typeof apiFamily !== "string" || typeof adapterRevision !== "string")
    return false;
  if (scope === "reference") return REFERENCE_REVISIONS.get(profileKey(provider, apiFamily)) === adapterRevision;
  // A handful of profiles: comparing in place beats building and hashing a key on every call.
  for (let i = 0; i < GATE_PROFILES.length; i++) {
    const p = GATE_PROFILES[i] as ProviderProfile;
    if (p.adapter_revision === adapterRevision && p.provider === provider && p.api_family === apiFamily) return true;
  }
  return false;
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
