import type { Result } from "../core/result";
import type { Problem } from "./http/problem";

/** An expected outcome of a gate step: a value, or a problem tagged by a stable code. */
export type Outcome<T> = Result<T, Problem>;

export { ok, err as fail } from "../core/result";
