/**
 * Wire shapes the client handles, derived from the gate's own zod contracts (the capability
 * core's `wire-*.ts` and `src/contracts/*.ts`), so a contract change reaches the client's types.
 * Only types are imported: zod and the core's validators stay out of the client bundle.
 *
 * What the client sends is the contract's input (`z.input`: a u64 there already accepts a
 * number or a bigint). What it receives is the contract's output as it arrives on the wire
 * ({@link Wire}): the contract holds every u64 as a bigint, but the client's reader yields a
 * number for a safe integer and a bigint only beyond 2^53 − 1.
 * @module
 */
import type * as z from "../core/zod";
import type {
  capabilityCompletionBatch,
  capabilityCompletionEnvelope,
  capabilityEffect,
  capabilityObservation,
  capabilityObservationEnvelope,
  capabilityRequestInput,
  capabilityRequestKey,
  capabilityRequestSnapshot,
  policyDecision,
  providerBoundCapabilityEffectEnvelope,
  toolAuthorityOutcome,
} from "../core/capability";

/** An unsigned 64-bit integer on the wire: a number, or a bigint beyond 2^53 − 1. */
export type U64 = number | bigint;

/**
 * A contract's output as the client reads it off the wire: each bigint (a u64) becomes a
 * {@link U64}, recursively through objects, arrays and tuples.
 */
export type Wire<T> = T extends bigint ? U64 : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;

/** `CapabilityRequestKey` (`capabilityRequestKey`). */
export type RequestKey = Wire<z.output<typeof capabilityRequestKey>>;

/** `CapabilityEffect` (`capabilityEffect`): the `invoke` or `cancel` inside an envelope. */
export type CapabilityEffect = Wire<z.output<typeof capabilityEffect>>;

/** `ProviderBoundCapabilityEffectEnvelope` (`providerBoundCapabilityEffectEnvelope`). */
export type BoundEffect = Wire<z.output<typeof providerBoundCapabilityEffectEnvelope>>;

/** `CapabilityObservation` (`capabilityObservation`): what a provider reports. */
export type CapabilityObservation = z.input<typeof capabilityObservation>;

/** `CapabilityObservationEnvelope` (`capabilityObservationEnvelope`): an observation as sent. */
export type ObservationEnvelope = z.input<typeof capabilityObservationEnvelope>;

/** `CapabilityRequestInput` (`capabilityRequestInput`): the agent's request; the gate fills the consumer. */
export type CapabilityRequestInput = z.input<typeof capabilityRequestInput>;

/** `CapabilityRequestSnapshot` (`capabilityRequestSnapshot`): a request's public record. */
export type CapabilityRequestSnapshot = Wire<z.output<typeof capabilityRequestSnapshot>>;

/**
 * The answer to a capability request. The gate assembles this envelope (no contract of its
 * own); its parts are the engine's.
 */
export interface CapabilityDecision {
  request_key: RequestKey;
  /** Null when the engine did not keep the request. */
  accepted_sequence: U64 | null;
  /** `PolicyDecision` (`policyDecision`); a denial is a successful answer. */
  decision: Wire<z.output<typeof policyDecision>>;
  /** The gate's tick when it decided. */
  tick: U64;
}

/** The answer to an authority command: its lane sequence and `ToolAuthorityOutcome` (`toolAuthorityOutcome`). */
export interface AuthorityAnswer {
  sequence: U64;
  outcome: Wire<z.output<typeof toolAuthorityOutcome>>;
}

/** `CapabilityCompletionEnvelope` (`capabilityCompletionEnvelope`). */
export type CapabilityCompletion = Wire<z.output<typeof capabilityCompletionEnvelope>>;

/** `CapabilityCompletionBatch` (`capabilityCompletionBatch`). */
export type CompletionBatch = Wire<z.output<typeof capabilityCompletionBatch>>;
