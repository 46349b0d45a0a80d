import type { Json } from "../../../core/json";
import { ERROR_CATALOG, isErrorCode } from "../../../core/tool-result/error-catalog";
import type { PreparedAction } from "../../../core/wire";
import type { Outcome } from "../../result";
import { IN_PROGRESS_RETRY_SECONDS, type ToolCallOutcome } from "../tool-calls/outcome";

/** What the gate answers to an `app_facade_request`; the transport turns it into an envelope. */
export type FacadeAnswer =
  | { type: "result"; value: Json }
  | { type: "prepared"; action: PreparedAction }
  | { type: "rejected" }
  | { type: "failed"; code: string; message: string; retryAfterMs: number | null };

/** Gate-level failure codes of the App Facade (the rest are the tool service's catalog codes). */
const GATE_FAILURES = {
  UNKNOWN_TARGET: "The facade target is not mapped to a tool.",
  PREPARE_REQUIRED: "The target mutates state: prepare it, then commit.",
  INVALID_IDENTITY: "The invocation identity cannot be bound to a tool call.",
  ACTION_NOT_FOUND: "No such prepared action for this thread and user.",
  ACTION_CONFLICT: "The operation was already prepared with different input.",
  ACTION_REJECTED: "The action was rejected and cannot be committed.",
  ACTION_COMMITTED: "The action was already committed and cannot be rejected.",
  ACTION_COMMIT_IN_FLIGHT: "A commit of the action is executing; it cannot be rejected now.",
  STALE_REVISION: "The facade revision changed since the action was prepared.",
  IN_PROGRESS: "The same commit is still executing; retry later.",
  QUOTA_EXCEEDED: "The user has too many actions waiting for approval; retry later.",
  PRINCIPAL_MISMATCH: "This credential does not act for this user.",
  ROLE_NOT_ALLOWED: "This credential may not act with the action's roles.",
  TOOL_NOT_IN_SCOPE: "This credential may not call this target's tool.",
} as const;

/** A gate-level failure code of the App Facade. */
export type GateFailure = keyof typeof GATE_FAILURES;

/** The `failed` answer of a gate-level code, with its fixed message. */
export function failed(code: GateFailure, retryAfterMs: number | null = null): FacadeAnswer {
  return { type: "failed", code, message: GATE_FAILURES[code], retryAfterMs };
}

/** The `failed` answer of a Tool Result v2 catalog code (its safe message and retry hint). */
export function catalogFailure(code: string): FacadeAnswer {
  if (!isErrorCode(code)) throw new Error(`not a catalog code: ${code}`);
  const policy = ERROR_CATALOG[code];
  return { type: "failed", code, message: policy.safe_message, retryAfterMs: policy.retry_after_ms };
}

/** Maps the tool-call service's outcome (or its problem) onto a facade answer. */
export function fromOutcome(outcome: Outcome<ToolCallOutcome>): FacadeAnswer {
  if (!outcome.ok) {
    if (outcome.error.code === "IDEMPOTENCY_IN_PROGRESS")
      return failed("IN_PROGRESS", IN_PROGRESS_RETRY_SECONDS * 1000);
    if (outcome.error.code === "INVALID_HOST_CONTEXT") return failed("INVALID_IDENTITY");
    if (outcome.error.code === "QUOTA_EXCEEDED")
      return failed("QUOTA_EXCEEDED", (outcome.error.retryAfterSeconds ?? 1) * 1000);
    throw new Error(`unexpected tool-plane problem for a facade call: ${outcome.error.code}`);
  }
  const result = outcome.value.package.model_result;
  if (result.status === "succeeded") return { type: "result", value: result.data };
  if (result.error === null) throw new Error("a failed model result without its error");
  return catalogFailure(result.error.code);
}
