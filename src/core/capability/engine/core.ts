/**
 * Internal primitives shared by every engine operation: lookups, revision, audit,
 * effect and completion queues, best-effort cancellation and request closure.
 * They mutate the state in place and never bump the revision on their own account
 * (except `bumpRevision`); the calling operation bumps once.
 * @module
 */
import { TOOL_AUDIT_EVENTS_MAX, TOOL_COMPLETIONS_MAX, TOOL_EFFECTS_MAX, U64_MAX } from "../limits";
import { compareRequestKeys, compareU64, sameRequestKey, searchSorted } from "../ordering";
import type { AcceptedRequest, CapabilityEngineState, RequestRecord } from "../state";
import type {
  CancellationDisposition,
  CapabilityEffect,
  CapabilityTerminalOutcome,
  CompletionDropReason,
  InvocationCancelReason,
  ToolInstanceState,
} from "../wire-invocation";
import type { CapabilityProviderDescriptor, CapabilityRequestKey, PolicyKey } from "../wire-policy";
import { isTerminalStatus, type ToolAuditEventKind, type ToolAuditSubject } from "../wire-records";

/** Current generation of an instance, or undefined. */
export function generationOf(state: CapabilityEngineState, instance: bigint): bigint | undefined {
  const index = searchSorted(state.generations, (entry) => compareU64(entry[0], instance));
  return index >= 0 ? (state.generations[index] as [bigint, bigint])[1] : undefined;
}

/** Current state of an instance, or undefined. */
export function instanceStateOf(state: CapabilityEngineState, instance: bigint): ToolInstanceState | undefined {
  const index = searchSorted(state.instance_states, (entry) => compareU64(entry[0], instance));
  return index >= 0 ? (state.instance_states[index] as [bigint, ToolInstanceState])[1] : undefined;
}

/** Registered provider descriptor, or undefined. */
export function providerOf(state: CapabilityEngineState, providerId: string): CapabilityProviderDescriptor | undefined {
  const index = searchSorted(state.providers, (provider) =>
    provider.id < providerId ? -1 : provider.id > providerId ? 1 : 0,
  );
  return index >= 0 ? state.providers[index] : undefined;
}

/** Request record for a key, or undefined. */
export function requestOf(state: CapabilityEngineState, key: CapabilityRequestKey): RequestRecord | undefined {
  const index = searchSorted(state.requests, (record) => compareRequestKeys(record.snapshot.key, key));
  return index >= 0 ? state.requests[index] : undefined;
}

/** True when a record's status is terminal. */
export function isTerminal(record: RequestRecord): boolean {
  return isTerminalStatus(record.snapshot.status);
}

/** Operation id of a dispatched record, else null. */
export function dispatchedOperation(record: RequestRecord): bigint | null {
  const status = record.snapshot.status;
  return typeof status === "object" && "dispatched" in status ? status.dispatched.operation_id : null;
}

/** Keys of non-terminal requests matching a predicate, in ascending key order. */
export function openRequestKeys(
  state: CapabilityEngineState,
  matches: (record: RequestRecord) => boolean,
): CapabilityRequestKey[] {
  return state.requests.filter((record) => !isTerminal(record) && matches(record)).map((record) => record.snapshot.key);
}

/** True when the accepted request falls under the exact policy key. */
export function requestMatchesKey(request: AcceptedRequest, key: PolicyKey): boolean {
  return (
    request.key.consumer_id === key.consumer_id &&
    request.key.actor_id === key.actor_id &&
    request.instance_id === key.instance_id &&
    request.generation === key.generation &&
    request.provider_id === key.provider_id &&
    request.capability_id === key.capability_id &&
    request.resource_scope_id === key.resource_scope_id
  );
}

/** Audit subject of a request. */
export function subjectFor(request: AcceptedRequest, acceptedSequence: bigint): ToolAuditSubject {
  return {
    request_key: request.key,
    accepted_sequence: acceptedSequence,
    instance_id: request.instance_id,
    generation: request.generation,
    provider_id: request.provider_id,
    capability_id: request.capability_id,
    resource_scope_id: request.resource_scope_id,
  };
}

/** Revision +1, or count an overflow once it saturated. */
export function bumpRevision(state: CapabilityEngineState): void {
  if (state.revision === U64_MAX) state.revision_overflow_count = saturatingIncrement(state.revision_overflow_count);
  else state.revision += 1n;
}

/** u64 saturating +1. */
export function saturatingIncrement(value: bigint): bigint {
  return value === U64_MAX ? value : value + 1n;
}

/** Records an audit event in the bounded ring (or counts it dropped once exhausted). */
export function emitAudit(
  state: CapabilityEngineState,
  subject: ToolAuditSubject | null,
  event: ToolAuditEventKind,
): void {
  if (state.audit_sequence_exhausted) {
    state.dropped_audit_events = saturatingIncrement(state.dropped_audit_events);
    return;
  }
  if (state.audit_events.length >= TOOL_AUDIT_EVENTS_MAX) {
    state.audit_events.shift();
    state.dropped_audit_events = saturatingIncrement(state.dropped_audit_events);
  }
  const sequence = state.next_audit_sequence;
  if (sequence === U64_MAX) state.audit_sequence_exhausted = true;
  else state.next_audit_sequence += 1n;
  state.audit_events.push({ sequence, tick: state.current_tick, subject, event });
}

/** Appends an effect unless the effect sequence is exhausted; does not check the bound. */
export function pushEffect(
  state: CapabilityEngineState,
  request: AcceptedRequest,
  operationId: bigint,
  effect: CapabilityEffect,
): boolean {
  if (state.effect_sequence_exhausted) return false;
  const sequence = state.next_effect_sequence;
  if (sequence === U64_MAX) state.effect_sequence_exhausted = true;
  else state.next_effect_sequence += 1n;
  state.effects.push({
    sequence,
    operation_id: operationId,
    request_key: request.key,
    instance_id: request.instance_id,
    generation: request.generation,
    provider_id: request.provider_id,
    deadline_tick: request.deadline_tick,
    effect,
  });
  return true;
}

/** Queues the `Invoke` for a dispatched request (capacity was checked beforehand). */
export function emitInvoke(state: CapabilityEngineState, request: AcceptedRequest, operationId: bigint): void {
  pushEffect(state, request, operationId, {
    invoke: {
      consumer_id: request.key.consumer_id,
      actor_id: request.key.actor_id,
      capability_id: request.capability_id,
      resource_scope_id: request.resource_scope_id,
      payload: request.payload,
    },
  });
}

/** Index of the still-queued `Invoke` of (request, operation), or -1. */
export function queuedInvokeIndex(
  state: CapabilityEngineState,
  key: CapabilityRequestKey,
  operationId: bigint,
): number {
  return state.effects.findIndex(
    (effect) =>
      sameRequestKey(effect.request_key, key) && effect.operation_id === operationId && "invoke" in effect.effect,
  );
}

/** Withdraws a queued invoke, else queues a cancel if there is room and a sequence. */
export function cancelBestEffort(
  state: CapabilityEngineState,
  request: AcceptedRequest,
  operationId: bigint,
  reason: InvocationCancelReason,
): CancellationDisposition {
  const queued = queuedInvokeIndex(state, request.key, operationId);
  if (queued >= 0) {
    state.effects.splice(queued, 1);
    return "queued-invoke-removed";
  }
  if (state.effects.length >= TOOL_EFFECTS_MAX) return "dropped-queue-full";
  return pushEffect(state, request, operationId, { cancel: { reason } })
    ? "cancel-queued-unconfirmed"
    : "dropped-sequence-exhausted";
}

function recordCompletionDrop(
  state: CapabilityEngineState,
  request: AcceptedRequest,
  acceptedSequence: bigint,
  completionSequence: bigint | null,
  reason: CompletionDropReason,
): void {
  state.dropped_completions = saturatingIncrement(state.dropped_completions);
  state.dropped_completions_since_drain = saturatingIncrement(state.dropped_completions_since_drain);
  emitAudit(state, subjectFor(request, acceptedSequence), {
    "completion-dropped": { completion_sequence: completionSequence, reason },
  });
}

/** Queues a terminal completion; a sequence is burned even when the queue is full. */
export function pushTerminalCompletion(
  state: CapabilityEngineState,
  request: AcceptedRequest,
  acceptedSequence: bigint,
  operationId: bigint | null,
  outcome: CapabilityTerminalOutcome,
): void {
  if (state.completion_sequence_exhausted) {
    recordCompletionDrop(state, request, acceptedSequence, null, "sequence-exhausted");
    return;
  }
  const sequence = state.next_completion_sequence;
  if (sequence === U64_MAX) state.completion_sequence_exhausted = true;
  else state.next_completion_sequence += 1n;
  if (state.completions.length >= TOOL_COMPLETIONS_MAX) {
    recordCompletionDrop(state, request, acceptedSequence, sequence, "queue-full");
    return;
  }
  state.completions.push({
    sequence,
    accepted_sequence: acceptedSequence,
    operation_id: operationId,
    request_key: request.key,
    instance_id: request.instance_id,
    generation: request.generation,
    provider_id: request.provider_id,
    outcome,
  });
}

/** Why a request is being closed; each has its own status, audit and completion. */
export type CloseCause =
  | { kind: "timed-out" }
  | { kind: "grant-revoked" }
  | { kind: "superseded"; current_generation: bigint }
  | { kind: "instance-closed" }
  | { kind: "client-closed" }
  | { kind: "provider-detached" };

const CANCEL_REASON: Record<Exclude<CloseCause["kind"], "provider-detached">, InvocationCancelReason> = {
  "timed-out": "deadline-elapsed",
  "grant-revoked": "grant-revoked",
  superseded: "generation-superseded",
  "instance-closed": "instance-closed",
  "client-closed": "client-closed",
};

/** Closes one non-terminal request: cancel attempt, terminal status, audit, completion. */
export function closeRequest(state: CapabilityEngineState, key: CapabilityRequestKey, cause: CloseCause): void {
  const record = requestOf(state, key);
  if (record === undefined) throw new Error("close target collected from the request map");
  const request = { ...record.request };
  const operationId = dispatchedOperation(record);
  record.request.payload = [];
  let cancellation: CancellationDisposition;
  if (operationId === null) cancellation = "not-required";
  else if (cause.kind === "provider-detached") {
    // Detach never queues a cancel: the runtime that would receive it is gone.
    const queued = queuedInvokeIndex(state, key, operationId);
    if (queued >= 0) {
      state.effects.splice(queued, 1);
      cancellation = "queued-invoke-removed";
    } else cancellation = "provider-detached-unconfirmed";
  } else cancellation = cancelBestEffort(state, request, operationId, CANCEL_REASON[cause.kind]);

  const closure = { operation_id: operationId, cancellation };
  const subject = subjectFor(request, record.snapshot.accepted_sequence);
  let outcome: CapabilityTerminalOutcome;
  switch (cause.kind) {
    case "superseded": {
      const current_generation = cause.current_generation;
      record.snapshot.status = { superseded: { operation_id: operationId, cancellation, current_generation } };
      emitAudit(state, subject, {
        "request-superseded": { operation_id: operationId, cancellation, current_generation },
      });
      outcome = { superseded: { current_generation, cancellation } };
      break;
    }
    case "timed-out":
      record.snapshot.status = { "timed-out": closure };
      emitAudit(state, subject, { "request-timed-out": closure });
      outcome = { "timed-out": { cancellation } };
      break;
    case "grant-revoked":
      record.snapshot.status = { "grant-revoked": closure };
      emitAudit(state, subject, { "request-grant-revoked": closure });
      outcome = { "grant-revoked": { cancellation } };
      break;
    case "instance-closed":
      record.snapshot.status = { "instance-closed": closure };
      emitAudit(state, subject, { "request-instance-closed": closure });
      outcome = { "instance-closed": { cancellation } };
      break;
    case "client-closed":
      record.snapshot.status = { "client-closed": closure };
      emitAudit(state, subject, { "request-client-closed": closure });
      outcome = { "client-closed": { cancellation } };
      break;
    case "provider-detached":
      record.snapshot.status = { "provider-detached": closure };
      emitAudit(state, subject, { "request-provider-detached": closure });
      outcome = { "provider-detached": { cancellation } };
      break;
  }
  pushTerminalCompletion(state, request, record.snapshot.accepted_sequence, operationId, outcome);
}
