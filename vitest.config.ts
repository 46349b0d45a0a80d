import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { LedgerService } from "./test/support/ledger-service.ts";
import { McpDownstream } from "./test/support/mcp-downstream.ts";
import { OtlpReceiver } from "./test/support/otlp-receiver.ts";
import { RefundsService } from "./test/support/refunds-service.ts";
import { TEST_SECRETS } from "./test/support/test-secrets.ts";
import { WORKERD_DEPS } from "./test/support/workerd-deps.ts";
import { appBundle, VITEST_RUN } from "./test/support/app-bundle.ts";
import { WebhookReceiver } from "./test/support/webhook-receiver.ts";

/**
 * The scripted downstreams the gate calls in the worker tests: the refunds service behind the
 * `DOWNSTREAM` binding, the ledger of the data-defined tools (https://ledger.test), the MCP servers
 * behind MCP targets (https://mcp.test), the OTLP collector traces go to (https://otlp.test; keeps
 * exports only while armed) and the webhook receiver (https://hooks.test, verifying each delivery
 * with standardwebhooks). Tests script them (modes, holds, recorded requests), so each workerd
 * gets its own set (the pool builds its options here for each), files that run side by side never
 * see each other's modes or recordings, and each file starts them reset (fresh-file.ts).
 */
function downstreams() {
  const refunds = new RefundsService();
  const ledger = new LedgerService();
  const mcp = new McpDownstream();
  const otlp = new OtlpReceiver();
  const hooks = new WebhookReceiver();
  return {
    outboundService: (request: Request) => {
      const host = new URL(request.url).hostname;
      if (host === "hooks.test") return hooks.fetch(request);
      return host === "mcp.test"
        ? mcp.fetch(request)
        : host === "otlp.test"
          ? otlp.fetch(request)
          : ledger.fetch(request);
    },
    serviceBindings: { DOWNSTREAM: (request: Request) => refunds.fetch(request) },
  };
}

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "core",
          environment: "node",
          include: ["test/core/**/*.test.ts", "test/cli/**/*.test.ts"],
          // The same worker count as the worker project: vitest runs projects of one group together,
          // in one pool, and refuses a group whose projects differ in it. `npm test` runs the two in
          // separate runs (tools/lib/test-lanes.ts), so Node files never take the workerd files' turns.
          maxWorkers: 2,
          // vitest's default (5 s) is too close on CI: these files run beside the CPU-bound workerd
          // lane, and the CLI tests start child processes (a test of 2.8 s on a loaded machine here).
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [
          appBundle(),
          cloudflareTest(() => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                ...TEST_SECRETS,
                // Traces of every tool call go to the test collector (test/worker/tool-calls/traces.test.ts reads them).
                TOOLGATE_OTLP_ENDPOINT: "https://otlp.test/v1/traces",
                TOOLGATE_OTLP_HEADERS: "x-collector-key=otlp-test-key-5a7c%2C9",
                // Approval webhooks carry their console page under this origin (test/worker/webhooks).
                TOOLGATE_PUBLIC_URL: "https://gate.test/ignored/path",
              },
              ...downstreams(),
            },
          })),
        ],
        test: {
          name: "worker",
          // Bundled once per run instead of fetched module by module into each file's workerd.
          deps: WORKERD_DEPS,
          // The schema subset's keyword boundaries run in workerd too: data tools validate there.
          include: ["test/worker/**/*.test.ts", "test/core/tool-schema/boundaries.test.ts"],
          // Two workers, each one workerd that its files share one after another (`isolate: false`):
          // a workerd of its own per file cost about 2.7 s of CPU to start and load the app, two
          // thirds of this project's time. Each file still starts as if its workerd were new:
          // fresh-file.ts empties every object, the KV namespace and the buckets, and resets the
          // scripted downstreams first.
          maxWorkers: 2,
          isolate: false,
          setupFiles: ["test/support/main-once.ts", "test/support/fresh-file.ts"],
          provide: {
            mainOnce: VITEST_RUN,
            downstreams: [
              "https://ledger.test/_control",
              "https://mcp.test/_control",
              "https://otlp.test/_control",
              "https://hooks.test/_control",
            ],
          },
          // The first request of a file starts workerd's module graph; give a loaded machine room.
          testTimeout: 30_000,
        },
      },
      {
        // The browser extension imports the package's entries by name (tsconfig.json "paths").
        resolve: { tsconfigPaths: true },
        test: {
          name: "browser",
          environment: "node",
          include: ["test/browser/**/*.test.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "blackbox",
          environment: "node",
          include: ["test/blackbox/**/*.test.ts", "test/examples/**/*.test.ts"],
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
