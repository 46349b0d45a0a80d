/**
 * Contracts shared by many payloads: metadata, dispatch binding, checkpoint reference, the
 * invocation context and the prompt-context generation vector. Field order is the order the
 * golden fixtures use; the encoder writes keys in this order.
 * @module
 */

import * as z from "../../zod";
import { id, option, surface, u16, u32, u64 } from "../scalars";

/** `DispatchBinding`: one execution attempt and its authenticated Agent session. */
export const DispatchBindingSchema = z.deferred(() =>
  z.object({
    dispatch_id: z.string(),
    agent_session_id: z.string(),
  }),
);

/** `Metadata`, shared by every wire message. */
export const MetadataSchema = z.deferred(() =>
  z.object({
    version: u16,
    message_id: z.string(),
    correlation_id: z.string(),
    causation_id: option(z.string()),
    sent_at_unix_ms: u64,
    dispatch: DispatchBindingSchema,
  }),
);

/** `CheckpointReference`: an immutable object-store checkpoint generation. */
export const CheckpointReferenceSchema = z.deferred(() =>
  z.object({
    object_key: z.string(),
    sha256: z.string(),
    format_version: u32,
  }),
);

/** `Scope`. */
export const ScopeSchema = z.deferred(() =>
  z.object({
    tenant_id: option(id),
    scope_id: id,
  }),
);

/** `Actor`. */
export const ActorSchema = z.deferred(() =>
  z.object({
    user_id: id,
    client_id: option(id),
  }),
);

/** `InvocationContext`: authenticated invocation and routing context. */
export const InvocationContextSchema = z.deferred(() =>
  z.object({
    scope: ScopeSchema,
    actor: ActorSchema,
    thread_id: id,
    run_id: id,
    operation_id: id,
    deadline_unix_ms: option(u64),
    traceparent: option(z.string()),
    surface_id: surface,
  }),
);

/** `ContextGeneration`: the six prompt-context tokens Lion froze for a dispatch. */
export const ContextGenerationSchema = z.deferred(() =>
  z.object({
    user_scope: z.string(),
    identity: z.string(),
    memory: z.string(),
    integration_guide: z.string(),
    installed_integrations: z.string(),
    scope_integrations: z.string(),
  }),
);

export type DispatchBinding = z.output<typeof DispatchBindingSchema>;
export type Metadata = z.output<typeof MetadataSchema>;
export type CheckpointReference = z.output<typeof CheckpointReferenceSchema>;
export type Scope = z.output<typeof ScopeSchema>;
export type Actor = z.output<typeof ActorSchema>;
export type InvocationContext = z.output<typeof InvocationContextSchema>;
export type ContextGeneration = z.output<typeof ContextGenerationSchema>;
