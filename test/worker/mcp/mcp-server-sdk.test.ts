/**
 * The official MCP SDK client (`@modelcontextprotocol/sdk`) against the endpoint, in workerd:
 * it connects, lists (and so validates every result against each tool's `outputSchema`), calls
 * a read, drives a write as a task that completes once an approver decides, and replays it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { beforeEach, describe, expect, it } from "vitest";
import { createConsumer, credential, gateFetch, pinClock, wipe } from "../../kit";
import { decideAll, MCP, T0 } from "./mcp-server-support";

let agent: string;
let approver: string;

beforeEach(async () => {
  await wipe("tenant-a");
  await createConsumer("tenant-a", ["get_order", "create_refund_draft"], ["rev-1"]);
  await pinClock("tenant-a", T0);
  agent = (await credential("tenant-a", "agent", "user-1")).secret;
  approver = (await credential("tenant-a", "approver", "rev-1")).secret;
});

async function connect(): Promise<Client> {
  const client = new Client({ name: "sdk-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost${MCP}`), {
    requestInit: { headers: { authorization: `Bearer ${agent}` } },
    fetch: (url, init) => gateFetch(url, init),
  });
  await client.connect(transport);
  return client;
}

describe("the MCP SDK client", () => {
  it("connects, lists, calls a read, a write as a task, and replays it", async () => {
    const client = await connect();
    expect(client.getServerVersion()).toEqual({ name: "toolgate", version: "0.1.0" });
    expect(await client.ping()).toEqual({});
    expect(await client.setLoggingLevel("info")).toEqual({});
    const listed = await client.listTools();
    expect(listed.tools.map((t) => [t.name, t.annotations?.readOnlyHint, t.execution?.taskSupport ?? null])).toEqual([
      ["create_refund_draft", false, "optional"],
      ["get_order", true, null],
    ]);
    const read = await client.callTool({ name: "get_order", arguments: { order_ref: "ORDER-7" } });
    expect([read.isError, (read.structuredContent as { data: unknown }).data]).toEqual([
      false,
      { order_ref: "ORDER-7", status: "paid" },
    ]);

    const meta = { "io.toolgate/idempotency_key": "sdk-1" };
    const args = { order_ref: "ORDER-7", reason: "duplicate" };
    const seen: string[] = [];
    let result: { isError?: boolean; structuredContent?: Record<string, unknown> } | undefined;
    let decided = false;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "create_refund_draft", arguments: args, _meta: meta },
      CallToolResultSchema,
      { task: { ttl: 120_000 } },
    )) {
      seen.push(message.type === "taskStatus" ? `status:${message.task.status}` : message.type);
      if (message.type === "taskStatus" && !decided) {
        decided = true;
        await decideAll(approver);
      }
      if (message.type === "result") result = message.result as typeof result;
      if (message.type === "error") throw message.error;
    }
    expect(seen).toEqual(["taskCreated", "status:working", "status:completed", "result"]);
    expect([result?.isError, result?.structuredContent?.["status"]]).toEqual([false, "succeeded"]);
    const replay = await client.callTool({ name: "create_refund_draft", arguments: args, _meta: meta });
    expect((replay.structuredContent as { execution: { delivery: string } }).execution.delivery).toBe("local_replay");
    await client.close();
  });

  it("answers an unknown tool as a failed result (isError), not a protocol error", async () => {
    const client = await connect();
    const unknown = await client.callTool({ name: "no_such_tool", arguments: {} });
    expect([unknown.isError, (unknown.structuredContent as { error: { code: string } }).error.code]).toEqual([
      true,
      "UNKNOWN_TOOL",
    ]);
    await client.close();
  });
});
