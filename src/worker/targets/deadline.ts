/**
 * A call's deadline: a signal that aborts with a `TimeoutError` after `ms`, as
 * `AbortSignal.timeout(ms)` does, and that can be cleared once the call is over. A signal of
 * `AbortSignal.timeout` keeps its timer until it fires, so every downstream call left one behind
 * for its whole timeout: the object woke up again seconds after answering, only to abort a
 * request that had long ended. Clear it in a `finally` once the answer is read.
 * @module
 */

/** A deadline and the means to drop it. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Drops the timer (the call ended); the signal then never aborts. Idempotent. */
  clear(): void;
}

/** A deadline `ms` from now. */
export function deadline(ms: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException("The operation timed out.", "TimeoutError")), ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
