/**
 * What an approver sees of a pending approval (every input of the digest it signs), the
 * approval list's pages, and their opaque cursor. docs/approvals.md shows how to recompute the
 * digest from a view.
 * @module
 */
import { digestForApprover, type ApprovalRecord } from "../../../core/tool-result/approval-book";
import { approvalDigestInputs } from "../../../core/tool-result/digests";
import { cursorCodec, safeIntegerKey, type CursorCodec } from "../../kernel/cursor";
import type { ToolRegistry, ToolSpec } from "../../../core/tool-result/tool-spec";
import type { ApprovalList, ApprovalView } from "../../../contracts/approval";
import { ok, type Outcome } from "../../result";
import type { SqlApprovalBook } from "./approval-store";

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

/**
 * One page of pending, unexpired approvals (oldest first, at most `pageItems`), each with every
 * digest input and the digest computed for this approver. `cursor`: a `next_cursor` answered
 * before, or `null` for the first page.
 */
export function approvalPage(
  book: SqlApprovalBook,
  registry: ToolRegistry,
  request: { tenantId: string; approverId: string; cursor: string | null; pageItems: number },
  now: number,
): Outcome<ApprovalList> {
  const after = request.cursor === null ? ok(0) : APPROVALS_CURSOR.read(request.cursor);
  if (!after.ok) return after;
  const page = book.pendingPage(now, after.value, request.pageItems);
  const approvals: ApprovalView[] = [];
  for (const record of page.records) {
    // A tool the consumer no longer enables cannot be decided (NOT_FOUND): it is not listed.
    const spec = registry.get(record.call.name);
    if (spec !== undefined) approvals.push(approvalView(record, spec, request.tenantId, request.approverId));
  }
  return ok({ approvals, next_cursor: page.next === null ? null : APPROVALS_CURSOR.encode(page.next) });
}
