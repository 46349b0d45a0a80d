/**
 * Operations of the capability engine as data (the HTTP/scenario body contract) and
 * the reducer that applies them. Encoding follows the crate: externally tagged,
 * kebab-case operation names, snake_case fields. Outcomes are the core `Result`; the wire
 * writes them in serde's encoding through `wire-outcome.ts`.
 * @module
 */
import * as z from "../zod";
import type { CapabilityEngineState } from "./state";
import { ok, type Result } from "../result";
import type { CapabilityError } from "./errors";
import { applyAuthority, registerProvider } from "./engine/authority";
import {
  advanceTime,
  detachProviderRuntime,
  removeInstance,
  setGeneration,
  setInstanceState,
} from "./engine/lifecycle";
import { applyObservation } from "./engine/observation";
import { request } from "./engine/request";
import { applyProviderRuntime, boundRequest, drainBoundEffects } from "./engine/runtime";
import {
  drainCompletions,
  drainEffects,
  instanceIds,
  providerDescriptor,
  providerRuntimeSnapshot,
  requestSnapshot,
  snapshot,
} from "./engine/queries";
import { capabilityObservationEnvelope, providerRuntimeEnvelope, toolInstanceState } from "./wire-invocation";
import {
  capabilityProviderDescriptor,
  capabilityRequestKey,
  consumerBoundCapabilityRequest,
  providerBoundCapabilityRequest,
  toolAuthorityEnvelope,
} from "./wire-policy";
import { toolProviderId, u64, variant } from "./wire-scalars";

/** Names of operations that take no argument (encoded as bare strings). */
export const UNIT_OPERATIONS = [
  "drain-effects",
  "drain-bound-effects",
  "drain-completions",
  "snapshot",
  "instance-ids",
  "provider-runtime-snapshot",
] as const;

/** An engine operation. */
export const capabilityOperation = z.deferred(() =>
  z.union([
    z.enum(UNIT_OPERATIONS),
    variant("register-provider", z.object({ descriptor: capabilityProviderDescriptor })),
    variant("authority", toolAuthorityEnvelope),
    variant("request", consumerBoundCapabilityRequest),
    variant("bound-request", providerBoundCapabilityRequest),
    variant("advance-time", z.object({ tick: u64 })),
    variant("set-generation", z.object({ instance_id: u64, generation: u64 })),
    variant("set-instance-state", z.object({ instance_id: u64, generation: u64, state: toolInstanceState })),
    variant("remove-instance", z.object({ instance_id: u64 })),
    variant("detach-provider-runtime", z.object({ provider_id: toolProviderId })),
    variant("observe", capabilityObservationEnvelope),
    variant("provider-runtime", providerRuntimeEnvelope),
    variant("request-snapshot", z.object({ key: capabilityRequestKey })),
    variant("provider-descriptor", z.object({ provider_id: toolProviderId })),
    variant("provider-exists", z.object({ provider_id: toolProviderId })),
  ]),
);
export type CapabilityOperation = z.output<typeof capabilityOperation>;

/** The name of an operation (its tag). */
export function operationName(operation: CapabilityOperation): string {
  return typeof operation === "string" ? operation : (Object.keys(operation)[0] as string);
}

/**
 * Applies one operation to `state` IN PLACE and returns its outcome. Every failing
 * operation leaves the state untouched (checks precede mutations), except where the
 * spec says otherwise (an expired approval, provider-lane sequence consumption).
 */
export function applyInPlace(
  state: CapabilityEngineState,
  operation: CapabilityOperation,
): Result<unknown, CapabilityError> {
  if (typeof operation === "string") {
    switch (operation) {
      case "drain-effects":
        return ok(drainEffects(state));
      case "drain-bound-effects":
        return drainBoundEffects(state);
      case "drain-completions":
        return ok(drainCompletions(state));
      case "snapshot":
        return ok(snapshot(state));
      case "instance-ids":
        return ok(instanceIds(state));
      case "provider-runtime-snapshot":
        return ok(providerRuntimeSnapshot(state));
    }
  }
  if ("register-provider" in operation) return registerProvider(state, operation["register-provider"].descriptor);
  if ("authority" in operation) return applyAuthority(state, operation.authority);
  if ("request" in operation) return request(state, operation.request);
  if ("bound-request" in operation) return boundRequest(state, operation["bound-request"]);
  if ("advance-time" in operation) return advanceTime(state, operation["advance-time"].tick);
  if ("set-generation" in operation) {
    const { instance_id, generation } = operation["set-generation"];
    return setGeneration(state, instance_id, generation);
  }
  if ("set-instance-state" in operation) {
    const { instance_id, generation, state: next } = operation["set-instance-state"];
    return setInstanceState(state, instance_id, generation, next);
  }
  if ("remove-instance" in operation) return removeInstance(state, operation["remove-instance"].instance_id);
  if ("detach-provider-runtime" in operation)
    return detachProviderRuntime(state, operation["detach-provider-runtime"].provider_id);
  if ("observe" in operation) return applyObservation(state, operation.observe);
  if ("provider-runtime" in operation) return applyProviderRuntime(state, operation["provider-runtime"]);
  if ("request-snapshot" in operation) return ok(requestSnapshot(state, operation["request-snapshot"].key));
  if ("provider-descriptor" in operation)
    return ok(providerDescriptor(state, operation["provider-descriptor"].provider_id));
  return ok(providerDescriptor(state, operation["provider-exists"].provider_id) !== null);
}

/** Pure reducer: returns a new state and the outcome; the input state is not modified. */
export function apply(
  state: CapabilityEngineState,
  operation: CapabilityOperation,
): { state: CapabilityEngineState; outcome: Result<unknown, CapabilityError> } {
  const next = structuredClone(state);
  const outcome = applyInPlace(next, operation);
  return { state: next, outcome };
}
