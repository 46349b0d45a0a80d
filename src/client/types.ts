/**
 * Wire shapes the client handles. A u64 arrives as a number, or as a bigint beyond
 * 2^53 − 1; either may be sent.
 * @module
 */

/** An unsigned 64-bit integer on the wire. */
export type U64 = number | bigint;

/** `CapabilityRequestKey`. */
export interface RequestKey {
  consumer_id: string;
  actor_id: string;
  local_id: U64;
}

/** The `invoke` or `cancel` effect inside an envelope. */
export type CapabilityEffect =
  | { invoke: { consumer_id: string; actor_id: string; capability_id: string; resource_scope_id: string; payload: number[] } }
  | { cancel: { reason: string } };

/** `ProviderBoundCapabilityEffectEnvelope`. */
export interface BoundEffect {
  binding_id: U64;
  effect: {
    sequence: U64;
    operation_id: U64;
    request_key: RequestKey;
    instance_id: U64;
    generation: U64;
    provider_id: string;
    deadline_tick: U64;
    effect: CapabilityEffect;
  };
}

/** `CapabilityObservation`: what the provider reports. */
export type CapabilityObservation =
  | {
      succeeded: {
        result: {
          metadata: { byte_len: U64; media_type: string | null; truncated: boolean; redacted_summary: string | null };
          delivery: { inline: { bytes: number[] } } | { "opaque-reference": { reference: string } };
        };
      };
    }
  | { failed: { failure: { kind: string; redacted_message: string | null } } };

/** `CapabilityObservationEnvelope`. */
export interface ObservationEnvelope {
  operation_id: U64;
  request_key: RequestKey;
  instance_id: U64;
  generation: U64;
  provider_id: string;
  observation: CapabilityObservation;
}

/** `CapabilityRequestInput` (the agent's request; the gate fills the consumer). */
export interface CapabilityRequestInput {
  local_id: U64;
  instance_id: U64;
  generation: U64;
  provider_id: string;
  capability_id: string;
  resource_scope_id: string;
  approval_summary: string;
  /** Absolute deadline in gate ticks (milliseconds of the gate's clock). */
  deadline_tick: U64;
  payload: number[];
}

/** The answer to a capability request. */
export interface CapabilityDecision {
  request_key: RequestKey;
  accepted_sequence: U64 | null;
  decision: "allow" | "require-approval" | { deny: unknown };
  /** The gate's tick when it decided. */
  tick: U64;
}

/** `CapabilityCompletionEnvelope`. */
export interface CapabilityCompletion {
  sequence: U64;
  accepted_sequence: U64;
  operation_id: U64 | null;
  request_key: RequestKey;
  instance_id: U64;
  generation: U64;
  provider_id: string;
  outcome: unknown;
}

/** `CapabilityCompletionBatch`. */
export interface CompletionBatch {
  completions: CapabilityCompletion[];
  dropped_since_last_drain: U64;
  total_dropped: U64;
  next_sequence: U64;
  sequence_exhausted: boolean;
}
