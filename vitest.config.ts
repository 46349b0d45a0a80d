import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { LedgerService } from "./test/support/ledger-service.ts";
import { McpDownstream } from "./test/support/mcp-downstream.ts";
import { OtlpReceiver } from "./test/support/otlp-receiver.ts";
import { RefundsService } from "./test/support/refunds-service.ts";
import { WebhookReceiver } from "./test/support/webhook-receiver.ts";

/** The downstream of the HTTP tools in the worker tests (one per run, scripted by the tests). */
const refunds = new RefundsService();
/** The downstream of the data-defined tools (workerd's outbound fetch to https://ledger.test). */
const ledger = new LedgerService();
/** The MCP servers behind MCP targets (workerd's outbound fetch to https://mcp.test). */
const mcp = new McpDownstream();
/** The OTLP collector the gate exports traces to (workerd's outbound fetch to https://otlp.test); keeps exports only while armed. */
const otlp = new OtlpReceiver();
/** The receiver of webhook deliveries (workerd's outbound fetch to https://hooks.test), verifying each with standardwebhooks. */
const hooks = new WebhookReceiver();

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "core",
          environment: "node",
          include: ["test/core/**/*.test.ts", "test/cli/**/*.test.ts"],
        },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                TOOLGATE_ADMIN_TOKEN: "test-admin-token-0123456789",
                TOOLGATE_TOKEN_KEY: "test-token-key-0123456789abcdef0123456789",
                TOOLGATE_SIGNING_KEY: "test-signing-key-0123456789abcdef012345",
                TOOLGATE_SECRETS_KEY: "test-secrets-key-0123456789abcdef0123456",
                // A test key (seed 01 02 … 20), never a deployment's: signs audit checkpoints.
                TOOLGATE_AUDIT_SIGNING_KEY: "PRIVATE+KEY+toolgate-test+f62e6223+AQECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g",
                // Traces of every tool call go to the test collector (test/worker/traces.test.ts reads them).
                TOOLGATE_OTLP_ENDPOINT: "https://otlp.test/v1/traces",
                TOOLGATE_OTLP_HEADERS: "x-collector-key=otlp-test-key-5a7c%2C9",
              },
              outboundService: (request: Request) => {
                const host = new URL(request.url).hostname;
                if (host === "hooks.test") return hooks.fetch(request);
                return host === "mcp.test" ? mcp.fetch(request) : host === "otlp.test" ? otlp.fetch(request) : ledger.fetch(request);
              },
              serviceBindings: { DOWNSTREAM: (request: Request) => refunds.fetch(request) },
            },
          }),
        ],
        test: {
          name: "worker",
          // The schema subset's keyword boundaries run in workerd too: data tools validate there.
          include: ["test/worker/**/*.test.ts", "test/core/tool-schema/boundaries.test.ts"],
          // Durable Object storage is shared by every test file in this pool version, and the
          // reference's tenants fix the consumer names: run the files one at a time.
          fileParallelism: false,
          // The first request of a file starts workerd's module graph; give a loaded machine room.
          testTimeout: 30_000,
        },
      },
      {
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
