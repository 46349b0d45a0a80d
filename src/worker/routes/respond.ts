import { canonicalJson, JsonDomainError } from "../../core/json";
import { problem, problemResponse } from "../problem";
import type { Outcome } from "../result";
import { carried, type Carried } from "../object/rpc";

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

/**
 * A validated body as the object receives it: the value itself (RPC clones it; see
 * object/rpc.ts for the reader's integral floats), so the object never reads the text again.
 */
export function valueForObject<T>(value: T): Carried<T> | Response {
  const carry = carried(value);
  return "outside" in carry ? problemResponse(problem("INVALID_REQUEST", carry.outside)) : carry;
}
