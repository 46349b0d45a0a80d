/**
 * Run before each file of the workerd projects whose files share one workerd per pool worker
 * (`isolate: false`: vitest.config.ts "worker", the reliability suite's "rel-worker-shared"):
 * each file starts as if its workerd were new. Every
 * Durable Object's storage is deleted and every object restarted (the pool's `reset`), the KV
 * namespace and the R2 buckets are emptied, and each scripted downstream the project provides
 * (`inject("downstreams")`: their `_control` URLs, and the `DOWNSTREAM` binding when bound) is
 * reset to its first state. The objects' env (one object for all of them, which some tests change,
 * `TOOLGATE_AUDIT_KEEP_ENTRIES` for one) is put back as the workerd started with it.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, reset as deleteAllObjects, runInDurableObject } from "cloudflare:test";
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

/** The objects' env as it was before the first file ran (kept across files: they share this isolate). */
const ENV_AT_START = Symbol.for("toolgate.objectEnvAtStart");

/** Puts the objects' env back as it was before the first file: a var a file set on it would reach the next. */
async function restoreObjectEnv(): Promise<void> {
  const stub = env.CONSUMER.get(env.CONSUMER.idFromName("fresh-file"));
  await runInDurableObject(stub, (instance) => {
    const vars = (instance as unknown as { env: Record<string, unknown> }).env;
    const kept = globalThis as { [ENV_AT_START]?: Map<string, unknown> };
    const first = (kept[ENV_AT_START] ??= new Map(Object.entries(vars)));
    for (const name of Object.keys(vars)) if (!first.has(name)) delete vars[name];
    for (const [name, value] of first) if (vars[name] !== value) vars[name] = value;
  });
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
  await restoreObjectEnv();
  if (env.OAUTH_KV !== undefined) await emptyKv(env.OAUTH_KV);
  for (const bucket of [env.CHECKPOINTS, env.AUDIT_WITNESS, env.AUDIT_TILES])
    if (bucket !== undefined) await emptyBucket(bucket);
  for (const control of inject("downstreams")) await resetDownstream(control);
  const downstream = env.DOWNSTREAM;
  if (downstream !== undefined)
    await resetDownstream("http://downstream/_control", (request) => downstream.fetch(request));
});
