/**
 * `CapabilityEngine`: a mutable wrapper over the plain state for hosts that apply many
 * operations in a row (the pure `apply` clones the state on every call).
 * @module
 */
import { initialState, type CapabilityEngineState } from "../state";
import { decodeState, encodeState, type StateDecodeError } from "../state-codec";
import { applyInPlace, type CapabilityOperation } from "../operation";
import type { Result } from "../../result";
import type { CapabilityError } from "../errors";

/** A capability engine holding its state; `state` is plain data at all times. */
export class CapabilityEngine {
  /** The current state; persist it with {@link CapabilityEngine.encode}. */
  state: CapabilityEngineState;

  constructor(state: CapabilityEngineState = initialState()) {
    this.state = state;
  }

  /** Applies one operation and returns its outcome. */
  apply(operation: CapabilityOperation): Result<unknown, CapabilityError> {
    return applyInPlace(this.state, operation);
  }

  /** Lossless JSON of the current state. */
  encode(): string {
    return encodeState(this.state);
  }

  /** Restores an engine from {@link CapabilityEngine.encode} output. */
  static decode(
    input: Uint8Array | string,
  ): { ok: true; engine: CapabilityEngine } | { ok: false; error: StateDecodeError } {
    const decoded = decodeState(input);
    return decoded.ok ? { ok: true, engine: new CapabilityEngine(decoded.state) } : decoded;
  }
}
