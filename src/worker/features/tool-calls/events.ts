/**
 * The tool-call service's events (contracts/events.ts) and an approval's status as the people
 * around it see it: built from the stored approval or the call's package, never holding a
 * secret.
 * @module
 */
import type { ApprovalRecord } from "../../../core/tool-result/approval-book";
import { approverEdited } from "../../../core/tool-result/packages";
import type { Principal, ResultPackage, ToolCall } from "../../../core/tool-result/types";
import type { ApprovalEventData, CallEventData, GateEvent } from "../../../contracts/events";

/** Where the service's events go (the object's bus `emit`, inside the transaction). */
export type EventSink = (event: GateEvent, now: number) => void;

/**
 * An approval's status at `now`: a pending approval past `expires_at` is `expired` (silence
 * is denial); `arguments` included (the caller decides whether to strip them).
 */
export function approvalStatus(record: ApprovalRecord, now: number): ApprovalEventData {
  const lapsed = record.state === "pending" && record.expires_at <= now;
  return {
    approval_id: record.approval_id,
    state: lapsed ? "expired" : record.state,
    tool: record.call.name,
    subject_id: record.subject_id,
    operation_id: record.call.operation_id,
    call_id: record.call.call_id,
    request_sha256: record.request_sha256,
    requested_at: record.requested_at,
    expires_at: record.expires_at,
    approver_id: record.approver_id,
    decided_at: record.decided_at,
    valid_until: record.valid_until,
    arguments: record.call.arguments,
    ...(typeof record.rationale === "string" ? { rationale: record.rationale } : {}),
    ...(typeof record.reason === "string" ? { reason: record.reason } : {}),
    ...(record.confirmed_by === "end_user" ? { confirmed_by: "end_user" as const } : {}),
    ...(record.decided_by === "end_user" ? { decided_by: "end_user" as const } : {}),
    ...(record.state === "edited" && typeof record.edited_request_sha256 === "string" && record.edited_arguments
      ? {
          edited: {
            request_sha256: record.edited_request_sha256,
            arguments: record.edited_arguments,
            instruction: approverEdited(record.edited_arguments, record.reason ?? null),
          },
        }
      : {}),
  };
}

/** A call event of a package: its outcome became unknown, or its receipt reconciled it. */
export function callEvent(
  type: "call.outcome_unknown" | "call.reconciled",
  principal: Principal,
  call: ToolCall,
  pkg: ResultPackage,
  now: number,
  credentialId: string | null,
): GateEvent {
  const data: CallEventData = {
    tool: call.name,
    subject_id: principal.subject_id,
    operation_id: call.operation_id,
    call_id: call.call_id,
    request_sha256: pkg.protected_audit.binding.request_sha256,
    status_ref: pkg.protected_audit.downstream.status_ref ?? "",
    status: type === "call.reconciled" ? "succeeded" : "unknown",
    at: now,
    arguments: call.arguments,
  };
  return { type, data, credentialId };
}
