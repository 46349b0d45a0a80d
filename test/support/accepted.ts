import type { Result } from "../../src/core/result";

/** The value of a result the test expects to succeed; a failure fails the test with its error. */
export function accepted<T, E>(result: Result<T, E>): T {
  if (!result.ok) throw new Error(`expected a value, got ${JSON.stringify(result.error)}`);
  return result.value;
}
