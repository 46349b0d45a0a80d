/**
 * Snapshot, drains and read-only queries.
 * @module
 */
import type { CapabilityEngineState } from "../state";
import { providerOf, requestOf } from "./core";
import type { CapabilityCompletionBatch, CapabilityEffectEnvelope, ProviderRuntimeSnapshot } from "../wire-invocation";
import type { CapabilityProviderDescriptor, CapabilityRequestKey } from "../wire-policy";
import type { CapabilityRequestSnapshot, ToolEngineSnapshot } from "../wire-records";

/** `snapshot()`: a projection; it holds no payloads, results or queues. */
export function snapshot(state: CapabilityEngineState): ToolEngineSnapshot {
  return structuredClone({
    revision: state.revision,
    current_tick: state.current_tick,
    generations: state.generations,
    instance_states: state.instance_states,
    providers: state.providers,
    grants: state.grants,
    requests: state.requests.map((record) => record.snapshot),
    audit_events: state.audit_events,
    dropped_audit_events: state.dropped_audit_events,
    revision_overflow_count: state.revision_overflow_count,
    next_completion_sequence: state.next_completion_sequence,
    dropped_completions: state.dropped_completions,
    effect_sequence_exhausted: state.effect_sequence_exhausted,
    completion_sequence_exhausted: state.completion_sequence_exhausted,
    audit_sequence_exhausted: state.audit_sequence_exhausted,
  });
}

/** `drain_effects()`: FIFO, queue emptied. */
export function drainEffects(state: CapabilityEngineState): CapabilityEffectEnvelope[] {
  const effects = state.effects;
  state.effects = [];
  return effects;
}

/** `drain_completions()`: FIFO, queue emptied, per-drain drop counter reset. */
export function drainCompletions(state: CapabilityEngineState): CapabilityCompletionBatch {
  const batch = {
    completions: state.completions,
    dropped_since_last_drain: state.dropped_completions_since_drain,
    total_dropped: state.dropped_completions,
    next_sequence: state.next_completion_sequence,
    sequence_exhausted: state.completion_sequence_exhausted,
  };
  state.completions = [];
  state.dropped_completions_since_drain = 0n;
  return batch;
}

/** `request_snapshot(key)`. */
export function requestSnapshot(
  state: CapabilityEngineState,
  key: CapabilityRequestKey,
): CapabilityRequestSnapshot | null {
  const record = requestOf(state, key);
  return record === undefined ? null : structuredClone(record.snapshot);
}

/** `provider_descriptor(id)`: the stored descriptor, capabilities sorted by id. */
export function providerDescriptor(
  state: CapabilityEngineState,
  providerId: string,
): CapabilityProviderDescriptor | null {
  const provider = providerOf(state, providerId);
  return provider === undefined ? null : structuredClone(provider);
}

/** `instance_ids()`: ascending. */
export function instanceIds(state: CapabilityEngineState): bigint[] {
  return state.generations.map((entry) => entry[0]);
}

/** The kernel's provider-runtime snapshot (bindings ascending by provider id). */
export function providerRuntimeSnapshot(state: CapabilityEngineState): ProviderRuntimeSnapshot {
  return structuredClone(state.provider_runtime);
}
