import type { MiddlewareHandler } from "hono";
import { adminMay, type Operation } from "../../contracts/access";
import { ConsumerName } from "../../contracts/consumer";
import type * as z from "../../core/zod";
import { isAdmin, credentialOf } from "./auth";
import { readBody, type BodyOptions } from "./body";
import type { Env } from "../env";
import type { ConsumerObject } from "../kernel/consumer-object";
import { objectRpc, type ObjectRpc } from "../kernel/object-rpc";
import { LruMap } from "../lru";
import { problem, problemResponse, UNAUTHENTICATED } from "./problem";

/** What the consumer prologue leaves for a route: who calls, and the consumer's object. */
export interface ConsumerVariables {
  /** The caller's bearer token; `null` for the admin secret (checked here). */
  token: string | null;
  /** The consumer named by the path. */
  consumer: string;
  stub: DurableObjectStub<ConsumerObject>;
  /** The consumer object's RPC operations (../kernel/operations). */
  object: ObjectRpc;
}

/** The Hono environment of the gate's routes. */
export type GateEnv = { Bindings: Env; Variables: ConsumerVariables };

/** The body a {@link jsonBody} middleware validated. */
export type BodyEnv<T> = { Bindings: Env; Variables: { body: T } };

/** Consumer names the isolate has seen, with their objects' ids (an id is a pure function of the name). */
export const CONSUMER_IDS_CACHED = 1024;
const consumerIds = new WeakMap<DurableObjectNamespace<ConsumerObject>, LruMap<string, DurableObjectId>>();

/** The id of a consumer's object, or `null` for a name outside the contract (validated once per name). */
function consumerId(namespace: DurableObjectNamespace<ConsumerObject>, consumer: string): DurableObjectId | null {
  let ids = consumerIds.get(namespace);
  if (ids === undefined) consumerIds.set(namespace, (ids = new LruMap(CONSUMER_IDS_CACHED)));
  let id = ids.get(consumer);
  if (id === undefined) {
    if (!ConsumerName.safeParse(consumer).success) return null;
    id = namespace.idFromName(consumer);
    ids.set(consumer, id);
  }
  return id;
}

/** Consumer names whose object ids this isolate holds for a namespace (at most {@link CONSUMER_IDS_CACHED}). */
export function consumerIdsHeld(namespace: DurableObjectNamespace<ConsumerObject>): number {
  return consumerIds.get(namespace)?.size ?? 0;
}

export function stubOf(env: Env, consumer: string): DurableObjectStub<ConsumerObject> | null {
  const id = consumerId(env.CONSUMER, consumer);
  return id === null ? null : env.CONSUMER.get(id);
}

/** The RPC operations of a consumer's object, or `null` for a name outside the contract. */
export function objectOf(env: Env, consumer: string): ObjectRpc | null {
  const stub = stubOf(env, consumer);
  return stub === null ? null : objectRpc(stub);
}

/**
 * The consumer prologue for an operation of the access table: the caller, then the consumer's
 * object. Admin-service operations take the admin secret only (checked here, constant-time);
 * every other operation takes a well-formed consumer credential (its secret, kind and
 * revocation are checked by the object), or the admin secret where the table allows it.
 */
export function consumerGate(operation: Operation, options: { secretOnly?: boolean } = {}): MiddlewareHandler<GateEnv> {
  return async function consumerGate(c, next) {
    const consumer = c.req.param("consumer") ?? "";
    let token: string | null;
    if (adminMay(operation) && isAdmin(c)) token = null;
    else if (options.secretOnly === true) return problemResponse(UNAUTHENTICATED);
    else {
      const credential = credentialOf(c, consumer);
      if (credential === null) return problemResponse(UNAUTHENTICATED);
      token = credential.token;
    }
    const stub = stubOf(c.env, consumer);
    if (stub === null) return problemResponse(problem("NOT_FOUND", "No such consumer."));
    c.set("token", token);
    c.set("consumer", consumer);
    c.set("stub", stub);
    c.set("object", objectRpc(stub));
    await next();
  };
}

/** Reads the request body once: media type, size cap, no BOM, the strict reader, one contract. */
export function jsonBody<S extends z.ZodMiniType>(
  schema: S,
  options: BodyOptions = {},
): MiddlewareHandler<BodyEnv<z.output<S>>> {
  return async function jsonBody(c, next) {
    const body = await readBody(c.req.raw, schema, options);
    if (!body.ok) return problemResponse(body.error);
    c.set("body", body.value);
    await next();
  };
}

/** The credential token of a route that runs after {@link consumerGate} for a credential-only operation. */
export function credentialToken(token: string | null): string {
  if (token === null) throw new Error("a credential-only operation passed the gate with the admin secret");
  return token;
}
