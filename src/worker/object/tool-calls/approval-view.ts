/**
 * What an approver sees of a pending approval (every input of the digest it signs), and the
 * opaque cursor of the approval list's pages. docs/approvals.md shows how to recompute the
 * digest from a view.
 * @module
 */
import { digestForApprover, type ApprovalRecord } from "../../../core/tool-result/approval-book";
import { approvalDigestInputs } from "../../../core/tool-result/digests";
import { decodeCursorText, encodeCursorText } from "../cursor-text";
import type { ToolSpec } from "../../../core/tool-result/tool-spec";
import type { ApprovalView } from "../../../contracts/approval";

/**
 * The view of one pending approval for one approver: the call, the principal's tenant and
 * subject, the tool contract's revisions, `request_sha256`, the approver, and the
 * `approval_digest` computed over exactly those fields.
 */
export function approvalView(record: ApprovalRecord, spec: ToolSpec, tenantId: string, approverId: string): ApprovalView {
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
  };
}

const MAX_CURSOR_CHARS = 64;
const CURSOR_POSITION = /^pending:(0|[1-9][0-9]{0,15})$/;

/** The cursor of the page after list position `position` (base64url, no padding). */
export function encodeCursor(position: number): string {
  return encodeCursorText(`pending:${position}`);
}

/**
 * The list position a cursor names, or `null` for a cursor this gate never answered (malformed,
 * another encoding of a position, out of range).
 */
export function decodeCursor(cursor: string): number | null {
  const match = CURSOR_POSITION.exec(decodeCursorText(cursor, MAX_CURSOR_CHARS) ?? "");
  if (match === null) return null;
  const position = Number(match[1]);
  return Number.isSafeInteger(position) ? position : null;
}
