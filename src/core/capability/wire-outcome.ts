/**
 * The capability wire's result encoding. The engine returns the core `Result`; peers of the
 * wire (providers, scenario files) speak serde's `Result` encoding, `{"Ok": value}` or
 * `{"Err": error}`, so this codec is the one place the two meet.
 * @module
 */
import { err, ok, type Result } from "../result";
import type { CapabilityError } from "./errors";

/** An operation's result as the wire carries it: serde's `Result` encoding. */
export type WireOutcome<T> = { Ok: T } | { Err: CapabilityError };

/** Encodes an engine result for the wire. */
export function toWireOutcome<T>(result: Result<T, CapabilityError>): WireOutcome<T> {
  return result.ok ? { Ok: result.value } : { Err: result.error };
}

/** Decodes a wire outcome back into the engine's result. */
export function fromWireOutcome<T>(outcome: WireOutcome<T>): Result<T, CapabilityError> {
  return "Ok" in outcome ? ok(outcome.Ok) : err(outcome.Err);
}
