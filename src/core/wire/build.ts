/**
 * Builders for the envelopes toolgate sends, so a transport never writes wire JSON by hand.
 * Each returns a typed {@link Envelope}; {@link encodeChecked} validates and encodes it. Time is
 * an argument: the core has no clock.
 * @module
 */

import type {
  CheckpointReference,
  ContextGeneration,
  DispatchBinding,
  InvocationContext,
  Metadata,
} from "./contracts/context";
import type { AdmissionDisposition, CheckpointPurgeRequest, Envelope, Payload } from "./contracts/envelope";
import type { FacadeResult, InteractionPreview, PreparedAction, PreviewDetail } from "./contracts/facade";
import { encodeEnvelope } from "./encode";
import type { ProtocolError } from "./errors";
import { CURRENT_VERSION, validateEnvelope } from "./validate";

/** Identity and timing of one outgoing message. */
export interface MessageHeader {
  messageId: string;
  correlationId: string;
  causationId?: string | null;
  /** Sender time in Unix milliseconds (u64). */
  sentAtUnixMs: number | bigint;
  dispatch: DispatchBinding;
}

/** `Metadata` for the current protocol version. */
export function metadata(header: MessageHeader): Metadata {
  return {
    version: CURRENT_VERSION,
    message_id: header.messageId,
    correlation_id: header.correlationId,
    causation_id: header.causationId ?? null,
    sent_at_unix_ms: header.sentAtUnixMs,
    dispatch: { dispatch_id: header.dispatch.dispatch_id, agent_session_id: header.dispatch.agent_session_id },
  };
}

/** Metadata answering `request`: same correlation and dispatch, caused by the request's message. */
export function replyMetadata(request: Envelope, messageId: string, sentAtUnixMs: number | bigint): Metadata {
  return metadata({
    messageId,
    correlationId: request.metadata.correlation_id,
    causationId: request.metadata.message_id,
    sentAtUnixMs,
    dispatch: request.metadata.dispatch,
  });
}

/** An envelope from metadata and a payload. */
export function envelope(meta: Metadata, payload: Payload): Envelope {
  return { metadata: meta, payload };
}

/** `event_ack` naming the checkpoint actually selected while applying (or deduplicating) the event. */
export function eventAck(meta: Metadata, eventId: string, checkpoint: CheckpointReference): Envelope {
  return envelope(meta, { family: "event_ack", payload: { event_id: eventId, checkpoint: { ...checkpoint } } });
}

/** `checkpoint_purge_ack` / `deleted` for a purge request. */
export function checkpointPurgeDeleted(
  meta: Metadata,
  request: CheckpointPurgeRequest,
  deletedObjects: number,
): Envelope {
  return envelope(meta, {
    family: "checkpoint_purge_ack",
    payload: {
      status: "deleted",
      purge_id: request.purge_id,
      conversation_key: request.conversation_key,
      thread_id: request.thread_id,
      deleted_objects: deletedObjects,
    },
  });
}

/** `checkpoint_purge_ack` / `failed` for a purge request; `code` must be non-blank. */
export function checkpointPurgeFailed(
  meta: Metadata,
  request: CheckpointPurgeRequest,
  code: string,
  message: string,
): Envelope {
  return envelope(meta, {
    family: "checkpoint_purge_ack",
    payload: {
      status: "failed",
      purge_id: request.purge_id,
      conversation_key: request.conversation_key,
      thread_id: request.thread_id,
      code,
      message,
    },
  });
}

/** The parts of a prepared action a caller must choose; the rest take serde's defaults. */
export interface PreparedActionInput {
  actionId: string;
  operationId: string;
  preview: Omit<InteractionPreview, "tone" | "details" | "clientTask"> &
    Partial<Pick<InteractionPreview, "tone" | "details" | "clientTask">>;
  /** Opaque execution plan the model and UI never see. Default `null`. */
  payload?: PreparedAction["payload"];
  revision: number | bigint;
  approval: PreparedAction["approval"];
  interactionKind: PreparedAction["interaction_kind"];
}

/** A `PreparedAction` with tone `normal` and no details unless given. */
export function preparedAction(input: PreparedActionInput): PreparedAction {
  const details: PreviewDetail[] = input.preview.details ?? [];
  const preview: InteractionPreview = {
    actionCode: input.preview.actionCode,
    title: input.preview.title,
    message: input.preview.message,
    tone: input.preview.tone ?? "normal",
    details,
    proceedLabel: input.preview.proceedLabel,
    rejectLabel: input.preview.rejectLabel,
  };
  if (input.preview.clientTask !== undefined) preview.clientTask = input.preview.clientTask;
  return {
    action_id: input.actionId,
    operation_id: input.operationId,
    preview,
    payload: input.payload ?? null,
    revision: input.revision,
    approval: input.approval,
    interaction_kind: input.interactionKind,
  };
}

/** `app_facade_response` / `prepared`. */
export function facadePrepared(meta: Metadata, action: PreparedAction): Envelope {
  return envelope(meta, { family: "app_facade_response", payload: { type: "prepared", action } });
}

/** `app_facade_response` / `result`; a continuation or context invalidation is optional. */
export function facadeResult(
  meta: Metadata,
  value: FacadeResult["value"],
  extra: { continuation?: PreparedAction; contextInvalidation?: ContextGeneration } = {},
): Envelope {
  const result: FacadeResult = { value };
  if (extra.continuation !== undefined) result.continuation = extra.continuation;
  if (extra.contextInvalidation !== undefined) result.context_invalidation = { generation: extra.contextInvalidation };
  return envelope(meta, { family: "app_facade_response", payload: { type: "result", result } });
}

/** `app_facade_response` / `rejected` (a unit variant). */
export function facadeRejected(meta: Metadata): Envelope {
  return envelope(meta, { family: "app_facade_response", payload: { type: "rejected" } });
}

/** `app_facade_response` / `failed`: a stable error safe to expose, with an optional retry delay. */
export function facadeFailed(
  meta: Metadata,
  code: string,
  message: string,
  retryAfterMs: number | bigint | null = null,
): Envelope {
  return envelope(meta, {
    family: "app_facade_response",
    payload: { type: "failed", code, message, retry_after_ms: retryAfterMs },
  });
}

/** `command_response` / `accepted`. */
export function commandAccepted(
  meta: Metadata,
  context: InvocationContext,
  disposition: AdmissionDisposition,
  queueRevision: number | bigint | null = null,
): Envelope {
  return envelope(meta, {
    family: "command_response",
    payload: { type: "accepted", context, disposition, queue_revision: queueRevision },
  });
}

/** `command_response` / `rejected`. */
export function commandRejected(meta: Metadata, context: InvocationContext, code: string, message: string): Envelope {
  return envelope(meta, { family: "command_response", payload: { type: "rejected", context, code, message } });
}

/** `execution_failure`: a dispatch failed outside the checkpointed state machine. */
export function executionFailure(meta: Metadata, context: InvocationContext, code: string, message: string): Envelope {
  return envelope(meta, { family: "execution_failure", payload: { context, code, message } });
}

/** Validates an outgoing envelope, then encodes it; a refusal comes back as a value. */
export function encodeChecked(value: Envelope): { ok: true; text: string } | { ok: false; error: ProtocolError } {
  const invalid = validateEnvelope(value);
  return invalid === null ? { ok: true, text: encodeEnvelope(value) } : { ok: false, error: invalid };
}
