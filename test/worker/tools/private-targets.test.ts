/**
 * Targets never name a private, loopback or link-local address: a tool as data, an MCP server
 * and a webhook endpoint naming one are refused at definition time (the field's path, the host
 * and its block in the detail), and a request to one is refused again right before it is sent
 * (a target stored before the rule): nothing leaves the gate, a write is "not sent" (TOOL_ERROR),
 * never an unknown outcome, and the operator's log line says why.
 */
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { ToolCall } from "../../../src/core/tool-result/types";
import { submitRefundTool } from "../../../src/worker/targets/catalog";
import { callHttpTool, type DownstreamService } from "../../../src/worker/targets/http/tool";
import { downstreamSigner } from "../../../src/worker/targets/http/signature";
import { TargetRefused, targetFetch } from "../../../src/worker/targets/fetch";
import { ADMIN_TOKEN, adminClient, send, wipe } from "../../kit";

const C = "private-targets-a";
const BASE = `/v1/consumers/${C}`;
/** What the refusals add where the Worker admits loopback targets (`npm start`; a local .dev.vars may bring it here). */
const UNDER_NPM_START =
  Reflect.get(env, "TOOLGATE_ALLOW_LOOPBACK_TARGETS") === "1" ? " (only loopback is allowed under npm start)" : "";

const TOOL = {
  description: "Probe.",
  risk: "read",
  input: {
    type: "object",
    properties: { q: { type: "string", maxLength: 8 } },
    required: ["q"],
    additionalProperties: false,
  },
  output: {
    schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false },
    bound_to_arguments: {},
  },
  authorize: "true",
  target: { kind: "http", url: "https://169.254.169.254/latest/meta-data/iam" },
};

async function admin(method: string, path: string, body?: unknown): Promise<[number, unknown, unknown, unknown]> {
  const { status, body: answer } = await adminClient(C).call(method, path, body);
  return [status, answer?.code, answer?.detail, answer?.path];
}

beforeAll(async () => {
  await wipe(C);
  expect((await send("PUT", BASE, ADMIN_TOKEN, { tools: [], approver_subjects: [] })).status).toBe(200);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("definition time", () => {
  it("refuses a tool as data whose target (or status URL) names a private address, with INVALID_TOOL_DEFINITION and the field's path", async () => {
    expect(await admin("PUT", "/tools/probe", TOOL)).toEqual([
      422,
      "INVALID_TOOL_DEFINITION",
      `a target URL may not name a private, loopback or link-local address: 169.254.169.254 is link-local (169.254.0.0/16)${UNDER_NPM_START}`,
      "/target/url",
    ]);
    const decimal = { ...TOOL, target: { kind: "http", url: "https://167772161/probe" } };
    expect(await admin("PUT", "/tools/probe", decimal)).toEqual([
      422,
      "INVALID_TOOL_DEFINITION",
      `a target URL may not name a private, loopback or link-local address: 10.0.0.1 is private (10.0.0.0/8)${UNDER_NPM_START}`,
      "/target/url",
    ]);
    const status = {
      ...TOOL,
      risk: "write",
      target: {
        kind: "http",
        url: "https://ledger.test/probe",
        status_url: "https://[fd00::1]/status/{status_ref}",
        fence_url: "https://ledger.test/fence/{status_ref}",
      },
    };
    expect(await admin("PUT", "/tools/probe", status)).toEqual([
      422,
      "INVALID_TOOL_DEFINITION",
      `a target URL may not name a private, loopback or link-local address: [fd00::1] is unique local (fc00::/7)${UNDER_NPM_START}`,
      "/target/status_url",
    ]);
  });

  it("refuses an MCP server at a private address before contacting it, with INVALID_REQUEST at /url", async () => {
    expect(await admin("POST", "/mcp-servers", { name: "meta", url: "https://100.100.100.200/mcp" })).toEqual([
      400,
      "INVALID_REQUEST",
      `a target URL may not name a private, loopback or link-local address: 100.100.100.200 is shared CGNAT (100.64.0.0/10)${UNDER_NPM_START}`,
      "/url",
    ]);
  });

  it("refuses a webhook endpoint at a private address, with INVALID_REQUEST at /url", async () => {
    expect(await admin("POST", "/webhooks", { url: "https://[::ffff:a9fe:a9fe]/hook" })).toEqual([
      400,
      "INVALID_REQUEST",
      `a webhook URL may not name a private, loopback or link-local address: [::ffff:a9fe:a9fe] is IPv4-mapped link-local (169.254.0.0/16)${UNDER_NPM_START}`,
      "/url",
    ]);
  });
});

describe("call time", () => {
  it("refuses the request before it is sent and tells the operator", async () => {
    const sent: string[] = [];
    const warned = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const guarded = targetFetch({ allowLoopback: false }, async (request) => {
      sent.push(request.url);
      return new Response("{}");
    });
    const refused = await guarded(new Request("https://0x7f000001:8443/admin?token=abc")).then(
      () => null,
      (error: unknown) => [error instanceof TargetRefused, error instanceof Error ? error.message : ""],
    );
    expect(refused).toEqual([
      true,
      "a target URL may not name a private, loopback or link-local address: 127.0.0.1 is loopback (127.0.0.0/8)",
    ]);
    expect(sent).toEqual([]);
    expect(warned.mock.calls).toEqual([
      [
        "toolgate: outbound request to 127.0.0.1:8443 refused: a target URL may not name a private, loopback or link-local address: 127.0.0.1 is loopback (127.0.0.0/8)",
      ],
    ]);
  });

  it("answers a write whose stored target names a private address as not sent (TOOL_ERROR), never an unknown outcome", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const sent: string[] = [];
    const downstream: DownstreamService = {
      baseUrl: "",
      signer: downstreamSigner("test-signing-key-0123456789abcdef012345")!,
      fetcher: { fetch: () => Promise.reject(new Error("no downstream")) },
      external: {
        fetch: targetFetch({ allowLoopback: false }, async (request) => {
          sent.push(request.url);
          return new Response("{}");
        }),
      },
    };
    const call = {
      name: "submit_refund",
      arguments: { order_ref: "ORDER-7", reason: "duplicate" },
      call_id: "call-1",
      operation_id: "op-1",
    } as unknown as ToolCall;
    const outcome = await callHttpTool(
      { ...submitRefundTool, url: "https://10.1.2.3/refunds" },
      downstream,
      { tenant_id: C, subject_id: "user-1", roles: [] },
      call,
      "key-1",
    );
    expect([outcome, sent]).toEqual([
      {
        kind: "not_sent",
        cause: {
          kind: "refused",
          detail:
            "a target URL may not name a private, loopback or link-local address: 10.1.2.3 is private (10.0.0.0/8)",
        },
      },
      [],
    ]);
  });
});
