/**
 * The reliability suite (`npm run test:reliability`, through tools/reliability.ts): a workerd
 * project (in-process, real Durable Object SQLite) and a Node project that drives `wrangler dev`
 * over loopback. Not part of the default `npm test`.
 */
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { resolve } from "node:path";
import { defineConfig } from "vitest/config";
import type { InlineConfig } from "vitest/node";
import { McpDownstream } from "../support/mcp-downstream.ts";
import { RefundsService } from "../support/refunds-service.ts";
import { WebhookReceiver } from "../support/webhook-receiver.ts";
import { TEST_SECRETS } from "../support/test-secrets.ts";
import { WORKERD_DEPS } from "../support/workerd-deps.ts";
import { appBundle, VITEST_RUN } from "../support/app-bundle.ts";

const ROOT = resolve(import.meta.dirname, "..", "..");
const refunds = new RefundsService();
/** Real MCP SDK servers behind MCP targets (workerd's outbound fetch to https://mcp.test). */
const mcp = new McpDownstream();
/** A receiver of webhook deliveries (https://hooks.test) that verifies each with standardwebhooks. */
const hooks = new WebhookReceiver();

/** The two files that fill a workerd's isolate (r2's model runs, r5's hostile inputs): each gets a workerd of its own. */
const HEAVY = ["test/reliability/worker/r2-model.test.ts", "test/reliability/worker/r5-hostile.test.ts"];

/** A workerd project of the suite: the gate with its test bindings and the scripted downstreams above. */
function workerdProject(test: InlineConfig) {
  return {
    plugins: [
      appBundle(),
      cloudflareTest({
        wrangler: { configPath: resolve(ROOT, "wrangler.toml") },
        miniflare: {
          bindings: {
            ...TEST_SECRETS,
            TOOLGATE_R5_PER_SURFACE: process.env.TOOLGATE_R5_PER_SURFACE ?? "5000",
          },
          serviceBindings: { DOWNSTREAM: (request: Request) => refunds.fetch(request) },
          outboundService: (request: Request) => {
            const host = new URL(request.url).hostname;
            return host === "mcp.test"
              ? mcp.fetch(request)
              : host === "hooks.test"
                ? hooks.fetch(request)
                : new Response("no such host", { status: 502 });
          },
        },
      }),
    ],
    test: {
      root: ROOT,
      // Bundled once per run instead of fetched module by module into each file's workerd.
      deps: WORKERD_DEPS,
      testTimeout: 300_000,
      hookTimeout: 120_000,
      fileParallelism: false,
      ...test,
    },
  };
}

export default defineConfig({
  root: ROOT,
  test: {
    projects: [
      // The workerd checks, one file at a time, in two groups run one after the other (both are the
      // lane `rel-worker`, tools/lib/reliability-run.ts). The two heavy files first, each in a
      // workerd of its own: a file run after r2-model in a shared workerd ran several times slower
      // (r5-hostile: 168 s against 34 s in a workerd of its own; r8-audit: 28 s against 15 s). Then the others share
      // one workerd, each starting as if it were new (fresh-file.ts, as the worker project's files
      // do), instead of paying about 5 s each to start one on CI's loaded machine. Each file imports
      // the Worker's main module once (main-once.ts).
      workerdProject({
        name: "rel-worker",
        include: HEAVY,
        sequence: { groupOrder: 1 },
        setupFiles: ["test/support/main-once.ts"],
        provide: { mainOnce: VITEST_RUN },
      }),
      workerdProject({
        name: "rel-worker-shared",
        include: ["test/reliability/worker/**/*.test.ts"],
        exclude: HEAVY,
        sequence: { groupOrder: 2 },
        isolate: false,
        setupFiles: ["test/support/main-once.ts", "test/support/fresh-file.ts"],
        provide: {
          mainOnce: VITEST_RUN,
          downstreams: ["https://mcp.test/_control", "https://hooks.test/_control"],
        },
      }),
      {
        test: {
          name: "rel-blackbox",
          root: ROOT,
          environment: "node",
          include: ["test/reliability/blackbox/**/*.test.ts"],
          testTimeout: 400_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
