/**
 * Wire contracts for invocations: effects sent to providers, observations they send
 * back, results, failures, terminal completions and the provider-runtime lane.
 * @module
 */
import * as z from "../zod";
import { capabilityRequestKey, policyDenial } from "./wire-policy";
import {
  bytes,
  consumerId,
  optional,
  resourceScopeId,
  toolActorId,
  toolCapabilityId,
  toolProviderId,
  u64,
  variant,
} from "./wire-scalars";

/** `ToolInstanceState`. */
export const toolInstanceState = z.deferred(() => z.enum(["active", "inactive"]));
export type ToolInstanceState = z.output<typeof toolInstanceState>;

/** `InvocationCancelReason`. */
export const invocationCancelReason = z.deferred(() =>
  z.enum(["deadline-elapsed", "generation-superseded", "grant-revoked", "instance-closed", "client-closed"]),
);
export type InvocationCancelReason = z.output<typeof invocationCancelReason>;

/** `CancellationDisposition`: only `queued-invoke-removed` proves the invoke never left. */
export const cancellationDisposition = z.deferred(() =>
  z.enum([
    "not-required",
    "queued-invoke-removed",
    "cancel-queued-unconfirmed",
    "provider-detached-unconfirmed",
    "dropped-queue-full",
    "dropped-sequence-exhausted",
  ]),
);
export type CancellationDisposition = z.output<typeof cancellationDisposition>;

/** `CompletionDropReason`. */
export const completionDropReason = z.deferred(() => z.enum(["queue-full", "sequence-exhausted"]));
export type CompletionDropReason = z.output<typeof completionDropReason>;

/** `CapabilityEffect`: what a provider is asked to do. */
export const capabilityEffect = z.deferred(() =>
  z.union([
    variant(
      "invoke",
      z.object({
        consumer_id: consumerId,
        actor_id: toolActorId,
        capability_id: toolCapabilityId,
        resource_scope_id: resourceScopeId,
        payload: bytes,
      }),
    ),
    variant("cancel", z.object({ reason: invocationCancelReason })),
  ]),
);
export type CapabilityEffect = z.output<typeof capabilityEffect>;

/** `CapabilityEffectEnvelope`. */
export const capabilityEffectEnvelope = z.deferred(() =>
  z.object({
    sequence: u64,
    operation_id: u64,
    request_key: capabilityRequestKey,
    instance_id: u64,
    generation: u64,
    provider_id: toolProviderId,
    deadline_tick: u64,
    effect: capabilityEffect,
  }),
);
export type CapabilityEffectEnvelope = z.output<typeof capabilityEffectEnvelope>;

/** `ProviderBoundCapabilityEffectEnvelope`: an effect addressed to one runtime binding. */
export const providerBoundCapabilityEffectEnvelope = z.deferred(() =>
  z.object({ binding_id: u64, effect: capabilityEffectEnvelope }),
);
export type ProviderBoundCapabilityEffectEnvelope = z.output<typeof providerBoundCapabilityEffectEnvelope>;

/** `CapabilityResultMetadata`. */
export const capabilityResultMetadata = z.deferred(() =>
  z.object({
    byte_len: u64,
    media_type: optional(z.string()),
    truncated: z.boolean(),
    redacted_summary: optional(z.string()),
  }),
);
export type CapabilityResultMetadata = z.output<typeof capabilityResultMetadata>;

/** `CapabilityResultDelivery`: inline bytes or an opaque provider reference. */
export const capabilityResultDelivery = z.deferred(() =>
  z.union([variant("inline", z.object({ bytes })), variant("opaque-reference", z.object({ reference: z.string() }))]),
);
export type CapabilityResultDelivery = z.output<typeof capabilityResultDelivery>;

/** `CapabilityResult`. */
export const capabilityResult = z.deferred(() =>
  z.object({ metadata: capabilityResultMetadata, delivery: capabilityResultDelivery }),
);
export type CapabilityResult = z.output<typeof capabilityResult>;

/** `ToolFailureKind`. */
export const toolFailureKind = z.deferred(() =>
  z.enum(["rejected", "unavailable", "invalid-input", "execution", "cancelled", "provider-contract-violation"]),
);
export type ToolFailureKind = z.output<typeof toolFailureKind>;

/** `ToolFailure`. */
export const toolFailure = z.deferred(() =>
  z.object({ kind: toolFailureKind, redacted_message: optional(z.string()) }),
);
export type ToolFailure = z.output<typeof toolFailure>;

/** `CapabilityObservation`: what a provider reports for an invocation. */
export const capabilityObservation = z.deferred(() =>
  z.union([
    variant("succeeded", z.object({ result: capabilityResult })),
    variant("failed", z.object({ failure: toolFailure })),
  ]),
);
export type CapabilityObservation = z.output<typeof capabilityObservation>;

/** `CapabilityObservationEnvelope`. */
export const capabilityObservationEnvelope = z.deferred(() =>
  z.object({
    operation_id: u64,
    request_key: capabilityRequestKey,
    instance_id: u64,
    generation: u64,
    provider_id: toolProviderId,
    observation: capabilityObservation,
  }),
);
export type CapabilityObservationEnvelope = z.output<typeof capabilityObservationEnvelope>;

/** `CapabilityTerminalOutcome`. */
export const capabilityTerminalOutcome = z.deferred(() =>
  z.union([
    z.literal("approval-denied"),
    variant("succeeded", z.object({ result: capabilityResult })),
    variant("failed", z.object({ failure: toolFailure })),
    variant("policy-denied", z.object({ reason: policyDenial })),
    variant("grant-revoked", z.object({ cancellation: cancellationDisposition })),
    variant("timed-out", z.object({ cancellation: cancellationDisposition })),
    variant("superseded", z.object({ current_generation: u64, cancellation: cancellationDisposition })),
    variant("instance-closed", z.object({ cancellation: cancellationDisposition })),
    variant("client-closed", z.object({ cancellation: cancellationDisposition })),
    variant("provider-detached", z.object({ cancellation: cancellationDisposition })),
  ]),
);
export type CapabilityTerminalOutcome = z.output<typeof capabilityTerminalOutcome>;

/** `CapabilityCompletionEnvelope`: exactly one per terminal request (or a recorded drop). */
export const capabilityCompletionEnvelope = z.deferred(() =>
  z.object({
    sequence: u64,
    accepted_sequence: u64,
    operation_id: optional(u64),
    request_key: capabilityRequestKey,
    instance_id: u64,
    generation: u64,
    provider_id: toolProviderId,
    outcome: capabilityTerminalOutcome,
  }),
);
export type CapabilityCompletionEnvelope = z.output<typeof capabilityCompletionEnvelope>;

/** `CapabilityCompletionBatch`: one drain of the completion queue. */
export const capabilityCompletionBatch = z.deferred(() =>
  z.object({
    completions: z.array(capabilityCompletionEnvelope),
    dropped_since_last_drain: u64,
    total_dropped: u64,
    next_sequence: u64,
    sequence_exhausted: z.boolean(),
  }),
);
export type CapabilityCompletionBatch = z.output<typeof capabilityCompletionBatch>;

/** `ProviderRuntimeCommand`. */
export const providerRuntimeCommand = z.deferred(() =>
  z.union([
    variant("attach", z.object({ binding_id: u64, provider_id: toolProviderId })),
    variant("detach", z.object({ binding_id: u64, provider_id: toolProviderId })),
    variant("observe", z.object({ binding_id: u64, observation: capabilityObservationEnvelope })),
  ]),
);
export type ProviderRuntimeCommand = z.output<typeof providerRuntimeCommand>;

/** `ProviderRuntimeEnvelope`: the provider lane, sequenced like the authority lane. */
export const providerRuntimeEnvelope = z.deferred(() => z.object({ sequence: u64, command: providerRuntimeCommand }));
export type ProviderRuntimeEnvelope = z.output<typeof providerRuntimeEnvelope>;

/** `ProviderRuntimeBindingSnapshot`. */
export const providerRuntimeBindingSnapshot = z.deferred(() =>
  z.object({ binding_id: u64, provider_id: toolProviderId }),
);
export type ProviderRuntimeBindingSnapshot = z.output<typeof providerRuntimeBindingSnapshot>;

/** `ProviderRuntimeSnapshot`. */
export const providerRuntimeSnapshot = z.deferred(() =>
  z.object({
    last_sequence: u64,
    sequence_exhausted: z.boolean(),
    bindings: z.array(providerRuntimeBindingSnapshot),
  }),
);
export type ProviderRuntimeSnapshot = z.output<typeof providerRuntimeSnapshot>;
