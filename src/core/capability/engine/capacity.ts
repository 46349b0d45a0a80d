/**
 * Capacity preflights: each answers the engine error that refuses an operation before it
 * changes anything, or null when there is room.
 * @module
 */
import { isTerminal } from "./core";
import type { CapabilityError } from "../errors";
import { TOOL_EFFECTS_MAX, TOOL_REQUESTS_MAX, U64_MAX } from "../limits";
import type { CapabilityEngineState } from "../state";

/** Makes room for a new request key by evicting the oldest terminal record. */
export function ensureRequestCapacity(state: CapabilityEngineState): CapabilityError | null {
  if (state.requests.length < TOOL_REQUESTS_MAX) return null;
  let oldest = -1;
  state.requests.forEach((record, index) => {
    if (!isTerminal(record)) return;
    const candidate = state.requests[oldest];
    if (candidate === undefined || record.snapshot.accepted_sequence < candidate.snapshot.accepted_sequence)
      oldest = index;
  });
  if (oldest < 0) return "request-capacity-exceeded";
  state.requests.splice(oldest, 1);
  return null;
}

/** Effect-queue preflight for `additional` new effects. */
export function ensureEffectCapacity(state: CapabilityEngineState, additional: number): CapabilityError | null {
  if (state.effect_sequence_exhausted) return "effect-sequence-exhausted";
  return additional <= Math.max(0, TOOL_EFFECTS_MAX - state.effects.length) ? null : "effect-capacity-exceeded";
}

/** Operation-id preflight: the id `u64::MAX` is never allocated. */
export function ensureOperationCapacity(state: CapabilityEngineState): CapabilityError | null {
  return state.next_operation_id === U64_MAX ? { "counter-exhausted": { counter: "tool operation id" } } : null;
}
