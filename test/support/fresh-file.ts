/**
 * Run before each file of the workerd projects (vitest.config.ts "worker", the reliability
 * suite's "rel-worker"), whose files share one workerd per pool worker (`isolate: false`): what
 * one file scripted or stored does not reach the next. Each scripted downstream the project
 * provides (`inject("downstreams")`: their `_control` URLs, and the `DOWNSTREAM` binding when
 * bound) is reset to its first state; the directory of consumers, the KV namespace and the R2
 * buckets are emptied, and every object restarted.
 *
 * A consumer's object keeps its rows from an earlier file: a test empties the consumers it
 * names (the kit's `wipe`) or takes a new name (`freshConsumer`), as it must within a file too.
 * Emptying every object a run ever made here would start each of them again, file after file.
 */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { beforeAll, inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The scripted downstreams' `_control` URLs, reached through the project's outbound service. */
    downstreams: string[];
  }
}

/** Deletes every object's storage in a namespace (each object is started to do so). */
async function emptyObjects(namespace: DurableObjectNamespace): Promise<void> {
  for (const id of await listDurableObjectIds(namespace))
    await runInDurableObject(namespace.get(id), async (_instance, state) => {
      await state.storage.deleteAll();
    });
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
async function reset(control: string, via: (request: Request) => Promise<Response> = fetch): Promise<void> {
  const res = await via(
    new Request(control, { method: "POST", headers: { "content-type": "application/json" }, body: '{"reset":true}' }),
  );
  await res.body?.cancel();
  if (res.status !== 200) throw new Error(`resetting ${control} answered ${res.status}`);
}

beforeAll(async () => {
  // Bound by wrangler.toml; not among the test env's declared types (test/worker/env.d.ts).
  const directory = (env as { DIRECTORY?: DurableObjectNamespace }).DIRECTORY;
  if (directory !== undefined) await emptyObjects(directory);
  await abortAllDurableObjects();
  if (env.OAUTH_KV !== undefined) await emptyKv(env.OAUTH_KV);
  for (const bucket of [env.CHECKPOINTS, env.AUDIT_WITNESS, env.AUDIT_TILES])
    if (bucket !== undefined) await emptyBucket(bucket);
  for (const control of inject("downstreams")) await reset(control);
  const downstream = env.DOWNSTREAM;
  if (downstream !== undefined) await reset("http://downstream/_control", (request) => downstream.fetch(request));
});
