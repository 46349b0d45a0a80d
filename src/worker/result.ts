import type { Problem } from "./problem";

/** An expected outcome of a gate step: a value, or a problem tagged by a stable code. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; problem: Problem };

/** Wraps a value. */
export function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

/** Wraps a problem. */
export function fail<T = never>(problem: Problem): Outcome<T> {
  return { ok: false, problem };
}
