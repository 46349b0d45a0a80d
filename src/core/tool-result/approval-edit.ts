/**
 * An approver's edit of a pending call: the original request is never approved; the edited
 * arguments get an approval of their own, bound to their own request digest (same tenant,
 * subject, tool and contract revisions), which the first call presenting exactly that request
 * claims, once, within the window (docs/approvals.md, "Edit").
 * @module
 */
import { canonicalJson, constantTimeEqual, sha256Hex, type JsonObject } from "../json";
import { err, ok, type Result } from "../result";
import {
  decideApproval,
  type ApprovalBook,
  type ApprovalDecisionRecord,
  type ApprovalRecord,
  type DecisionOptions,
  type DecisionRefusal,
} from "./approval-book";
import { argumentProblem, type ArgumentProblem } from "./argument-problem";
import { approvalDigest, requestDigest } from "./digests";
import { validateArguments, type ToolSpec } from "./tool-spec";
import type { HashFn, Principal, ToolCall } from "./types";

/** Why an edit is refused: a decision's refusal, arguments outside the tool's contract, or the same arguments. */
export type EditRefusal =
  { readonly code: DecisionRefusal } | { readonly code: "INVALID_ARGUMENTS"; readonly problem: ArgumentProblem };

/** An edit the book records: the original's decision, and the edited approval to store beside it. */
export interface ApprovalEditRecord {
  /** The original request's decision (`edited`: it never runs). */
  readonly decision: ApprovalDecisionRecord;
  /** The original call with the edited arguments: the stored call of the edited approval. */
  readonly call: ToolCall;
  readonly request_sha256: string;
  /** The approval digest of {@link call} for the approver: a claim checks it against the tool's current contract. */
  readonly approval_digest: string;
}

/**
 * An edit of a pending request, checked as a decision (state, approver, window, the submitted
 * digest), then its arguments against the tool's input contract. Arguments equal to the
 * proposed ones are refused (`pointer` ""): the original request is never approved by an edit.
 */
export function editApproval(
  record: ApprovalRecord,
  spec: ToolSpec,
  tenantId: string,
  approverId: string,
  submittedDigest: string,
  editedArguments: JsonObject,
  now: number,
  hash: HashFn = sha256Hex,
  options: DecisionOptions = {},
): Result<ApprovalEditRecord, EditRefusal> {
  const decided = decideApproval(record, spec, approverId, "edit", submittedDigest, now, hash, options);
  if (!decided.ok) return err({ code: decided.error });
  if (!validateArguments(spec, editedArguments))
    return err({ code: "INVALID_ARGUMENTS", problem: argumentProblem(spec, editedArguments) });
  if (canonicalJson(editedArguments) === canonicalJson(record.call.arguments))
    return err({
      code: "INVALID_ARGUMENTS",
      problem: { pointer: "", expected: "arguments other than the proposed ones (to run those, approve)" },
    });
  const principal: Principal = { tenant_id: tenantId, subject_id: record.subject_id, roles: [] };
  const call: ToolCall = { ...record.call, arguments: editedArguments };
  const requestSha256 = requestDigest(principal, call, spec, hash);
  return ok({
    decision: decided.value,
    call,
    request_sha256: requestSha256,
    approval_digest: approvalDigest(call, spec, requestSha256, approverId, hash),
  });
}

/**
 * Claims an edited approval for a call whose own binding holds nothing yet: one granted for
 * this exact request digest, of this subject and tool, still in its window, and whose digest
 * still holds under the tool's current contract (a changed revision voids it). The claim binds
 * it to this call (its ids and idempotency key): later repeats of this call find it as their
 * own, any other call finds none. Answers whether one was claimed.
 */
export function claimEdit(
  book: ApprovalBook,
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec,
  requestSha256: string,
  bindingKey: string,
  now: number,
  hash: HashFn,
): boolean {
  if (book.editsFor === undefined || book.claim === undefined) return false;
  for (const grant of book.editsFor(requestSha256)) {
    if (
      grant.state !== "approved" ||
      grant.subject_id !== principal.subject_id ||
      grant.call.name !== call.name ||
      grant.request_sha256 !== requestSha256 ||
      grant.valid_until === null ||
      grant.valid_until <= now ||
      grant.approver_id === null ||
      grant.decision_digest === null ||
      !constantTimeEqual(
        grant.decision_digest,
        approvalDigest(grant.call, spec, grant.request_sha256, grant.approver_id, hash),
      )
    )
      continue;
    book.claim(grant.approval_id, bindingKey, call, approvalDigest(call, spec, requestSha256, grant.approver_id, hash));
    return true;
  }
  return false;
}
