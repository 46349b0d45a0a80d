import { problem, problemResponse } from "./problem";
import type { Outcome } from "../result";
import type { AdminCall } from "../features/consumers/admin-call";
import { carried, type Carried } from "../kernel/rpc";
import type { ConsumerVariables } from "./middleware";

/** Answers an object's outcome: its JSON text as-is (`null`: 204), or the problem. */
export function respond(outcome: Outcome<string | null>, status: 200 | 201 = 200): Response {
  if (!outcome.ok) return problemResponse(outcome.error);
  if (outcome.value === null) return new Response(null, { status: 204 });
  return new Response(outcome.value, { status, headers: { "content-type": "application/json" } });
}

/**
 * A validated body as the object receives it: the value itself (RPC clones it; see
 * object/rpc.ts for the reader's integral floats), so the object never reads the text again.
 */
export function valueForObject<T>(value: T): Carried<T> | Response {
  const carry = carried(value);
  return "outside" in carry ? problemResponse(problem("INVALID_REQUEST", carry.outside)) : carry;
}

/**
 * Sends the body a route read and validated to the object as a value ({@link valueForObject})
 * and answers the object's outcome ({@link respond}).
 */
export async function sendBody<T>(
  body: T,
  send: (value: Carried<T>) => Promise<Outcome<string | null>>,
  status: 200 | 201 = 200,
): Promise<Response> {
  const value = valueForObject(body);
  return value instanceof Response ? value : respond(await send(value), status);
}

/** One admin call on the consumer's object (consumer/admin-call.ts), answered by {@link respond}. */
export async function adminCall(gate: ConsumerVariables, call: AdminCall, status: 200 | 201 = 200): Promise<Response> {
  return respond(await gate.object.admin(gate.consumer, call), status);
}
