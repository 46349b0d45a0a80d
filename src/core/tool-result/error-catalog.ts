/**
 * The closed error catalog: every error a model can see, with its fixed category, outcome,
 * recovery and safe message. Messages never name the failing check, so a model cannot probe.
 * @module
 */

/** What the model is told about one error code. */
export interface ErrorPolicy {
  readonly category: string;
  readonly outcome: "not_started" | "unknown";
  readonly recovery: string;
  readonly safe_message: string;
  readonly retry_after_ms: number | null;
}

function policy(
  category: string,
  outcome: ErrorPolicy["outcome"],
  recovery: string,
  safe_message: string,
  retry_after_ms: number | null = null,
): ErrorPolicy {
  return Object.freeze({ category, outcome, recovery, safe_message, retry_after_ms });
}

/** The reference's catalog, in its order. */
export const ERROR_CATALOG = Object.freeze({
  UNKNOWN_TOOL: policy("contract", "not_started", "correct_input", "The tool is not allowlisted."),
  INVALID_ARGUMENTS: policy("contract", "not_started", "correct_input", "Arguments do not satisfy the tool contract."),
  OUTPUT_CONTRACT_VIOLATION: policy(
    "execution",
    "unknown",
    "human_review",
    "The tool result failed output-contract validation.",
  ),
  NOT_FOUND: policy(
    "authorization",
    "not_started",
    "none",
    "The resource does not exist or is inaccessible to the current principal.",
  ),
  BUSINESS_RULE_VIOLATION: policy(
    "business",
    "not_started",
    "human_review",
    "The current resource state does not allow this action.",
  ),
  CALL_ID_CONFLICT: policy(
    "conflict",
    "not_started",
    "human_review",
    "The same provider response/call identity maps to different requests.",
  ),
  IDEMPOTENCY_KEY_REQUIRED: policy(
    "contract",
    "not_started",
    "correct_input",
    "A write action requires an idempotency key.",
  ),
  IDEMPOTENCY_CONFLICT: policy(
    "conflict",
    "not_started",
    "human_review",
    "The same idempotency key maps to a different request or contract revision.",
  ),
  APPROVAL_REQUIRED: policy(
    "approval",
    "not_started",
    "request_approval",
    "This action requires approval bound to the current arguments.",
  ),
  APPROVAL_INVALID: policy(
    "approval",
    "not_started",
    "request_approval",
    "Approval expired or is not bound to the current request.",
  ),
  TIMEOUT_BEFORE_EXECUTE: policy(
    "execution",
    "not_started",
    "retry_after",
    "The tool exceeded its deadline before side effects began.",
    1000,
  ),
  OUTCOME_UNKNOWN: policy(
    "execution",
    "unknown",
    "query_status",
    "The downstream operation may have committed; query status instead of automatically replaying the write.",
  ),
  STATUS_CONFLICT: policy(
    "conflict",
    "unknown",
    "human_review",
    "The status receipt does not match the original request or contract revision.",
  ),
  RATE_LIMIT: policy("dependency", "not_started", "retry_after", "The tool is currently rate limited.", 1000),
  TOOL_ERROR: policy("execution", "not_started", "human_review", "Tool execution failed."),
});

/** A code of the error catalog. */
export type ErrorCode = keyof typeof ERROR_CATALOG;

/** `true` when `value` names a catalog entry (own keys only, so `__proto__` is not a code). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_CATALOG, value);
}

/** Codes whose recovery is a plain retry after a delay. */
export const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set(
  (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((code) => ERROR_CATALOG[code].recovery === "retry_after"),
);
