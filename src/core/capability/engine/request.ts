/**
 * `request`: admission of a consumer-bound capability request, in the engine's exact
 * check order (eviction comes last so no earlier failure evicts anything).
 * @module
 */
import { TOOL_ACTIVE_REQUESTS_PER_CLIENT_MAX, U64_MAX } from "../limits";
import { compareRequestKeys, upsertSorted } from "../ordering";
import type { AcceptedRequest, CapabilityEngineState } from "../state";
import { err, ok, type Result } from "../../result";
import type { CapabilityError } from "../errors";
import { bumpRevision, emitAudit, emitInvoke, isTerminal, pushTerminalCompletion, requestOf, subjectFor } from "./core";
import { ensureEffectCapacity, ensureOperationCapacity, ensureRequestCapacity } from "./capacity";
import { evaluatePolicy } from "./authority";
import { utf8Length } from "../text";
import { validateRequestInput } from "../validate";
import type { ConsumerBoundCapabilityRequest, PolicyDecision } from "../wire-policy";
import type { CapabilityRequestStatus } from "../wire-records";

function ensureClientCapacity(
  state: CapabilityEngineState,
  consumerId: string,
  actorId: string,
): CapabilityError | null {
  let open = 0;
  for (const record of state.requests) {
    if (
      record.snapshot.key.consumer_id === consumerId &&
      record.snapshot.key.actor_id === actorId &&
      !isTerminal(record)
    )
      open++;
  }
  if (open < TOOL_ACTIVE_REQUESTS_PER_CLIENT_MAX) return null;
  return {
    "client-request-capacity-exceeded": {
      consumer_id: consumerId,
      actor_id: actorId,
      max: TOOL_ACTIVE_REQUESTS_PER_CLIENT_MAX,
    },
  };
}

/** `request`: returns the policy decision; a denial is a successful call. */
export function request(
  state: CapabilityEngineState,
  envelope: ConsumerBoundCapabilityRequest,
): Result<PolicyDecision, CapabilityError> {
  const input = envelope.request;
  const invalid = validateRequestInput(input, state.current_tick);
  if (invalid !== null) return err({ validation: invalid });
  const key = { consumer_id: envelope.consumer_id, actor_id: envelope.actor_id, local_id: input.local_id };
  const existing = requestOf(state, key);
  const reusesTerminalKey = existing !== undefined && isTerminal(existing);
  if (existing !== undefined && !reusesTerminalKey) return err({ "duplicate-request": { request_key: key } });
  const accepted: AcceptedRequest = {
    key,
    instance_id: input.instance_id,
    generation: input.generation,
    provider_id: input.provider_id,
    capability_id: input.capability_id,
    resource_scope_id: input.resource_scope_id,
    approval_summary: input.approval_summary,
    deadline_tick: input.deadline_tick,
    payload: input.payload,
  };
  const decision = evaluatePolicy(state, accepted);
  const denied = typeof decision === "object";
  if (state.next_request_sequence === U64_MAX)
    return err({ "counter-exhausted": { counter: "tool request sequence" } });
  if (decision === "allow") {
    const blocked = ensureOperationCapacity(state) ?? ensureEffectCapacity(state, 1);
    if (blocked !== null) return err(blocked);
  }
  if (!denied) {
    const full = ensureClientCapacity(state, key.consumer_id, key.actor_id);
    if (full !== null) return err(full);
  }
  if (!reusesTerminalKey) {
    const full = ensureRequestCapacity(state);
    if (full !== null) return err(full);
  }
  const acceptedSequence = state.next_request_sequence;
  state.next_request_sequence += 1n;
  let operationId: bigint | null = null;
  if (decision === "allow") {
    operationId = state.next_operation_id;
    state.next_operation_id += 1n;
  }
  let status: CapabilityRequestStatus;
  if (typeof decision === "object") status = { denied: { reason: decision.deny } };
  else if (decision === "require-approval") status = "awaiting-approval";
  else status = { dispatched: { operation_id: operationId as bigint } };
  const record = {
    // The payload is kept only while an approval may still need it for the Invoke.
    request: { ...accepted, payload: decision === "require-approval" ? input.payload : [] },
    snapshot: {
      key,
      accepted_sequence: acceptedSequence,
      accepted_at_tick: state.current_tick,
      instance_id: input.instance_id,
      generation: input.generation,
      provider_id: input.provider_id,
      capability_id: input.capability_id,
      resource_scope_id: input.resource_scope_id,
      approval_summary: input.approval_summary,
      approval_summary_bytes: utf8Length(input.approval_summary),
      deadline_tick: input.deadline_tick,
      payload_bytes: input.payload.length,
      policy_decision: decision,
      status,
    },
  };
  upsertSorted(state.requests, record, (stored) => compareRequestKeys(stored.snapshot.key, key));
  bumpRevision(state);
  const subject = subjectFor(accepted, acceptedSequence);
  emitAudit(state, subject, { "request-evaluated": { decision, payload_bytes: input.payload.length } });
  if (typeof decision === "object") {
    pushTerminalCompletion(state, accepted, acceptedSequence, null, { "policy-denied": { reason: decision.deny } });
  } else if (operationId !== null) {
    emitInvoke(state, accepted, operationId);
    emitAudit(state, subject, { "invocation-dispatched": { operation_id: operationId } });
  }
  return ok(decision);
}
