/**
 * What an approver sees of a pending approval (every input of the digest it signs), and the
 * opaque cursor of the approval list's pages. docs/approvals.md shows how to recompute the
 * digest from a view.
 * @module
 */
import { digestForApprover, type ApprovalRecord } from "../../../core/tool-result/approval-book";
import { approvalDigestInputs } from "../../../core/tool-result/digests";
import { cursorCodec, safeIntegerKey, type CursorCodec } from "../../kernel/cursor";
import type { ToolSpec } from "../../../core/tool-result/tool-spec";
import type { ApprovalView } from "../../../contracts/approval";

/**
 * The view of one pending approval for one approver: the call, the principal's tenant and
 * subject, the tool contract's revisions, `request_sha256`, the approver, and the
 * `approval_digest` computed over exactly those fields.
 */
export function approvalView(
  record: ApprovalRecord,
  spec: ToolSpec,
  tenantId: string,
  approverId: string,
): ApprovalView {
  const call = record.call;
  return {
    approval_id: record.approval_id,
    state: "pending",
    tenant_id: tenantId,
    subject_id: record.subject_id,
    tool: call.name,
    arguments: call.arguments,
    ...approvalDigestInputs(call, spec, record.request_sha256, approverId),
    approval_digest: digestForApprover(record, spec, approverId),
    requested_at: record.requested_at,
    expires_at: record.expires_at,
    ...(typeof record.rationale === "string" ? { rationale: record.rationale } : {}),
    // Context for the person, never a digest input.
    ...(spec.description === undefined ? {} : { tool_description: spec.description }),
    ...(spec.approvalRule === undefined ? {} : { approval_rule: spec.approvalRule }),
    ...(record.confirmed_by === "end_user" ? { confirmed_by: "end_user" as const } : {}),
  };
}

/**
 * The approval list's cursors: `pending:<position>` (base64url, no padding), the list position
 * the next page starts after; a cursor this gate never answered (malformed, another encoding of
 * a position, out of range) is `INVALID_CURSOR`.
 */
export const APPROVALS_CURSOR: CursorCodec<number> = cursorCodec({
  prefix: "pending:",
  maxChars: 64,
  write: String,
  read: safeIntegerKey(/^(0|[1-9][0-9]{0,15})$/),
  detail: "The cursor is not one this list answered.",
});
