import * as z from "../core/zod";
import {
  capabilityObservationEnvelope,
  capabilityProviderDescriptor,
  capabilityRequestInput,
  toolActorId,
  toolAuthorityCommand,
  toolInstanceState,
  u64,
} from "../core/capability";
import { httpSchemas } from "./registry";
import { DOCS } from "./docs";

/** `POST …/capability/providers` (admin): registers one provider of this consumer. */
export const CapabilityProviderRegistration = z.deferred(() =>
  z.object({ descriptor: capabilityProviderDescriptor }).register(httpSchemas, {
    id: "CapabilityProviderRegistration",
    description: DOCS ? "A CapabilityProviderDescriptor of the capability engine." : "",
  }),
);

/** `PUT …/capability/instances/{instance_id}` (admin): the instance's generation and state. */
export const CapabilityInstanceUpdate = z.deferred(() =>
  z.object({ generation: u64, state: toolInstanceState }).register(httpSchemas, { id: "CapabilityInstanceUpdate" }),
);

/**
 * `POST …/capability/authority` (approver or admin): one authority command. Without
 * `sequence` the gate uses the last accepted authority sequence + 1.
 */
export const CapabilityAuthorityRequest = z.deferred(() =>
  z
    .object({ sequence: z.optional(u64), command: toolAuthorityCommand })
    .register(httpSchemas, { id: "CapabilityAuthorityRequest" }),
);

/**
 * `POST …/capability/requests` (agent): a capability request. The consumer id is the path's
 * consumer; `provider_binding_id` defaults to the provider's current binding.
 */
export const CapabilityRequestBody = z.deferred(() =>
  z
    .object({
      actor_id: toolActorId,
      request: capabilityRequestInput,
      provider_binding_id: z.optional(z.nullable(u64)),
    })
    .register(httpSchemas, { id: "CapabilityRequestBody" }),
);

/** `POST …/providers/{provider_id}/observations` (provider, long-poll transport). */
export const CapabilityObservationPost = z.deferred(() =>
  z
    .object({ binding_id: u64, observation: capabilityObservationEnvelope })
    .register(httpSchemas, { id: "CapabilityObservationPost" }),
);

/** `POST …/providers/{provider_id}/detach` (provider, long-poll transport). */
export const CapabilityDetachPost = z.deferred(() =>
  z.object({ binding_id: u64 }).register(httpSchemas, { id: "CapabilityDetachPost" }),
);

/** A capability answer: the engine's value in its wire form (u64 values are bare integers). */
export const CapabilityAnswer = z.deferred(() =>
  z.record(z.string(), z.unknown()).register(httpSchemas, {
    id: "CapabilityAnswer",
    description: DOCS ? "See docs/capability-http.md for each route's shape." : "",
  }),
);

/** Provider → gate WebSocket message. */
export const ProviderSocketMessage = z.deferred(() =>
  z.union([
    z.object({
      type: z.literal("observation"),
      id: z.optional(z.int().check(z.gte(0), z.lte(Number.MAX_SAFE_INTEGER))),
      observation: capabilityObservationEnvelope,
    }),
    z.object({ type: z.literal("ping") }),
  ]),
);

/** Parsed body types. */
export type CapabilityProviderRegistration = z.output<typeof CapabilityProviderRegistration>;
export type CapabilityInstanceUpdate = z.output<typeof CapabilityInstanceUpdate>;
export type CapabilityAuthorityRequest = z.output<typeof CapabilityAuthorityRequest>;
export type CapabilityRequestBody = z.output<typeof CapabilityRequestBody>;
export type CapabilityObservationPost = z.output<typeof CapabilityObservationPost>;
export type ProviderSocketMessage = z.output<typeof ProviderSocketMessage>;
