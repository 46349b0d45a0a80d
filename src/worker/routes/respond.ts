import { ConsumerName } from "../contracts/consumer";
import type { Env } from "../env";
import type { ConsumerObject } from "../object/consumer-object";
import { problem, problemResponse } from "../problem";
import type { Outcome } from "../result";

/** Answers an object's outcome: its JSON text as-is, or the problem. */
export function respond(outcome: Outcome<string | null>, status: 200 | 201 = 200): Response {
  if (!outcome.ok) return problemResponse(outcome.problem);
  if (outcome.value === null) return new Response(null, { status: 204 });
  return new Response(outcome.value, { status, headers: { "content-type": "application/json" } });
}

/** The consumer's object, or a 404 problem for a name that cannot be a consumer. */
export function consumerStub(env: Env, consumer: string): DurableObjectStub<ConsumerObject> | Response {
  if (!ConsumerName.safeParse(consumer).success) return problemResponse(problem("NOT_FOUND", "No such consumer."));
  return env.CONSUMER.get(env.CONSUMER.idFromName(consumer));
}
