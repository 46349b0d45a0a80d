import { canonicalJson, JsonDomainError } from "../../core/json";
import { problem, problemResponse } from "../problem";
import type { Outcome } from "../result";

/** Answers an object's outcome: its JSON text as-is (`null`: 204), or the problem. */
export function respond(outcome: Outcome<string | null>, status: 200 | 201 = 200): Response {
  if (!outcome.ok) return problemResponse(outcome.error);
  if (outcome.value === null) return new Response(null, { status: 204 });
  return new Response(outcome.value, { status, headers: { "content-type": "application/json" } });
}

/**
 * A validated body as canonical JSON text for the object: RPC cannot carry the reader's
 * `PyFloat` (an integral float such as `1.0`), and text keeps it exact.
 */
export function forObject(value: unknown): string | Response {
  try {
    return canonicalJson(value);
  } catch (error) {
    if (error instanceof JsonDomainError) return problemResponse(problem("INVALID_REQUEST", error.message));
    throw error;
  }
}
