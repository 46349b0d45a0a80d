/**
 * Approvals bound by digest to one call, one approver and one expiry, and the check that
 * accepts only such an approval from an allow-listed approver.
 * @module
 */
import { APPROVAL_TTL_SECONDS, MAX_PORTABLE_UNIX_SECONDS } from "./constants";
import { approvalDigest, requestDigest } from "./digests";
import { refuse, validateHostContext, type ToolResultRefusal } from "./host-context";
import { ok, type Result } from "../result";
import { isBoundedIdentifier } from "./text-rules";
import type { ToolSpec } from "./tool-spec";
import type { Approval, HashFn, Principal, ToolCall } from "./types";
import { isPortableTimepoint } from "./utc-time";
import { sha256Hex, constantTimeEqual } from "../json";

/** What distinguishes one approval of a call from another; the rest comes from the call. */
export interface ApprovalGrant {
  readonly approval_id: string;
  readonly approval_digest: string;
  readonly expires_at: number;
  readonly approver_id: string;
}

/** An approval record for exactly this principal, call and tool contract. */
export function boundApproval(principal: Principal, call: ToolCall, spec: ToolSpec, grant: ApprovalGrant): Approval {
  return {
    approval_id: grant.approval_id,
    operation_id: call.operation_id,
    call_id: call.call_id,
    provider: call.provider,
    api_family: call.api_family,
    adapter_revision: call.adapter_revision,
    idempotency_key: call.idempotency_key,
    tool_name: call.name,
    subject_id: principal.subject_id,
    schema_version: spec.inputSchemaRevision,
    approval_revision: spec.policyRevision,
    approval_digest: grant.approval_digest,
    expires_at: grant.expires_at,
    approver_id: grant.approver_id,
  };
}

/** An approver's decision, as a trusted review UI reports it. */
export interface ApprovalDecision {
  readonly approverId: string;
  /** When the approver decided, in Unix seconds. */
  readonly now: number;
}

/**
 * A real approval from an approver's decision: bound to the current request by digest and
 * valid for APPROVAL_TTL_SECONDS. Malformed host metadata is refused (`HOST_CONTEXT_INVALID`).
 */
export function grantApproval(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec,
  decision: ApprovalDecision,
  hash: HashFn = sha256Hex,
): Result<Approval, ToolResultRefusal> {
  const context = validateHostContext(principal, call, decision.now);
  if (!context.ok) return context;
  if (!isPortableTimepoint(decision.now, true))
    return refuse("HOST_CONTEXT_INVALID", "now is outside the portable UTC datetime range");
  if (!isBoundedIdentifier(decision.approverId))
    return refuse("HOST_CONTEXT_INVALID", "approver id must be a bounded, non-empty string");
  const request = requestDigest(principal, call, spec, hash);
  return ok(
    boundApproval(principal, call, spec, {
      approval_id: `approval-${call.call_id}`,
      approval_digest: approvalDigest(call, spec, request, decision.approverId, hash),
      expires_at: decision.now + APPROVAL_TTL_SECONDS,
      approver_id: decision.approverId,
    }),
  );
}

/**
 * `true` when one approval is from an allow-listed approver, unexpired at `now`, and bound to
 * this exact call, subject, contract and request digest.
 */
export function hasValidApproval(
  approvals: readonly Approval[],
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec,
  requestSha256: string,
  now: number,
  approvers: ReadonlySet<string>,
  hash: HashFn,
): boolean {
  for (const approval of approvals) {
    if (
      !isBoundedIdentifier(approval.approval_id) ||
      !isBoundedIdentifier(approval.approver_id) ||
      !approvers.has(approval.approver_id) ||
      !Number.isSafeInteger(approval.expires_at) ||
      approval.expires_at <= now ||
      approval.expires_at > MAX_PORTABLE_UNIX_SECONDS
    ) {
      continue;
    }
    if (
      approval.operation_id === call.operation_id &&
      approval.call_id === call.call_id &&
      approval.provider === call.provider &&
      approval.api_family === call.api_family &&
      approval.adapter_revision === call.adapter_revision &&
      approval.idempotency_key === call.idempotency_key &&
      approval.tool_name === call.name &&
      approval.subject_id === principal.subject_id &&
      approval.schema_version === spec.inputSchemaRevision &&
      approval.approval_revision === spec.policyRevision &&
      constantTimeEqual(approval.approval_digest, approvalDigest(call, spec, requestSha256, approval.approver_id, hash))
    ) {
      return true;
    }
  }
  return false;
}
