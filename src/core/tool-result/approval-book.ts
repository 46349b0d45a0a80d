/**
 * Approvals as resources, and the policy over them: a pending request per exact call, decided
 * once by an allowed approver who is not the requesting subject, bound to the digest that
 * approver saw. The records live behind the {@link ApprovalBook} port (SQLite in the Worker);
 * every rule about them lives here.
 * @module
 */
import { canonicalJson, constantTimeEqual, sha256Hex, type JsonObject } from "../json";
import type { Result } from "../result";
import { boundApproval } from "./approvals";
import { APPROVAL_TTL_SECONDS } from "./constants";
import { callJson } from "./dispatcher-state";
import { approvalDigest } from "./digests";
import type { ToolSpec } from "./tool-spec";
import type { Approval, HashFn, Principal, ToolCall } from "./types";

/** How long a pending approval request waits for a decision; silence after that is denial. */
export const PENDING_APPROVAL_SECONDS = 900;

/**
 * Where an approval request stands. `withdrawn`: its action was rejected before a decision;
 * `edited`: the approver answered other arguments (approved apart, under their own digest).
 */
export type ApprovalState = "pending" | "approved" | "denied" | "edited" | "withdrawn";

/** One approval request as the book keeps it. */
export interface ApprovalRecord {
  readonly approval_id: string;
  readonly state: ApprovalState;
  readonly subject_id: string;
  readonly call: ToolCall;
  readonly request_sha256: string;
  readonly requested_at: number;
  readonly expires_at: number;
  readonly approver_id: string | null;
  readonly decision_digest: string | null;
  readonly decided_at: number | null;
  readonly valid_until: number | null;
  /** The approver's words with a decision, if any (a denial's reaches the model, marked as theirs). */
  readonly reason?: string | null;
  /** The agent's words with the call that opened the request, if any (shown to approvers, never hashed). */
  readonly rationale?: string | null;
  /** An edited request's edit: the request digest of the approver's arguments, and those arguments. */
  readonly edited_request_sha256?: string | null;
  readonly edited_arguments?: JsonObject | null;
  /**
   * `"end_user"`: the requesting end user confirms this request (its tool says so and the call
   * carried the end user's verified token); absent or null: the approvers decide.
   */
  readonly confirmed_by?: "end_user" | null;
  /** `"end_user"`: the requesting end user decided (`approver_id` is then its subject); absent or null: an approver. */
  readonly decided_by?: "end_user" | null;
}

/** A new pending request, before the book gives it an id. */
export interface ApprovalRequest {
  readonly binding_key: string;
  readonly subject_id: string;
  readonly call: ToolCall;
  readonly request_sha256: string;
  readonly requested_at: number;
  readonly expires_at: number;
}

/** The decision a book records. */
export interface ApprovalDecisionRecord {
  readonly approval_id: string;
  readonly state: "approved" | "denied" | "edited";
  readonly approver_id: string;
  readonly decided_at: number;
  readonly valid_until: number | null;
  /** The approver's words, present only when given. */
  readonly reason?: string;
  /** Present only when the requesting end user decided (in chat), never an approver. */
  readonly decided_by?: "end_user";
  /**
   * Always `true`: a decision is recorded only with the digest computed for this call and this
   * approver (another digest is refused, `APPROVAL_DIGEST_MISMATCH`). Kept on the wire for
   * clients that read it.
   */
  readonly bound_to_request: true;
}

/**
 * Why a book cannot open one more pending request: the subject already has as many pending
 * requests as its quota allows. `retry_after_seconds`: when its oldest pending request lapses
 * (at least 1).
 */
export interface ApprovalQuotaExceeded {
  readonly code: "QUOTA_EXCEEDED";
  readonly retry_after_seconds: number;
}

/** The store port of approval requests. Ids are the book's to mint (the core has no randomness). */
export interface ApprovalBook {
  /** Every request bound to this key, oldest first. */
  byBinding(bindingKey: string): readonly ApprovalRecord[];
  /**
   * Opens a pending request and answers its id, or refuses to open one more (a quota of
   * pending requests per subject; nothing is stored then).
   */
  open(request: ApprovalRequest): Result<string, ApprovalQuotaExceeded>;
  /** The edited approvals granted for this request digest and not yet claimed by a call (approval-edit.ts). */
  editsFor?(requestSha256: string): readonly ApprovalRecord[];
  /** Makes an edited approval the claiming call's own: its binding, its call, the digest bound to that call. */
  claim?(approvalId: string, bindingKey: string, call: ToolCall, approvalDigest: string): void;
}

/**
 * A book's optional parts (an edited approval's lookup and claim), bound to it: for a book that
 * wraps another's `byBinding` or `open` and must pass the rest through unchanged.
 */
export function passedThrough(book: ApprovalBook): Pick<ApprovalBook, "editsFor" | "claim"> {
  return {
    ...(book.editsFor === undefined ? {} : { editsFor: book.editsFor.bind(book) }),
    ...(book.claim === undefined ? {} : { claim: book.claim.bind(book) }),
  };
}

/** The lookup key of a call's approvals: the exact call (arguments included) and its request digest. */
export function approvalBindingKey(call: ToolCall, requestSha256: string): string {
  return sha256Hex(canonicalJson({ call: callJson(call), request_sha256: requestSha256 }));
}

/** What a call's stored approvals amount to for the dispatcher. */
export interface WeighedApprovals {
  /** Approvals granted by a decision, bound to this call; the dispatcher checks each. */
  readonly granted: readonly Approval[];
  /** A denial, a withdrawal, or a request left undecided past its window: the call is refused. */
  readonly refused: boolean;
  /** The request still waiting for a decision, if any. */
  readonly pendingId: string | null;
  /** The words an approver gave with a denial of this call, if any (the latest). */
  readonly denialReason: string | null;
  /** The approver's edit of this call, if any: the arguments to call again with, and the words given. */
  readonly edited: { readonly arguments: JsonObject; readonly reason: string | null } | null;
}

/**
 * Weighs a call's stored approvals. An approval counts only while valid (the dispatcher checks
 * it by digest); a denial, a withdrawal and a request left pending past its window refuse the
 * call (silence is denial).
 */
export function weighApprovals(
  records: readonly ApprovalRecord[],
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec,
  now: number,
): WeighedApprovals {
  const granted: Approval[] = [];
  let refused = false;
  let pendingId: string | null = null;
  let denialReason: string | null = null;
  let edited: WeighedApprovals["edited"] = null;
  for (const record of records) {
    if (record.state === "denied" && typeof record.reason === "string") denialReason = record.reason;
    if (record.state === "edited" && record.edited_arguments !== undefined && record.edited_arguments !== null)
      edited = { arguments: record.edited_arguments, reason: record.reason ?? null };
    if (record.state === "pending" && record.expires_at > now) pendingId = record.approval_id;
    else if (
      record.state === "approved" &&
      record.decision_digest !== null &&
      record.valid_until !== null &&
      record.approver_id !== null &&
      // The requesting subject's own approval counts only as its end user's confirmation.
      (record.approver_id !== record.subject_id ||
        (record.decided_by === "end_user" && record.confirmed_by === "end_user" && spec.confirmedBy === "end_user"))
    ) {
      granted.push(
        boundApproval(principal, call, spec, {
          approval_id: record.approval_id,
          approval_digest: record.decision_digest,
          expires_at: record.valid_until,
          approver_id: record.approver_id,
        }),
      );
    } else refused = true;
  }
  return { granted, refused, pendingId, denialReason, edited };
}

/** The pending request a prepare (never an execution) may reuse: decisions are not consulted. */
export function pendingOnly(records: readonly ApprovalRecord[], now: number): ApprovalRecord[] {
  return records.filter((record) => record.state === "pending" && record.expires_at > now);
}

/** Opens the pending request of a call that needs a human. */
export function approvalRequest(
  principal: Principal,
  call: ToolCall,
  requestSha256: string,
  bindingKey: string,
  now: number,
): ApprovalRequest {
  return {
    binding_key: bindingKey,
    subject_id: principal.subject_id,
    call,
    request_sha256: requestSha256,
    requested_at: now,
    expires_at: now + PENDING_APPROVAL_SECONDS,
  };
}

/** Why a decision is refused (each a stable HTTP problem code of the Worker). */
export type DecisionRefusal =
  | "APPROVAL_ALREADY_DECIDED"
  | "SELF_APPROVAL_FORBIDDEN"
  | "APPROVAL_EXPIRED"
  | "APPROVAL_DIGEST_MISMATCH"
  /** An approver's approval or edit of a request its end user confirms (an approver may only deny it). */
  | "END_USER_CONFIRMS"
  /** An end user's decision on a request its approvers decide (the tool's, or a call without a verified end user). */
  | "END_USER_CONFIRMATION_NOT_OFFERED"
  /** An end user's decision on another subject's request. */
  | "PRINCIPAL_MISMATCH";

/** What a decision may carry besides its verdict. */
export interface DecisionOptions {
  /** The approver's words (a denial's reaches the model); absent: none. */
  readonly reason?: string;
  /**
   * The window of a tool that sets none (`approvalValidSeconds`): the host's setting, e.g. a
   * consumer's; `APPROVAL_TTL_SECONDS` (the reference's 60) when absent.
   */
  readonly defaultValidSeconds?: number;
  /**
   * The decider is the end user the host verified (a token), not an approver: allowed only on
   * a request its end user confirms (`confirmed_by`), and only as that request's own subject.
   */
  readonly endUser?: boolean;
}

/**
 * One decision (approve, deny, or edit: approval-edit.ts checks the arguments) on a request. It is taken only with the digest computed for
 * the pending call and this approver ({@link digestForApprover}); another digest is refused
 * (`APPROVAL_DIGEST_MISMATCH`) and the request stays pending. The dispatcher checks the
 * recorded digest again when the agent repeats the call.
 */
export function decideApproval(
  record: ApprovalRecord,
  spec: ToolSpec,
  approverId: string,
  decision: "approve" | "deny" | "edit",
  submittedDigest: string,
  now: number,
  hash: HashFn = sha256Hex,
  options: DecisionOptions = {},
): { ok: true; value: ApprovalDecisionRecord } | { ok: false; error: DecisionRefusal } {
  if (record.state !== "pending") return { ok: false, error: "APPROVAL_ALREADY_DECIDED" };
  const endUser = options.endUser === true;
  const confirmedByEndUser = record.confirmed_by === "end_user";
  if (endUser) {
    if (!confirmedByEndUser || decision === "edit") return { ok: false, error: "END_USER_CONFIRMATION_NOT_OFFERED" };
    if (record.subject_id !== approverId) return { ok: false, error: "PRINCIPAL_MISMATCH" };
  } else {
    if (record.subject_id === approverId) return { ok: false, error: "SELF_APPROVAL_FORBIDDEN" };
    // The end user confirms: an approver may stop the call, never let it run.
    if (confirmedByEndUser && decision !== "deny") return { ok: false, error: "END_USER_CONFIRMS" };
  }
  if (record.expires_at <= now) return { ok: false, error: "APPROVAL_EXPIRED" };
  const expected = approvalDigest(record.call, spec, record.request_sha256, approverId, hash);
  if (!constantTimeEqual(submittedDigest, expected)) return { ok: false, error: "APPROVAL_DIGEST_MISMATCH" };
  return {
    ok: true,
    value: {
      approval_id: record.approval_id,
      state: decision === "approve" ? "approved" : decision === "deny" ? "denied" : "edited",
      approver_id: approverId,
      decided_at: now,
      // An edit's window is its edited call's (the original call itself is never admitted).
      valid_until:
        decision === "deny"
          ? null
          : now + (spec.approvalValidSeconds ?? options.defaultValidSeconds ?? APPROVAL_TTL_SECONDS),
      ...(options.reason === undefined ? {} : { reason: options.reason }),
      ...(endUser ? { decided_by: "end_user" as const } : {}),
      bound_to_request: true,
    },
  };
}

/** The digest an approver must submit to approve this request. */
export function digestForApprover(
  record: ApprovalRecord,
  spec: ToolSpec,
  approverId: string,
  hash: HashFn = sha256Hex,
): string {
  return approvalDigest(record.call, spec, record.request_sha256, approverId, hash);
}
