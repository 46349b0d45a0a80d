/**
 * Binding a model's proposal to trusted host metadata, and failing closed on malformed
 * metadata before anything else runs.
 * @module
 */
import { compareCodePoints } from "../json";
import { err, ok, type Result } from "../result";
import { isRegisteredProfile, MAX_IDENTIFIER_CHARS, MAX_ROLES, registeredProfilesText } from "./constants";
import { isBoundedIdentifier } from "./text-rules";
import type { ExecutionContext, ModelProposal, Principal, ToolCall } from "./types";
import { isPortableTimepoint } from "./utc-time";

/** The stable codes of a {@link ToolResultRefusal}. */
export type ToolResultRefusalCode =
  "HOST_CONTEXT_INVALID" | "APPROVAL_UNAVAILABLE" | "FAILURE_NOT_APPLICABLE" | "STATUS_QUERY_INVALID";

/**
 * The engine's refusal of what the trusted host handed it: malformed metadata or an impossible
 * request (a caller's mistake, never a model's doing), returned as a value; `code` is stable.
 */
export interface ToolResultRefusal {
  readonly code: ToolResultRefusalCode;
  readonly message: string;
}

/** A refusal as a failed result. */
export function refuse(
  code: ToolResultRefusalCode,
  message: string,
): { readonly ok: false; readonly error: ToolResultRefusal } {
  return err({ code, message });
}

/** Model-controlled intent plus host-controlled correlation: the only way to make a ToolCall. */
export function bindToolCall(proposal: ModelProposal, context: ExecutionContext): ToolCall {
  return {
    call_id: context.call_id,
    operation_id: context.operation_id,
    name: proposal.name,
    arguments: proposal.arguments,
    idempotency_key: context.idempotency_key,
    provider: context.provider,
    api_family: context.api_family,
    response_id: context.response_id,
    adapter_revision: context.adapter_revision,
  };
}

function rolesAreCanonical(roles: unknown): boolean {
  if (!Array.isArray(roles) || roles.length > MAX_ROLES) return false;
  for (let i = 0; i < roles.length; i += 1) {
    if (!isBoundedIdentifier(roles[i])) return false;
    // Sorted and duplicate-free means strictly increasing in code-point order.
    if (i > 0 && compareCodePoints(roles[i - 1] as string, roles[i] as string) >= 0) return false;
  }
  return true;
}

// The identifiers checked first, in the reference's order (its labels name them in errors).
const IDENTIFIER_LABELS = [
  "principal.tenant_id",
  "principal.subject_id",
  "call.call_id",
  "call.operation_id",
  "call.name",
  "call.provider",
  "call.api_family",
  "call.response_id",
  "call.adapter_revision",
] as const;

/** Index in IDENTIFIER_LABELS of the first identifier that is not bounded, or -1 (no per-call allocation). */
function firstUnbounded(principal: Principal, call: ToolCall): number {
  if (!isBoundedIdentifier(principal.tenant_id)) return 0;
  if (!isBoundedIdentifier(principal.subject_id)) return 1;
  if (!isBoundedIdentifier(call.call_id)) return 2;
  if (!isBoundedIdentifier(call.operation_id)) return 3;
  if (!isBoundedIdentifier(call.name)) return 4;
  if (!isBoundedIdentifier(call.provider)) return 5;
  if (!isBoundedIdentifier(call.api_family)) return 6;
  if (!isBoundedIdentifier(call.response_id)) return 7;
  if (!isBoundedIdentifier(call.adapter_revision)) return 8;
  return -1;
}

/** The reference's `validate_host_context` as a value: the first problem, or null. */
export function checkHostContext(principal: Principal, call: ToolCall, now: number): string | null {
  if (!isPortableTimepoint(now)) return "now is outside the portable UTC datetime range";
  const unbounded = firstUnbounded(principal, call);
  if (unbounded >= 0)
    return `${IDENTIFIER_LABELS[unbounded] as string} must contain 1..${MAX_IDENTIFIER_CHARS} characters`;
  if (!rolesAreCanonical(principal.roles)) {
    return "principal.roles must be a bounded, sorted, duplicate-free tuple of strings";
  }
  if (call.idempotency_key !== null && !isBoundedIdentifier(call.idempotency_key)) {
    return `call.idempotency_key must be null or contain 1..${MAX_IDENTIFIER_CHARS} characters`;
  }
  if (!isRegisteredProfile(call.provider, call.api_family, call.adapter_revision)) {
    return `call provider profile/adapter revision is not registered; the registered ones are ${registeredProfilesText()}`;
  }
  return null;
}

/** Refuses malformed host metadata as `HOST_CONTEXT_INVALID`. */
export function validateHostContext(
  principal: Principal,
  call: ToolCall,
  now: number,
): Result<null, ToolResultRefusal> {
  const problem = checkHostContext(principal, call, now);
  return problem === null ? ok(null) : refuse("HOST_CONTEXT_INVALID", problem);
}
