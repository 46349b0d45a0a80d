/**
 * Black box: the official MCP SDK client (`@modelcontextprotocol/sdk`) against the gate's MCP
 * endpoint under `wrangler dev`. It connects with a subject-bound agent credential, lists the
 * tools, calls a read, calls a write as a task that completes once an approver decides (in this
 * test, over the HTTP approvals route), replays the write, and the audit shows each call once.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDev, type DevServer } from "./wrangler-dev";

const ADMIN = randomBytes(24).toString("base64url");
// The reference's demo orders belong to tenant "tenant-a" (this server's only consumer).
const CONSUMER = "tenant-a";
const REVIEWER = "reviewer-1";

let persistTo: string;
let dev: DevServer;
let agent: string;
let approver: string;
let auditor: string;
let client: Client;

async function call(
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${dev.base}/v1/consumers/${CONSUMER}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Approves the one pending approval with the digest the approver is shown. */
async function approvePending(): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const list = await call("GET", "/approvals?state=pending", approver);
    const pending = list.body["approvals"] as Array<{ approval_id: string; approval_digest: string }>;
    const first = pending[0];
    if (first !== undefined) {
      const decided = await call("POST", `/approvals/${first.approval_id}`, approver, {
        decision: "approve",
        approval_digest: first.approval_digest,
      });
      expect(decided.status).toBe(200);
      return first.approval_id;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("no pending approval appeared");
}

beforeAll(async () => {
  persistTo = mkdtempSync(join(tmpdir(), "toolgate-mcp-client-"));
  dev = await startDev(persistTo, ADMIN);
  expect(
    (await call("PUT", "", ADMIN, { tools: ["get_order", "create_refund_draft"], approver_subjects: [REVIEWER] }))
      .status,
  ).toBe(200);
  agent = (await call("POST", "/credentials", ADMIN, { kind: "agent", subject_id: "user-1" })).body["secret"] as string;
  approver = (await call("POST", "/credentials", ADMIN, { kind: "approver", subject_id: REVIEWER })).body[
    "secret"
  ] as string;
  auditor = (await call("POST", "/credentials", ADMIN, { kind: "auditor" })).body["secret"] as string;
  client = new Client({ name: "toolgate-e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${dev.base}/v1/consumers/${CONSUMER}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${agent}` } },
  });
  await client.connect(transport);
}, 180_000);

afterAll(async () => {
  await client?.close();
  await dev?.kill();
  if (persistTo !== undefined) rmSync(persistTo, { recursive: true, force: true });
});

describe("the official MCP SDK client through the gate", () => {
  it("connects and lists the consumer's tools", async () => {
    expect(client.getServerVersion()?.name).toBe("toolgate");
    const listed = await client.listTools();
    expect(listed.tools.map((t) => [t.name, t.annotations?.readOnlyHint, t.annotations?.destructiveHint])).toEqual([
      ["create_refund_draft", false, true],
      ["get_order", true, false],
    ]);
  });

  it("calls a read, a write that waits for an approver as a task, and a replay", async () => {
    // The SDK client validates structuredContent against each tool's outputSchema.
    const read = await client.callTool({ name: "get_order", arguments: { order_ref: "ORDER-7" } });
    expect([read.isError, (read.structuredContent as { data: unknown }).data]).toEqual([
      false,
      { order_ref: "ORDER-7", status: "paid" },
    ]);
    const args = { order_ref: "ORDER-7", reason: "duplicate" };
    const meta = { "io.toolgate/idempotency_key": "refund-e2e-1" };
    const seen: string[] = [];
    let result: unknown;
    const approving = approvePending();
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "create_refund_draft", arguments: args, _meta: meta },
      CallToolResultSchema,
      { task: { ttl: 120_000 } },
    )) {
      seen.push(message.type === "taskStatus" ? `status:${message.task.status}` : message.type);
      if (message.type === "result") result = message.result;
      if (message.type === "error") throw message.error;
    }
    await approving;
    expect(seen[0]).toBe("taskCreated");
    expect(seen.at(-1)).toBe("result");
    const first = result as {
      isError: boolean;
      structuredContent: { status: string; execution: { delivery: string } };
    };
    expect([first.isError, first.structuredContent.status, first.structuredContent.execution.delivery]).toEqual([
      false,
      "succeeded",
      "fresh",
    ]);
    const replay = (await client.callTool({
      name: "create_refund_draft",
      arguments: args,
      _meta: meta,
    })) as unknown as typeof first;
    expect([replay.isError, replay.structuredContent.status, replay.structuredContent.execution.delivery]).toEqual([
      false,
      "succeeded",
      "local_replay",
    ]);
    expect({ ...replay.structuredContent, execution: null }).toEqual({ ...first.structuredContent, execution: null });
  });

  it("the audit shows each call once", async () => {
    const page = await call("GET", "/audit", auditor);
    type Record = {
      tool_contract: { name: string };
      provider_context: { provider: string; call_id: string };
      binding: { request_sha256: string; result_sha256: string };
    };
    const calls = (page.body["entries"] as Array<{ kind: string; record: Record }>)
      .filter((e) => e.kind === "tool_call")
      .map((e) => e.record);
    // One entry per tools/call the gate answered: the read; the write asking for approval, run once approved, replayed.
    expect(calls.map((r) => [r.tool_contract.name, r.provider_context.provider])).toEqual([
      ["get_order", "mcp"],
      ["create_refund_draft", "mcp"],
      ["create_refund_draft", "mcp"],
      ["create_refund_draft", "mcp"],
    ]);
    const [, ask, run, replay] = calls as [Record, Record, Record, Record];
    // The same call (one call id, one request digest) throughout, with three different results:
    // APPROVAL_REQUIRED, the fresh run, and its local replay (the data equal, the delivery not).
    expect(
      new Set([ask, run, replay].map((r) => `${r.provider_context.call_id} ${r.binding.request_sha256}`)).size,
    ).toBe(1);
    expect(new Set([ask, run, replay].map((r) => r.binding.result_sha256)).size).toBe(3);
  });
});
