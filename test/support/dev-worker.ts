/**
 * The Worker as `wrangler dev` runs it, for the build the black-box lanes share
 * (tools/lib/prebuilt-worker.ts): the gate's entry (src/worker/index.ts) with the two steps
 * wrangler 4.86 adds to a bundle it builds for local dev, which `--no-bundle` leaves out:
 * - a request body the Worker did not read is read to its end after the answer (wrangler's
 *   `ensure-req-body-drained` middleware): local workerd resets a connection whose request body
 *   was left unread, so under load clients saw resets a deployed gate never gives;
 * - an error thrown out of the handler becomes a 500 carrying it as JSON (its
 *   `miniflare3-json-error` middleware; the gate maps its own errors, so none should reach it).
 * Never deployed: wrangler.toml's entry stays src/worker/index.ts.
 * @module
 */
import worker from "../../src/worker/index";
import type { Env } from "../../src/worker/env";

export { ConsumerObject, DirectoryObject } from "../../src/worker/index";

interface JsonError {
  name?: string;
  message: string;
  stack?: string;
  cause?: JsonError;
}

function reduceError(error: unknown): JsonError {
  const e = error as { name?: string; message?: string; stack?: string; cause?: unknown } | undefined;
  return {
    name: e?.name,
    message: e?.message ?? String(error),
    stack: e?.stack,
    cause: e?.cause === undefined ? undefined : reduceError(e.cause),
  };
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    try {
      return await worker.fetch(request, env, ctx);
    } catch (error) {
      return Response.json(reduceError(error), { status: 500, headers: { "MF-Experimental-Error-Stack": "true" } });
    } finally {
      try {
        if (request.body !== null && !request.bodyUsed) {
          const reader = request.body.getReader();
          while (!(await reader.read()).done) {
            // read to the end
          }
        }
      } catch (error) {
        console.error("Failed to drain the unused request body.", error);
      }
    }
  },
} satisfies ExportedHandler<Env>;
