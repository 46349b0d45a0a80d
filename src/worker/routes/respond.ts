import { problemResponse } from "../problem";
import type { Outcome } from "../result";

/** Answers an object's outcome: its JSON text as-is (`null`: 204), or the problem. */
export function respond(outcome: Outcome<string | null>, status: 200 | 201 = 200): Response {
  if (!outcome.ok) return problemResponse(outcome.error);
  if (outcome.value === null) return new Response(null, { status: 204 });
  return new Response(outcome.value, { status, headers: { "content-type": "application/json" } });
}
