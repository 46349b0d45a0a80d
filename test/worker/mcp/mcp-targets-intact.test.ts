/**
 * Issue #29, MCP targets intact: a tool whose target is an MCP server answers the gate's MCP
 * clients with the downstream's own `content`, `structuredContent` and `isError`, the gate's
 * receipt in `_meta` `io.toolgate/receipt`, and `tools/list` shows the downstream's own
 * `outputSchema`. The official SDK client validates every `structuredContent` against the listed
 * schema; the expected values come from the same SDK client asking the downstream (a real SDK
 * `McpServer`, test/support/mcp-downstream.ts) directly.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { beforeEach, describe, expect, it } from "vitest";
import { adminClient, createConsumer, credential, gateFetch, pinClock, wipe } from "../../kit";
import { decideAll, lastToolCallReceipt, MCP, T0 } from "./mcp-server-support";

const C = "tenant-a";
const SHOP = "https://mcp.test/shop/mcp";
const TOOLS = ["get_item", "create_order", "broken"];

let agent = "";
let approver = "";
let auditor = "";

async function downstream(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(
    `https://mcp.test${path}`,
    body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
  );
  return (await res.json()) as Record<string, unknown>;
}

beforeEach(async () => {
  await wipe(C);
  await downstream("/_control", { reset: true, token: "shop-token" });
  await createConsumer(C, [], ["rev-1"]);
  const admin = adminClient(C).call;
  expect((await admin("PUT", "/secrets/shop_token", { value: "shop-token" })).status).toBe(204);
  await pinClock(C, T0);
  const registered = await admin("POST", "/mcp-servers", { name: "shop", url: SHOP, auth: { secret: "shop_token" } });
  expect(registered.status).toBe(200);
  await createConsumer(C, TOOLS, ["rev-1"]);
  agent = (await credential(C, "agent", "user-1")).secret;
  approver = (await credential(C, "approver", "rev-1")).secret;
  auditor = (await credential(C, "auditor")).secret;
});

/** The gate's MCP endpoint, through the SDK client. */
async function gateClient(): Promise<Client> {
  const client = new Client({ name: "intact-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost${MCP}`), {
    requestInit: { headers: { authorization: `Bearer ${agent}` } },
    fetch: (url, init) => gateFetch(url, init),
  });
  await client.connect(transport);
  return client;
}

/** The downstream itself, through the same SDK client: the golden answers. */
async function shopClient(): Promise<Client> {
  const client = new Client({ name: "golden", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(SHOP), {
      requestInit: { headers: { authorization: "Bearer shop-token" } },
    }),
  );
  return client;
}

/** A JSON Schema without the keywords the import drops as annotations (docs/mcp.md, "What each tool becomes"). */
function withoutAnnotations(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dropped, ...rest } = schema;
  return rest;
}

const ids = (n: string) => ({
  "io.toolgate/call_id": `intact-call-${n}`,
  "io.toolgate/operation_id": `intact-op-${n}`,
});

describe("an MCP target through the gate's MCP endpoint", () => {
  it("lists the downstream's own outputSchema, and none where it declared none", async () => {
    const shop = await shopClient();
    const golden = new Map((await shop.listTools()).tools.map((t) => [t.name, t.outputSchema]));
    await shop.close();
    const client = await gateClient();
    const listed = new Map((await client.listTools()).tools.map((t) => [t.name, t.outputSchema]));
    await client.close();
    expect([...listed.keys()].sort()).toEqual(["broken", "create_order", "get_item"]);
    expect(golden.get("broken")).toBeUndefined();
    expect(listed.get("broken")).toBeUndefined();
    for (const name of ["get_item", "create_order"]) {
      const declared = golden.get(name);
      if (declared === undefined) throw new Error(`the shop lists no outputSchema for ${name}`);
      expect(listed.get(name)).toEqual(withoutAnnotations(declared));
    }
  });

  it("answers a read with the downstream's content and structuredContent, the receipt in _meta", async () => {
    const shop = await shopClient();
    const direct = await shop.callTool({ name: "get_item", arguments: { id: "A-1" } });
    await shop.close();
    const client = await gateClient();
    await client.listTools(); // the SDK client validates structuredContent against the listed schema from here on
    const answer = await client.callTool({ name: "get_item", arguments: { id: "A-1" }, _meta: ids("1") });
    await client.close();
    // The block's own `_meta` is the one member the gate drops (docs/mcp.md, "How a call goes out").
    expect(direct.content).toEqual([
      {
        type: "text",
        text: "item A-1: Widget, 3 in stock",
        annotations: { audience: ["assistant"] },
        _meta: { "shop/trace": "t-1" },
      },
    ]);
    expect(answer.content).toEqual([
      { type: "text", text: "item A-1: Widget, 3 in stock", annotations: { audience: ["assistant"] } },
    ]);
    expect(answer.structuredContent).toEqual(direct.structuredContent);
    expect(answer.structuredContent).toEqual({ id: "A-1", name: "Widget", stock: 3 });
    expect(answer.isError).toBe(direct.isError);
    expect(answer._meta).toEqual({
      "io.toolgate/audit": await lastToolCallReceipt(auditor),
      "io.toolgate/receipt": {
        call_id: "intact-call-1",
        operation_id: "intact-op-1",
        idempotency_key: null,
        schema_version: "tool-model-result-v2",
        status: "succeeded",
        error: null,
        execution: { outcome: "committed", delivery: "fresh", complete: true, truncated: false },
        provenance: {
          source_label: "get_item",
          producer_revision: (await adminClient(C).call("GET", "/tools/get_item")).body?.history[0].revisions.handler,
          resource_revision: null,
          observed_at: "2026-07-19T00:00:00Z",
          trust: "untrusted_data",
        },
        audit: await lastToolCallReceipt(auditor),
      },
    });
  });

  it("answers a write's approval as the gate's isError guidance, then the downstream's answer once approved", async () => {
    const client = await gateClient();
    await client.listTools();
    const meta = { ...ids("w"), "io.toolgate/idempotency_key": "intact-w1" };
    const call = { name: "create_order", arguments: { item: "widget", quantity: 2 }, _meta: meta };
    const waiting = await client.callTool(call);
    const receipt = (waiting._meta ?? {})["io.toolgate/receipt"] as Record<string, any>;
    const approvalId = (waiting._meta ?? {})["io.toolgate/approval_id"];
    expect([waiting.isError, waiting.structuredContent, receipt["status"], receipt["error"]["code"]]).toEqual([
      true,
      undefined,
      "failed",
      "APPROVAL_REQUIRED",
    ]);
    expect([receipt["approval_id"], receipt["idempotency_key"], receipt["call_id"]]).toEqual([
      approvalId,
      "intact-w1",
      "intact-call-w",
    ]);
    expect((waiting.content as Array<{ text: string }>)[0]?.text).toMatch(/^This call waits for a person's approval/);
    expect(await decideAll(approver)).toEqual([approvalId]);

    const done = await client.callTool(call);
    expect([done.content, done.structuredContent, done.isError]).toEqual([
      [{ type: "text", text: "created ORD-1" }],
      { order_id: "ORD-1" },
      undefined,
    ]);
    const ran = (done._meta ?? {})["io.toolgate/receipt"] as Record<string, any>;
    expect([ran["status"], ran["execution"], ran["idempotency_key"]]).toEqual([
      "succeeded",
      { outcome: "committed", delivery: "fresh", complete: true, truncated: false },
      "intact-w1",
    ]);
    expect(ran["audit"]).toEqual(await lastToolCallReceipt(auditor));

    const replay = await client.callTool(call);
    expect([replay.content, replay.structuredContent]).toEqual([
      [{ type: "text", text: "created ORD-1" }],
      { order_id: "ORD-1" },
    ]);
    expect(((replay._meta ?? {})["io.toolgate/receipt"] as Record<string, any>)["execution"]["delivery"]).toBe(
      "local_replay",
    );
    await client.close();
    expect(
      ((await downstream("/_state"))["runs"] as Array<{ tool: string; key: string | null }>).map((r) => [
        r.tool,
        r.key,
      ]),
    ).toEqual([["create_order", expect.stringMatching(/^status_[0-9a-f]{32}$/)]]);
  });

  it("completes a write run as a task with the downstream's answer once approved", async () => {
    const client = await gateClient();
    await client.listTools();
    const meta = { ...ids("t"), "io.toolgate/idempotency_key": "intact-t1" };
    const seen: string[] = [];
    let result: Record<string, unknown> | undefined;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "create_order", arguments: { item: "gadget", quantity: 1 }, _meta: meta },
      CallToolResultSchema,
      { task: { ttl: 120_000 } },
    )) {
      seen.push(message.type === "taskStatus" ? `status:${message.task.status}` : message.type);
      if (message.type === "taskStatus" && seen.length === 2) await decideAll(approver);
      if (message.type === "result") result = message.result as Record<string, unknown>;
      if (message.type === "error") throw message.error;
    }
    await client.close();
    expect(seen).toEqual(["taskCreated", "status:working", "status:completed", "result"]);
    const receipt = ((result?.["_meta"] ?? {}) as Record<string, any>)["io.toolgate/receipt"];
    expect([result?.["content"], result?.["structuredContent"], result?.["isError"], receipt["status"]]).toEqual([
      [{ type: "text", text: "created ORD-1" }],
      { order_id: "ORD-1" },
      undefined,
      "succeeded",
    ]);
    expect([receipt["call_id"], receipt["idempotency_key"], receipt["audit"]]).toEqual([
      "intact-call-t",
      "intact-t1",
      await lastToolCallReceipt(auditor),
    ]);
  });

  it("answers the downstream's isError with its own content, the gate's TOOL_ERROR in the receipt", async () => {
    const shop = await shopClient();
    const direct = await shop.callTool({ name: "broken", arguments: {} });
    await shop.close();
    const client = await gateClient();
    await client.listTools();
    const answer = await client.callTool({ name: "broken", arguments: {}, _meta: ids("b") });
    await client.close();
    expect(direct).toEqual({ isError: true, content: [{ type: "text", text: "the warehouse is on fire" }] });
    expect([answer.isError, answer.content, answer.structuredContent]).toEqual([true, direct.content, undefined]);
    const receipt = (answer._meta ?? {})["io.toolgate/receipt"] as Record<string, any>;
    expect([receipt["status"], receipt["error"]["code"], receipt["execution"]["outcome"]]).toEqual([
      "failed",
      "TOOL_ERROR",
      "not_started",
    ]);
  });
});
