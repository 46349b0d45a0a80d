/**
 * Clock, instance generations and states, instance removal and provider-runtime detach.
 * @module
 */
import { compareU64, upsertSorted, searchSorted } from "../ordering";
import type { CapabilityEngineState } from "../state";
import { err, ok, type Result } from "../../result";
import type { CapabilityError } from "../errors";
import {
  bumpRevision,
  closeRequest,
  emitAudit,
  generationOf,
  instanceStateOf,
  openRequestKeys,
  providerOf,
} from "./core";
import type { ToolInstanceState } from "../wire-invocation";

/** `advance_time`: moves the clock forward and times out requests whose deadline is reached. */
export function advanceTime(state: CapabilityEngineState, tick: bigint): Result<null, CapabilityError> {
  if (tick < state.current_tick)
    return err({ "clock-regressed": { current_tick: state.current_tick, requested_tick: tick } });
  if (tick === state.current_tick) return ok(null);
  const expired = openRequestKeys(state, (record) => record.request.deadline_tick <= tick);
  state.current_tick = tick;
  for (const key of expired) closeRequest(state, key, { kind: "timed-out" });
  bumpRevision(state);
  return ok(null);
}

function purgeGrants(state: CapabilityEngineState, purge: (instance: bigint, generation: bigint) => boolean): number {
  const before = state.grants.length;
  state.grants = state.grants.filter((grant) => !purge(grant.key.instance_id, grant.key.generation));
  return before - state.grants.length;
}

/** `set_generation`: fences grants and open requests to the new incarnation. */
export function setGeneration(
  state: CapabilityEngineState,
  instance: bigint,
  generation: bigint,
): Result<null, CapabilityError> {
  const previous = generationOf(state, instance);
  if (previous !== undefined) {
    if (generation < previous)
      return err({ "generation-regressed": { instance_id: instance, current: previous, requested: generation } });
    if (generation === previous) return ok(null);
  }
  const purged = purgeGrants(
    state,
    (grantInstance, grantGeneration) => grantInstance === instance && grantGeneration !== generation,
  );
  const targets = openRequestKeys(
    state,
    (record) => record.request.instance_id === instance && record.request.generation !== generation,
  );
  upsertSorted<[bigint, bigint]>(state.generations, [instance, generation], (entry) => compareU64(entry[0], instance));
  if (instanceStateOf(state, instance) === undefined) {
    upsertSorted<[bigint, ToolInstanceState]>(state.instance_states, [instance, "active"], (entry) =>
      compareU64(entry[0], instance),
    );
  }
  for (const key of targets) closeRequest(state, key, { kind: "superseded", current_generation: generation });
  bumpRevision(state);
  emitAudit(state, null, {
    "generation-advanced": {
      instance_id: instance,
      previous: previous ?? null,
      current: generation,
      purged_grant_count: purged,
    },
  });
  return ok(null);
}

/** `set_instance_state`: deactivation purges every grant of the instance and closes its requests. */
export function setInstanceState(
  state: CapabilityEngineState,
  instance: bigint,
  generation: bigint,
  next: ToolInstanceState,
): Result<null, CapabilityError> {
  const current = generationOf(state, instance);
  if (current === undefined) return err({ "unknown-policy-instance": { instance_id: instance } });
  if (current !== generation)
    return err({ "policy-generation-mismatch": { instance_id: instance, current, requested: generation } });
  if (instanceStateOf(state, instance) === next) return ok(null);
  let purged = 0;
  if (next === "inactive") {
    purged = purgeGrants(state, (grantInstance) => grantInstance === instance);
    const targets = openRequestKeys(state, (record) => record.request.instance_id === instance);
    upsertSorted<[bigint, ToolInstanceState]>(state.instance_states, [instance, next], (entry) =>
      compareU64(entry[0], instance),
    );
    for (const key of targets) closeRequest(state, key, { kind: "instance-closed" });
  } else {
    upsertSorted<[bigint, ToolInstanceState]>(state.instance_states, [instance, next], (entry) =>
      compareU64(entry[0], instance),
    );
  }
  bumpRevision(state);
  emitAudit(state, null, {
    "instance-state-changed": { instance_id: instance, generation, state: next, purged_grant_count: purged },
  });
  return ok(null);
}

/** `remove_instance`: false for an unknown instance; terminal records remain. */
export function removeInstance(state: CapabilityEngineState, instance: bigint): Result<boolean, CapabilityError> {
  const previous = generationOf(state, instance);
  if (previous === undefined) return ok(false);
  const purged = purgeGrants(state, (grantInstance) => grantInstance === instance);
  const targets = openRequestKeys(state, (record) => record.request.instance_id === instance);
  for (const key of targets) closeRequest(state, key, { kind: "instance-closed" });
  state.generations.splice(
    searchSorted(state.generations, (entry) => compareU64(entry[0], instance)),
    1,
  );
  const stateIndex = searchSorted(state.instance_states, (entry) => compareU64(entry[0], instance));
  if (stateIndex >= 0) state.instance_states.splice(stateIndex, 1);
  bumpRevision(state);
  emitAudit(state, null, {
    "instance-removed": { instance_id: instance, previous_generation: previous, purged_grant_count: purged },
  });
  return ok(true);
}

/** `detach_provider_runtime`: closes the provider's open requests and purges its queued effects. */
export function detachProviderRuntime(
  state: CapabilityEngineState,
  providerId: string,
): Result<number, CapabilityError> {
  if (providerOf(state, providerId) === undefined)
    return err({ "unknown-runtime-provider": { provider_id: providerId } });
  const targets = openRequestKeys(state, (record) => record.request.provider_id === providerId);
  for (const key of targets) closeRequest(state, key, { kind: "provider-detached" });
  const before = state.effects.length;
  state.effects = state.effects.filter((effect) => effect.provider_id !== providerId);
  if (targets.length > 0 || state.effects.length !== before) bumpRevision(state);
  return ok(targets.length);
}
