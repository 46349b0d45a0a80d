/**
 * The engine's complete state as plain data: everything upstream keeps in its
 * `ToolEngine` plus the kernel's provider-runtime bindings. Unlike the snapshot it is a
 * full image (queues, counters, stored payloads), so it can be persisted and restored.
 * Ordered maps are arrays kept sorted by their Rust key order.
 * @module
 */
import type {
  CapabilityCompletionEnvelope,
  CapabilityEffectEnvelope,
  ProviderRuntimeBindingSnapshot,
  ToolInstanceState,
} from "./wire-invocation";
import type { CapabilityProviderDescriptor, CapabilityRequestKey, PolicyGrant } from "./wire-policy";
import type { CapabilityRequestSnapshot, ToolAuditEvent } from "./wire-records";

/** The accepted request; the payload is kept only while awaiting approval. */
export interface AcceptedRequest {
  key: CapabilityRequestKey;
  instance_id: bigint;
  generation: bigint;
  provider_id: string;
  capability_id: string;
  resource_scope_id: string;
  approval_summary: string;
  deadline_tick: bigint;
  payload: number[];
}

/** One request: the private accepted request and its public snapshot record. */
export interface RequestRecord {
  request: AcceptedRequest;
  snapshot: CapabilityRequestSnapshot;
}

/** Kernel-side provider runtime authority: bindings and the provider lane sequence. */
export interface ProviderRuntimeState {
  last_sequence: bigint;
  sequence_exhausted: boolean;
  /** Sorted by provider id. */
  bindings: ProviderRuntimeBindingSnapshot[];
}

/** Complete capability engine state. */
export interface CapabilityEngineState {
  revision: bigint;
  current_tick: bigint;
  /** `[instance, generation]`, sorted by instance. */
  generations: [bigint, bigint][];
  /** `[instance, state]`, sorted by instance. */
  instance_states: [bigint, ToolInstanceState][];
  /** Sorted by id; each descriptor's capabilities sorted by id. */
  providers: CapabilityProviderDescriptor[];
  /** Sorted by policy key. */
  grants: PolicyGrant[];
  /** Sorted by request key. */
  requests: RequestRecord[];
  effects: CapabilityEffectEnvelope[];
  completions: CapabilityCompletionEnvelope[];
  /** Oldest first. */
  audit_events: ToolAuditEvent[];
  dropped_audit_events: bigint;
  revision_overflow_count: bigint;
  dropped_completions: bigint;
  dropped_completions_since_drain: bigint;
  last_authority_sequence: bigint;
  effect_sequence_exhausted: boolean;
  completion_sequence_exhausted: boolean;
  audit_sequence_exhausted: boolean;
  next_request_sequence: bigint;
  next_operation_id: bigint;
  next_effect_sequence: bigint;
  next_completion_sequence: bigint;
  next_audit_sequence: bigint;
  provider_runtime: ProviderRuntimeState;
}

/** A fresh engine: empty maps, counters at 1, revision and tick at 0. */
export function initialState(): CapabilityEngineState {
  return {
    revision: 0n,
    current_tick: 0n,
    generations: [],
    instance_states: [],
    providers: [],
    grants: [],
    requests: [],
    effects: [],
    completions: [],
    audit_events: [],
    dropped_audit_events: 0n,
    revision_overflow_count: 0n,
    dropped_completions: 0n,
    dropped_completions_since_drain: 0n,
    last_authority_sequence: 0n,
    effect_sequence_exhausted: false,
    completion_sequence_exhausted: false,
    audit_sequence_exhausted: false,
    next_request_sequence: 1n,
    next_operation_id: 1n,
    next_effect_sequence: 1n,
    next_completion_sequence: 1n,
    next_audit_sequence: 1n,
    provider_runtime: { last_sequence: 0n, sequence_exhausted: false, bindings: [] },
  };
}
