/**
 * Run before each file of the workerd project (vitest.config.ts "worker"), whose files share one
 * workerd per pool worker (`isolate: false`): each file starts as if its workerd were new. Every
 * Durable Object's storage is deleted and every object restarted (the pool's `reset`), the KV
 * namespace and the R2 buckets are emptied, and each scripted downstream the project provides
 * (`inject("downstreams")`: their `_control` URLs, and the `DOWNSTREAM` binding when bound) is
 * reset to its first state.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, reset as deleteAllObjects } from "cloudflare:test";
import { beforeAll, inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The scripted downstreams' `_control` URLs, reached through the project's outbound service. */
    downstreams: string[];
  }
}

/** Deletes every key of a KV namespace. */
async function emptyKv(kv: KVNamespace): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await kv.list(cursor === undefined ? {} : { cursor });
    await Promise.all(page.keys.map((key) => kv.delete(key.name)));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
}

/** Deletes every object of an R2 bucket. */
async function emptyBucket(bucket: R2Bucket): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await bucket.list(cursor === undefined ? {} : { cursor });
    if (page.objects.length > 0) await bucket.delete(page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
}

/** Posts `{"reset":true}` to a downstream's control URL; anything but 200 is a broken setup. */
async function resetDownstream(control: string, via: (request: Request) => Promise<Response> = fetch): Promise<void> {
  const res = await via(
    new Request(control, { method: "POST", headers: { "content-type": "application/json" }, body: '{"reset":true}' }),
  );
  await res.body?.cancel();
  if (res.status !== 200) throw new Error(`resetting ${control} answered ${res.status}`);
}

beforeAll(async () => {
  await deleteAllObjects();
  await abortAllDurableObjects();
  if (env.OAUTH_KV !== undefined) await emptyKv(env.OAUTH_KV);
  for (const bucket of [env.CHECKPOINTS, env.AUDIT_WITNESS, env.AUDIT_TILES])
    if (bucket !== undefined) await emptyBucket(bucket);
  for (const control of inject("downstreams")) await resetDownstream(control);
  const downstream = env.DOWNSTREAM;
  if (downstream !== undefined)
    await resetDownstream("http://downstream/_control", (request) => downstream.fetch(request));
});
