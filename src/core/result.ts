/**
 * The one result shape of the gate: a value, or an expected failure tagged by a stable code
 * (bugs throw). The capability wire keeps serde's `{Ok}` / `{Err}` because its peers speak it.
 * @module
 */

/** A value, or an expected failure. */
export type Result<T, E> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** Wraps a value. */
export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

/** Wraps an expected failure. */
export function err<E>(error: E): { readonly ok: false; readonly error: E } {
  return { ok: false, error };
}
