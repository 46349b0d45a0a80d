/**
 * The envelope itself: `Metadata` plus a `Payload` adjacently tagged by `family` / `payload`,
 * and the transport messages each family carries.
 * @module
 */

import * as z from "../../zod";
import { id, option, surface, u32, u64 } from "../scalars";
import { AgentCommandSchema, AgentObservationSchema, DurableEventSchema } from "./agent";
import {
  CheckpointReferenceSchema,
  ContextGenerationSchema,
  InvocationContextSchema,
  MetadataSchema,
  ScopeSchema,
} from "./context";
import { AppFacadeRequestSchema, AppFacadeResponseSchema } from "./facade";
import { LlmExecutionPlanSchema } from "./llm";

/** `CommandRequest`: admission request; the four bindings are `null` when empty. */
export const CommandRequestSchema = z.deferred(() =>
  z.object({
    command: AgentCommandSchema,
    context_generation: option(ContextGenerationSchema),
    llm_plan: option(LlmExecutionPlanSchema),
    base_checkpoint: option(CheckpointReferenceSchema),
    abandoned_run_id: option(id),
  }),
);

/** `AdmissionDisposition`. */
export const AdmissionDispositionSchema = z.deferred(() => z.enum(["queued", "interaction_ready", "cancel_requested"]));

/** `CommandResponse`, tagged by `type`. */
export const CommandResponseSchema = z.deferred(() =>
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("accepted"),
      context: InvocationContextSchema,
      disposition: AdmissionDispositionSchema,
      queue_revision: option(u64),
    }),
    z.object({ type: z.literal("rejected"), context: InvocationContextSchema, code: z.string(), message: z.string() }),
  ]),
);

/** `EventMessage`: a durable event with the checkpoint generation it was committed with. */
export const EventMessageSchema = z.deferred(() =>
  z.object({
    event: DurableEventSchema,
    checkpoint: CheckpointReferenceSchema,
  }),
);

/** `EventAck`: names the checkpoint Lion actually selected. */
export const EventAckSchema = z.deferred(() =>
  z.object({
    event_id: id,
    checkpoint: CheckpointReferenceSchema,
  }),
);

/** `CheckpointPurgeRequest`. */
export const CheckpointPurgeRequestSchema = z.deferred(() =>
  z.object({
    purge_id: z.string(),
    conversation_key: z.string(),
    scope: ScopeSchema,
    thread_id: id,
    surface_id: surface,
  }),
);

/** `CheckpointPurgeAck`, tagged by `status`. */
export const CheckpointPurgeAckSchema = z.deferred(() =>
  z.discriminatedUnion("status", [
    z.object({
      status: z.literal("deleted"),
      purge_id: z.string(),
      conversation_key: z.string(),
      thread_id: id,
      deleted_objects: u32,
    }),
    z.object({
      status: z.literal("failed"),
      purge_id: z.string(),
      conversation_key: z.string(),
      thread_id: id,
      code: z.string(),
      message: z.string(),
    }),
  ]),
);

/** `ObservationMessage`. */
export const ObservationMessageSchema = z.deferred(() =>
  z.object({
    context: InvocationContextSchema,
    observation: AgentObservationSchema,
  }),
);

/** `ExecutionFailure`. */
export const ExecutionFailureSchema = z.deferred(() =>
  z.object({
    context: InvocationContextSchema,
    code: z.string(),
    message: z.string(),
  }),
);

/** `Payload`, adjacently tagged: `{"family": …, "payload": …}`. */
export const PayloadSchema = z.deferred(() =>
  z.discriminatedUnion("family", [
    z.object({ family: z.literal("command"), payload: CommandRequestSchema }),
    z.object({ family: z.literal("command_response"), payload: CommandResponseSchema }),
    z.object({ family: z.literal("event"), payload: EventMessageSchema }),
    z.object({ family: z.literal("event_ack"), payload: EventAckSchema }),
    z.object({ family: z.literal("checkpoint_purge"), payload: CheckpointPurgeRequestSchema }),
    z.object({ family: z.literal("checkpoint_purge_ack"), payload: CheckpointPurgeAckSchema }),
    z.object({ family: z.literal("observation"), payload: ObservationMessageSchema }),
    z.object({ family: z.literal("execution_failure"), payload: ExecutionFailureSchema }),
    z.object({ family: z.literal("app_facade_request"), payload: AppFacadeRequestSchema }),
    z.object({ family: z.literal("app_facade_response"), payload: AppFacadeResponseSchema }),
  ]),
);

/** `Envelope`: the complete transport message. */
export const EnvelopeSchema = z.deferred(() =>
  z.object({
    metadata: MetadataSchema,
    payload: PayloadSchema,
  }),
);

export type CommandRequest = z.output<typeof CommandRequestSchema>;
export type AdmissionDisposition = z.output<typeof AdmissionDispositionSchema>;
export type CommandResponse = z.output<typeof CommandResponseSchema>;
export type EventMessage = z.output<typeof EventMessageSchema>;
export type EventAck = z.output<typeof EventAckSchema>;
export type CheckpointPurgeRequest = z.output<typeof CheckpointPurgeRequestSchema>;
export type CheckpointPurgeAck = z.output<typeof CheckpointPurgeAckSchema>;
export type ObservationMessage = z.output<typeof ObservationMessageSchema>;
export type ExecutionFailure = z.output<typeof ExecutionFailureSchema>;
export type Payload = z.output<typeof PayloadSchema>;
export type PayloadFamily = Payload["family"];
export type Envelope = z.output<typeof EnvelopeSchema>;
