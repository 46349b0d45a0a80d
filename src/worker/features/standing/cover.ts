/**
 * The hook of standing approvals in a tool call's approval step: an approval book (the core's
 * port) that, for a write with no approval of its own yet, asks whether a standing approval
 * covers it and, if one does, answers it as that call's granted approval. The engine then checks
 * it as it checks any approval (an approver of the consumer, bound by digest to this exact call).
 * @module
 */
import { passedThrough, type ApprovalBook, type ApprovalRecord } from "../../../core/tool-result/approval-book";
import { approvalDigest, requestDigest } from "../../../core/tool-result/digests";
import type { ToolSpec } from "../../../core/tool-result/tool-spec";
import { sha256Hex, type JsonObject } from "../../../core/json";
import { memoizeHash } from "../../../core/tool-result/digests";
import type { HashFn, Principal, ToolCall } from "../../../core/tool-result/types";
import type { StandingCover } from "./service";

/** The call a covering book answers for. */
export interface CoveredCall {
  readonly principal: Principal;
  readonly call: ToolCall;
  readonly spec: ToolSpec;
  readonly hash: HashFn;
  readonly now: number;
}

/**
 * `book`, except that a call whose binding holds no request yet (never asked, so no pending or
 * decided approval of its own) is covered by `cover` when it answers a grant: its use is counted
 * there, and `covered` hears the grant. A call with a request of its own keeps that request.
 */
export function coveringBook(
  book: ApprovalBook,
  covered: CoveredCall,
  cover: () => StandingCover | null,
  heard: (grant: StandingCover) => void,
): ApprovalBook {
  return {
    byBinding(bindingKey) {
      const stored = book.byBinding(bindingKey);
      if (stored.length > 0) return stored;
      const grant = cover();
      if (grant === null) return stored;
      heard(grant);
      const { principal, call, spec, hash, now } = covered;
      const digest = requestDigest(principal, call, spec, hash);
      // Valid for this step only: the engine checks it now, and nothing stores it.
      const record: ApprovalRecord = {
        approval_id: grant.id,
        state: "approved",
        subject_id: principal.subject_id,
        call,
        request_sha256: digest,
        requested_at: now,
        expires_at: now + 1,
        approver_id: grant.approverId,
        decision_digest: approvalDigest(call, spec, digest, grant.approverId, hash),
        decided_at: now,
        valid_until: now + 1,
      };
      return [record];
    },
    open: (request) => book.open(request),
    // An edited approval's lookup and claim are the stored book's (a grant never covers them).
    ...passedThrough(book),
  };
}

/** How a tool call is dispatched, as far as standing approvals care. */
export interface CallPath {
  /** A prepared action (it only opens its approval). */
  readonly prepareOnly?: boolean;
  /** The App Facade's call (its approvals are its own). */
  readonly facade?: boolean;
  readonly claims?: JsonObject;
  /** The call carries a verified end user: a tool its end user confirms is then the end user's alone. */
  readonly endUser?: boolean;
}

/** The consumer's standing approvals, as the tool-call service asks them (features/standing/service.ts `cover`). */
export type StandingLookup = (
  principal: Principal,
  call: ToolCall,
  claims: JsonObject,
  now: number,
) => StandingCover | null;

/**
 * The approval book of one call: `book`, or for an agent's call of a registered tool the
 * {@link coveringBook} over it (a prepared or facade call keeps its own approvals). `heard`
 * learns the id of the standing approval that covered the call.
 */
export function callBook(
  book: ApprovalBook,
  target: { readonly principal: Principal; readonly call: ToolCall; readonly now: number; readonly spec?: ToolSpec },
  lookup: StandingLookup | undefined,
  path: CallPath,
  heard: (standingId: string) => void,
): ApprovalBook {
  const { principal, call, now, spec } = target;
  if (lookup === undefined || spec === undefined || path.prepareOnly === true || path.facade === true) return book;
  // A standing approval is the approvers' approval given ahead: never of a call its end user confirms.
  if (spec.confirmedBy === "end_user" && path.endUser === true) return book;
  return coveringBook(
    book,
    { principal, call, spec, hash: memoizeHash(sha256Hex), now },
    () => lookup(principal, call, path.claims ?? {}, now),
    (grant) => heard(grant.id),
  );
}
