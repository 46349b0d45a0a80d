/**
 * `apply_observation`: correlates a provider's report with its dispatched request.
 * The first matching ignored reason wins; ignored observations are audited.
 * @module
 */
import type { CapabilityEngineState } from "../state";
import { err, ok, type Result } from "../../result";
import type { CapabilityError } from "../errors";
import {
  bumpRevision,
  closeRequest,
  dispatchedOperation,
  emitAudit,
  generationOf,
  pushTerminalCompletion,
  requestOf,
  subjectFor,
} from "./core";
import { validateObservation } from "../validate";
import type { CapabilityObservationEnvelope, ToolFailure } from "../wire-invocation";
import type { CapabilityObservationDisposition, ObservationIgnoredReason, ToolAuditSubject } from "../wire-records";

function ignore(
  state: CapabilityEngineState,
  envelope: CapabilityObservationEnvelope,
  subject: ToolAuditSubject | null,
  reason: ObservationIgnoredReason,
): Result<CapabilityObservationDisposition, CapabilityError> {
  bumpRevision(state);
  emitAudit(state, subject, { "observation-ignored": { operation_id: envelope.operation_id, reason } });
  return ok({ ignored: { reason } });
}

/** `apply_observation` (content is validated only after correlation succeeded). */
export function applyObservation(
  state: CapabilityEngineState,
  envelope: CapabilityObservationEnvelope,
): Result<CapabilityObservationDisposition, CapabilityError> {
  if (envelope.operation_id === 0n) return err({ validation: { "zero-identifier": { field: "tool operation id" } } });
  const record = requestOf(state, envelope.request_key);
  if (record === undefined) return ignore(state, envelope, null, "unknown-request");
  const request = record.request;
  const subject = subjectFor(request, record.snapshot.accepted_sequence);
  const current = generationOf(state, request.instance_id);
  if (current !== envelope.generation || envelope.generation !== request.generation) {
    return ignore(state, envelope, subject, "stale-generation");
  }
  if (envelope.instance_id !== request.instance_id) return ignore(state, envelope, subject, "instance-mismatch");
  if (envelope.provider_id !== request.provider_id) return ignore(state, envelope, subject, "provider-mismatch");
  const operationId = dispatchedOperation(record);
  if (operationId === null) return ignore(state, envelope, subject, "request-not-dispatched");
  if (envelope.operation_id !== operationId) return ignore(state, envelope, subject, "operation-mismatch");
  if (request.deadline_tick <= state.current_tick) {
    closeRequest(state, envelope.request_key, { kind: "timed-out" });
    bumpRevision(state);
    emitAudit(state, subject, { "observation-ignored": { operation_id: operationId, reason: "deadline-elapsed" } });
    return ok({ ignored: { reason: "deadline-elapsed" } });
  }
  const acceptedSequence = record.snapshot.accepted_sequence;
  const observation = envelope.observation;
  if (validateObservation(observation) !== null) {
    const failure: ToolFailure = { kind: "provider-contract-violation", redacted_message: null };
    record.snapshot.status = { failed: { operation_id: operationId, failure } };
    record.request.payload = [];
    bumpRevision(state);
    // Audit first, then the completion: the reverse of the valid paths below.
    emitAudit(state, subject, { "invocation-failed": { operation_id: operationId, failure_kind: failure.kind } });
    pushTerminalCompletion(state, record.request, acceptedSequence, operationId, { failed: { failure } });
    return ok("applied");
  }
  record.request.payload = [];
  if ("succeeded" in observation) {
    const result = observation.succeeded.result;
    record.snapshot.status = { succeeded: { operation_id: operationId, result: result.metadata } };
    pushTerminalCompletion(state, record.request, acceptedSequence, operationId, { succeeded: { result } });
    bumpRevision(state);
    emitAudit(state, subject, {
      "invocation-succeeded": {
        operation_id: operationId,
        result_bytes: result.metadata.byte_len,
        truncated: result.metadata.truncated,
      },
    });
  } else {
    const failure = observation.failed.failure;
    record.snapshot.status = { failed: { operation_id: operationId, failure } };
    pushTerminalCompletion(state, record.request, acceptedSequence, operationId, { failed: { failure } });
    bumpRevision(state);
    emitAudit(state, subject, { "invocation-failed": { operation_id: operationId, failure_kind: failure.kind } });
  }
  return ok("applied");
}
