/**
 * The provider-runtime lane (the kernel's binding and sequence authority) and the
 * binding checks a provider-bound request passes before it reaches the engine.
 * @module
 */
import { U64_MAX } from "../limits";
import { compareStrings, searchSorted, upsertSorted } from "../ordering";
import type { CapabilityEngineState } from "../state";
import { err, ok, type Result } from "../../result";
import type { CapabilityError } from "../errors";
import { providerOf } from "./core";
import { detachProviderRuntime } from "./lifecycle";
import { applyObservation } from "./observation";
import { request } from "./request";
import { validateProviderBinding, validateProviderRuntimeEnvelope } from "../validate";
import type { ProviderBoundCapabilityEffectEnvelope, ProviderRuntimeEnvelope } from "../wire-invocation";
import type { CapabilityRequestKey, PolicyDecision, ProviderBoundCapabilityRequest } from "../wire-policy";
import type { ObservationIgnoredReason } from "../wire-records";

/** What a provider-runtime envelope achieved. */
export type ProviderRuntimeTransition =
  | "attached"
  | { detached: { closed_request_count: number } }
  | { "observation-applied": { operation_id: bigint; request_key: CapabilityRequestKey } }
  | {
      "observation-ignored": {
        operation_id: bigint;
        request_key: CapabilityRequestKey;
        reason: ObservationIgnoredReason;
      };
    };

function bindingIndex(state: CapabilityEngineState, providerId: string): number {
  return searchSorted(state.provider_runtime.bindings, (binding) => compareStrings(binding.provider_id, providerId));
}

/** Current binding id of a provider, or undefined. */
export function bindingOf(state: CapabilityEngineState, providerId: string): bigint | undefined {
  const index = bindingIndex(state, providerId);
  return index >= 0 ? state.provider_runtime.bindings[index]?.binding_id : undefined;
}

function requireBinding(state: CapabilityEngineState, providerId: string, requested: bigint): CapabilityError | null {
  const current = bindingOf(state, providerId);
  if (current === undefined) return { "not-attached": { provider_id: providerId } };
  if (current !== requested) return { "binding-mismatch": { provider_id: providerId, current, requested } };
  return null;
}

function reduce(
  state: CapabilityEngineState,
  envelope: ProviderRuntimeEnvelope,
): Result<ProviderRuntimeTransition, CapabilityError> {
  const invalid = validateProviderRuntimeEnvelope(envelope);
  if (invalid !== null) return err({ validation: invalid });
  const lane = state.provider_runtime;
  if (lane.sequence_exhausted) return err("sequence-exhausted");
  if (envelope.sequence <= lane.last_sequence)
    return err({ "sequence-regressed": { current: lane.last_sequence, requested: envelope.sequence } });
  // Consumed from here on: every later failure still burns the sequence.
  lane.last_sequence = envelope.sequence;
  if (envelope.sequence === U64_MAX) lane.sequence_exhausted = true;
  const command = envelope.command;
  if ("attach" in command) {
    const { binding_id, provider_id } = command.attach;
    if (binding_id !== envelope.sequence)
      return err({ "invalid-attach-binding": { sequence: envelope.sequence, binding_id } });
    if (providerOf(state, provider_id) === undefined) return err({ "unknown-provider": { provider_id } });
    const current = bindingOf(state, provider_id);
    if (current !== undefined) return err({ "already-attached": { provider_id, binding_id: current } });
    upsertSorted(lane.bindings, { binding_id, provider_id }, (binding) =>
      compareStrings(binding.provider_id, provider_id),
    );
    return ok("attached");
  }
  if ("detach" in command) {
    const { binding_id, provider_id } = command.detach;
    if (providerOf(state, provider_id) === undefined) return err({ "unknown-provider": { provider_id } });
    const mismatch = requireBinding(state, provider_id, binding_id);
    if (mismatch !== null) return err(mismatch);
    const closed = detachProviderRuntime(state, provider_id);
    if (!closed.ok) return closed;
    lane.bindings.splice(bindingIndex(state, provider_id), 1);
    return ok({ detached: { closed_request_count: closed.value } });
  }
  const { binding_id, observation } = command.observe;
  const provider_id = observation.provider_id;
  if (providerOf(state, provider_id) === undefined) return err({ "unknown-provider": { provider_id } });
  const mismatch = requireBinding(state, provider_id, binding_id);
  if (mismatch !== null) return err(mismatch);
  const disposition = applyObservation(state, observation);
  if (!disposition.ok) return disposition;
  const correlation = { operation_id: observation.operation_id, request_key: observation.request_key };
  if (disposition.value === "applied") return ok({ "observation-applied": correlation });
  return ok({ "observation-ignored": { ...correlation, reason: disposition.value.ignored.reason } });
}

/** Reduces one provider-runtime envelope; once the lane is exhausted every binding is retired. */
export function applyProviderRuntime(
  state: CapabilityEngineState,
  envelope: ProviderRuntimeEnvelope,
): Result<ProviderRuntimeTransition, CapabilityError> {
  let result = reduce(state, envelope);
  if (state.provider_runtime.sequence_exhausted) {
    for (const binding of [...state.provider_runtime.bindings]) {
      const detached = detachProviderRuntime(state, binding.provider_id);
      if (!detached.ok) {
        result = detached;
        break;
      }
      state.provider_runtime.bindings.splice(bindingIndex(state, binding.provider_id), 1);
    }
  }
  return result;
}

/** A request through the kernel: a registered provider must be attached with exactly this binding. */
export function boundRequest(
  state: CapabilityEngineState,
  bound: ProviderBoundCapabilityRequest,
): Result<PolicyDecision, CapabilityError> {
  const invalid = validateProviderBinding(bound);
  if (invalid !== null) return err({ validation: invalid });
  const provider_id = bound.request.request.provider_id;
  // An unregistered provider ignores the binding; the engine denies it as unknown-provider.
  if (providerOf(state, provider_id) !== undefined) {
    const current = bindingOf(state, provider_id);
    if (current === undefined) return err({ "provider-unavailable": { provider_id } });
    if (bound.provider_binding_id !== current) {
      return err({ "provider-binding-mismatch": { provider_id, current, requested: bound.provider_binding_id } });
    }
  }
  return request(state, bound.request);
}

/**
 * Drains the effect queue and binds each effect to its provider's current binding.
 * If one provider is unbound, none are released (the drained effects are lost and the
 * requests stay dispatched until they time out), as the kernel does.
 */
export function drainBoundEffects(
  state: CapabilityEngineState,
): Result<ProviderBoundCapabilityEffectEnvelope[], CapabilityError> {
  const effects = state.effects;
  state.effects = [];
  const bound: ProviderBoundCapabilityEffectEnvelope[] = [];
  for (const effect of effects) {
    const binding_id = bindingOf(state, effect.provider_id);
    if (binding_id === undefined) {
      return err({
        "tool-effect-provider-unbound": { operation_id: effect.operation_id, provider_id: effect.provider_id },
      });
    }
    bound.push({ binding_id, effect });
  }
  return ok(bound);
}
