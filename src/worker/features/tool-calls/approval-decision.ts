/**
 * An approver's decision on a pending approval, recorded and audited in one transaction:
 * approve and deny (approval-book.ts), and edit (approval-edit.ts: the original request never
 * runs; the edited arguments are approved apart, under their own request digest).
 * @module
 */
import { constantTimeEqual, PyFloat, readJson, sha256Hex, type JsonObject } from "../../../core/json";
import {
  decideApproval,
  digestForApprover,
  type ApprovalDecisionRecord,
} from "../../../core/tool-result/approval-book";
import { editApproval } from "../../../core/tool-result/approval-edit";
import type { ToolRegistry } from "../../../core/tool-result/tool-spec";
import { problem } from "../../http/problem";
import type { ObjectKernel } from "../../kernel/kernel";
import { fail, ok, type Outcome } from "../../result";
import type { SqlApprovalBook } from "./approval-store";
import { approvalStatus } from "./events";
import { DECISION_REFUSALS, decisionWords, editedArgumentsProblem, type Decision, type ToolCallSetup } from "./outcome";

/**
 * An edit's arguments posted as JSON text (the console's form), read with the strict reader:
 * not JSON is `INVALID_JSON`, another value than an object `INVALID_ARGUMENTS`.
 */
export function editedArguments(text: string): Outcome<JsonObject> {
  const read = readJson(text);
  if (!read.ok)
    return fail(problem("INVALID_JSON", `The edited arguments are not strict JSON: ${read.error.message}.`));
  const value = read.value;
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof PyFloat)
    return fail(editedArgumentsProblem("", "an object"));
  return ok(value);
}

/** The recorded decision as answered (`ApprovalDecisionView`): an edit names the edited call's own approval. */
export type DecisionAnswer = ApprovalDecisionRecord & {
  readonly edited?: { readonly approval_id: string; readonly request_sha256: string; readonly arguments: JsonObject };
};

/** What a decision uses: the kernel's transaction, events and audit; the book; the registry; the consumer's setup. */
export interface DecisionHost {
  readonly kernel: Pick<ObjectKernel, "transaction" | "events" | "audit">;
  readonly book: SqlApprovalBook;
  readonly registry: ToolRegistry;
  readonly setup: Pick<ToolCallSetup, "approvalWindow" | "tenantId">;
}

/**
 * The requesting end user's confirmation in chat (docs/approvals.md, "Who decides"): its subject
 * proven by its verified token, bound to the request digest of the exact arguments it confirmed.
 */
export interface EndUserDecider {
  readonly requestSha256: string;
}

/**
 * One decision, taken only with the digest computed for the pending call and this approver
 * (another is `APPROVAL_DIGEST_MISMATCH`, nothing stored); an edit's arguments outside the
 * tool's contract (or equal to the proposed ones) are `INVALID_ARGUMENTS`, nothing stored.
 * `endUser`: the decider is the requesting end user (`approverId` its verified subject), bound
 * by the request digest it confirmed instead (another is `APPROVAL_DIGEST_MISMATCH`); the digest
 * recorded is the one computed for its subject, which the repeated call is checked against.
 */
export function decide(
  host: DecisionHost,
  approvalId: string,
  approverId: string,
  decision: Decision,
  now: number,
  endUser?: EndUserDecider,
): Outcome<DecisionAnswer> {
  const { kernel, book } = host;
  const options = {
    defaultValidSeconds: host.setup.approvalWindow,
    ...decisionWords(decision),
    ...(endUser === undefined ? {} : { endUser: true }),
  };
  return kernel.transaction(() => {
    const record = book.get(approvalId);
    const spec = record === undefined ? undefined : host.registry.get(record.call.name);
    if (record === undefined || spec === undefined) return fail(problem("NOT_FOUND", "No such approval."));
    if (endUser !== undefined && !constantTimeEqual(endUser.requestSha256, record.request_sha256))
      return fail(
        problem(
          "APPROVAL_DIGEST_MISMATCH",
          "The request_sha256 is not the pending call's: the confirmed arguments are not the ones it would run; the approval stays pending.",
        ),
      );
    const submittedDigest = endUser === undefined ? decision.digest : digestForApprover(record, spec, approverId);
    let answer: DecisionAnswer;
    if (decision.verdict === "edit") {
      const args = decision.arguments;
      if (args === undefined) throw new Error("an edit without arguments passed its contract");
      const tenant = host.setup.tenantId;
      const edited = editApproval(record, spec, tenant, approverId, submittedDigest, args, now, sha256Hex, options);
      if (!edited.ok) {
        const refusal = edited.error;
        return fail(
          refusal.code === "INVALID_ARGUMENTS"
            ? editedArgumentsProblem(refusal.problem.pointer, refusal.problem.expected)
            : problem(refusal.code, DECISION_REFUSALS[refusal.code]),
        );
      }
      const id = book.edit(edited.value, submittedDigest);
      const summary = { approval_id: id, request_sha256: edited.value.request_sha256, arguments: args };
      answer = { ...edited.value.decision, edited: summary };
    } else {
      const decided = decideApproval(
        record,
        spec,
        approverId,
        decision.verdict,
        submittedDigest,
        now,
        sha256Hex,
        options,
      );
      if (!decided.ok) return fail(problem(decided.error, DECISION_REFUSALS[decided.error]));
      book.decide(decided.value, submittedDigest);
      answer = decided.value;
    }
    const stored = book.get(approvalId);
    if (stored !== undefined)
      kernel.events.emit(
        {
          type: "approval.decided",
          data: approvalStatus(stored, now),
          credentialId: book.openedBy(approvalId) ?? null,
        },
        now,
      );
    // The edited arguments stay out of the audit (as the call's own are kept only by `audit_arguments`): their digest binds them.
    const { edited, ...recorded } = answer;
    kernel.audit.append("approval.decision", now, {
      ...recorded,
      approval_digest: submittedDigest,
      tool: record.call.name,
      subject_id: record.subject_id,
      request_sha256: record.request_sha256,
      operation_id: record.call.operation_id,
      call_id: record.call.call_id,
      ...(edited === undefined
        ? {}
        : { edited_approval_id: edited.approval_id, edited_request_sha256: edited.request_sha256 }),
    });
    return ok(answer);
  });
}
