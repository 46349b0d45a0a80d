/**
 * The approval step of a write in `beginDispatch`: the stored approvals of the exact call
 * (through the host's approval book) or the ones handed in, weighed and checked.
 * @module
 */
import { approvalBindingKey, approvalRequest, pendingOnly, weighApprovals } from "./approval-book";
import { claimEdit } from "./approval-edit";
import { hasValidApproval } from "./approvals";
import type { BeginDispatchResult, DispatchRequest } from "./dispatcher";
import type { ToolResultEngine } from "./engine";
import type { ErrorCode } from "./error-catalog";
import { approverEdited, approverSaid, errorPackage } from "./packages";
import type { ToolSpec } from "./tool-spec";
import type { HashFn } from "./types";

/**
 * The approval step of a write: a granted, valid approval lets it run (`null`); otherwise the
 * answer is the pending approval it opened or waits for, or the refusal.
 */
export function approvalGate(
  engine: ToolResultEngine,
  request: DispatchRequest,
  spec: ToolSpec,
  digest: string,
  hash: HashFn,
  fail: (code: ErrorCode, digest: string) => BeginDispatchResult,
): BeginDispatchResult | null {
  const { principal, call, now } = request;
  const approvals = request.approvals ?? [];
  const book = request.book;
  let granted = approvals;
  if (book !== undefined) {
    const bindingKey = approvalBindingKey(call, digest);
    let stored = book.byBinding(bindingKey);
    // A call new to the book may be the one an approver's edit admits (never while preparing).
    if (
      stored.length === 0 &&
      request.prepareOnly !== true &&
      claimEdit(book, principal, call, spec, digest, bindingKey, now, hash)
    )
      stored = book.byBinding(bindingKey);
    const weighed = weighApprovals(
      request.prepareOnly === true ? pendingOnly(stored, now) : stored,
      principal,
      call,
      spec,
      now,
    );
    if (weighed.granted.length === 0 && !weighed.refused) {
      let approvalId = weighed.pendingId;
      if (approvalId === null) {
        const opened = book.open(approvalRequest(principal, call, digest, bindingKey, now));
        if (!opened.ok) return { kind: "quota_exceeded", retry_after_seconds: opened.error.retry_after_seconds };
        approvalId = opened.value;
      }
      const pkg = errorPackage(principal, call, spec, "APPROVAL_REQUIRED", digest, now, hash, null);
      return {
        kind: "needs_approval",
        package: pkg,
        approval_id: approvalId,
        request_sha256: digest,
        binding_key: bindingKey,
      };
    }
    if (weighed.granted.length === 0) {
      const { edited, denialReason } = weighed;
      if (edited === null && denialReason === null) return fail("APPROVAL_INVALID", digest);
      const note = edited !== null ? approverEdited(edited.arguments, edited.reason) : approverSaid(denialReason ?? "");
      const pkg = errorPackage(principal, call, spec, "APPROVAL_INVALID", digest, now, hash, null, undefined, note);
      return { kind: "final", package: pkg };
    }
    granted = weighed.granted;
  } else if (approvals.length === 0) return fail("APPROVAL_REQUIRED", digest);
  // An end user's confirmation (weighed above: its own decision on a request it confirms) is by its subject.
  const approvers =
    spec.confirmedBy === "end_user" && book !== undefined
      ? new Set([...engine.approvers, principal.subject_id])
      : engine.approvers;
  if (!hasValidApproval(granted, principal, call, spec, digest, now, approvers, hash)) {
    return fail("APPROVAL_INVALID", digest);
  }
  return null;
}
