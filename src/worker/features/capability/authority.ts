import { writeWireJson, type CapabilityRequestSnapshot } from "../../../core/capability";
import type { CapabilityAuthorityRequest } from "../../../contracts/capability";
import { problem, type Problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { Limits } from "../../kernel/limits";
import { approvalsCursor } from "./cursor";
import type { CapabilityService } from "./service";
import { engineProblem } from "./engine-problem";
import type { CapabilityCaller } from "./calls";
import { MAX_AUTHORITY_SEQUENCE } from "./u64";

/** `403 APPROVER_NOT_ALLOWED` unless the caller is the admin or one of the consumer's approvers. */
export function approverRefusal(caller: CapabilityCaller, approvers: readonly string[]): Problem | null {
  if (caller.kind !== "approver") return null;
  return caller.subjectId !== null && approvers.includes(caller.subjectId)
    ? null
    : problem("APPROVER_NOT_ALLOWED", "This subject is not an approver of the consumer.");
}

/**
 * `403 SELF_APPROVAL_FORBIDDEN` when an approver's subject is the actor the command would
 * favour: resolving the approval of its own capability request (approve or deny), or setting
 * a grant for itself. Revoking and closing (which only take away) stay allowed.
 */
export function selfApprovalRefusal(
  caller: CapabilityCaller,
  command: CapabilityAuthorityRequest["command"],
): Problem | null {
  if (caller.kind !== "approver" || caller.subjectId === null) return null;
  const actor =
    "resolve-approval" in command
      ? command["resolve-approval"].resolution.request_key.actor_id
      : "set-grant" in command
        ? command["set-grant"].grant.key.actor_id
        : null;
  return actor === caller.subjectId
    ? problem(
        "SELF_APPROVAL_FORBIDDEN",
        "An approver may not resolve its own capability request or grant itself a capability.",
      )
    : null;
}

/** `422 CAPABILITY_INVALID` (`sequence-out-of-range`): the sequence's successor would not be a u64. */
function sequenceOutOfRange(sequence: bigint): Problem {
  return {
    ...problem("CAPABILITY_INVALID", "sequence-out-of-range"),
    errorJson: writeWireJson({
      "sequence-out-of-range": { field: "authority sequence", max: MAX_AUTHORITY_SEQUENCE, actual: sequence },
    }),
  };
}

/**
 * One authority command (approver or admin). The sequence is the body's, or the last accepted
 * one + 1; one above {@link MAX_AUTHORITY_SEQUENCE} is refused before anything is applied or
 * persisted, so the lane never wraps and its successor is always a u64.
 */
export function authorityCall(
  host: CapabilityService,
  caller: CapabilityCaller,
  approvers: readonly string[],
  body: CapabilityAuthorityRequest,
): Outcome<string> {
  const refused = approverRefusal(caller, approvers) ?? selfApprovalRefusal(caller, body.command);
  if (refused !== null) return fail(refused);
  // No await between this read and the step below: nothing else runs in the object meanwhile.
  const sequence = body.sequence ?? host.peek().last_authority_sequence + 1n;
  if (sequence > MAX_AUTHORITY_SEQUENCE) return fail(sequenceOutOfRange(sequence));
  const outcome = host.timed((state) => host.apply(state, { authority: { sequence, command: body.command } }));
  return outcome.ok ? ok(writeWireJson({ sequence, outcome: outcome.value })) : fail(engineProblem(outcome.error));
}

/**
 * One page of the capability requests awaiting approval, oldest accepted first (by
 * `accepted_sequence`, which only grows, so a newer request always sorts after every cursor
 * and paging reaches every one). At most `limits.page_items` per page; `next_cursor` is
 * `null` on the last page. A cursor the gate did not issue is `400 INVALID_CURSOR`.
 */
export function approvalsCall(
  host: CapabilityService,
  consumer: string,
  caller: CapabilityCaller,
  approvers: readonly string[],
  cursor: string | null,
  limits: Pick<Limits, "page_items">,
): Outcome<string> {
  const refused = approverRefusal(caller, approvers);
  if (refused !== null) return fail(refused);
  return host.timed((state): Outcome<string> => {
    const cursors = approvalsCursor(host.store.cursorKey(), consumer);
    const read = cursor === null ? ok(null) : cursors.read(cursor);
    if (!read.ok) return read;
    const after = read.value;
    const waiting: CapabilityRequestSnapshot[] = state.requests
      .map((record) => record.snapshot)
      .filter(
        (snapshot) => snapshot.status === "awaiting-approval" && (after === null || snapshot.accepted_sequence > after),
      )
      .sort((a, b) =>
        a.accepted_sequence < b.accepted_sequence ? -1 : a.accepted_sequence > b.accepted_sequence ? 1 : 0,
      );
    const page = waiting.slice(0, Math.max(1, limits.page_items));
    const last = page[page.length - 1];
    const next = waiting.length > page.length && last !== undefined ? cursors.encode(last.accepted_sequence) : null;
    return ok(
      writeWireJson({
        approvals: page,
        next_cursor: next,
        last_authority_sequence: state.last_authority_sequence,
        tick: state.current_tick,
      }),
    );
  });
}
