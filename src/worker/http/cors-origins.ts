/**
 * A consumer's CORS allow-list as the Worker reads it. The list lives in the consumer's object
 * (its configuration, `cors_origins`); a browser's preflight carries no credential, so the
 * Worker must neither wake an object for every preflight nor create one for a name nobody
 * configured. Each isolate keeps what it read for {@link CORS_ORIGINS_TTL_MS} (at most
 * {@link CORS_ORIGINS_CACHED} consumers, least recently used forgotten first, unknown names
 * included); on a miss it asks the directory whether the consumer exists, and only then the
 * consumer's object (one cheap RPC that reads its configuration from memory). A
 * `PUT /v1/consumers/{consumer}` through this isolate forgets its entry at once; other isolates
 * see a change within the TTL. Without a DIRECTORY binding no consumer allows an origin.
 * @module
 */
import { ConsumerName } from "../../contracts/consumer";
import { DIRECTORY_CURSOR, DIRECTORY_NAME } from "../features/directory/directory-object";
import type { Env } from "../env";
import { LruMap } from "../lru";
import { objectRpc } from "../kernel/object-rpc";

/** How long an isolate trusts an allow-list it read (a removed origin is honoured at most this long). */
export const CORS_ORIGINS_TTL_MS = 30_000;
/** Consumers whose allow-lists one isolate keeps. */
export const CORS_ORIGINS_CACHED = 1024;

const NONE: readonly string[] = Object.freeze([]);
const cache = new LruMap<string, { readonly origins: readonly string[]; readonly until: number }>(CORS_ORIGINS_CACHED);

/** Consumers whose allow-lists this isolate holds now (at most {@link CORS_ORIGINS_CACHED}). */
export function corsOriginsHeld(): number {
  return cache.size;
}

/**
 * Whether the directory recorded `consumer`: it accepts a list cursor naming a consumer only
 * when that consumer is recorded (directory-object.ts `page`), so a one-item page says it.
 */
async function recorded(env: Env, consumer: string): Promise<boolean> {
  if (env.DIRECTORY === undefined) return false;
  const directory = env.DIRECTORY.get(env.DIRECTORY.idFromName(DIRECTORY_NAME));
  return (await directory.page(DIRECTORY_CURSOR.encode(consumer), 1)).ok;
}

async function read(env: Env, consumer: string): Promise<readonly string[]> {
  if (!ConsumerName.safeParse(consumer).success || !(await recorded(env, consumer))) return NONE;
  return Object.freeze(await objectRpc(env.CONSUMER.get(env.CONSUMER.idFromName(consumer))).corsOrigins());
}

/**
 * The origins `consumer` allows (empty for an unknown or malformed name), from this isolate's
 * cache when fresh. An object that cannot answer now (overloaded, restarting) allows nothing for
 * this request, and nothing is cached: the answer it was part of is never turned into an error.
 */
export async function corsOriginsOf(env: Env, consumer: string): Promise<readonly string[]> {
  const now = Date.now();
  const hit = cache.get(consumer);
  if (hit !== undefined && hit.until > now) return hit.origins;
  let origins: readonly string[];
  try {
    origins = await read(env, consumer);
  } catch {
    return NONE;
  }
  cache.set(consumer, { origins, until: now + CORS_ORIGINS_TTL_MS });
  return origins;
}

/** Forgets a consumer's cached allow-list (its configuration changed through this isolate). */
export function forgetCorsOrigins(consumer: string): void {
  cache.delete(consumer);
}
