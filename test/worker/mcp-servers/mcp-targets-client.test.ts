/**
 * The gate's MCP client at the edges of Streamable HTTP, against scripted answers: SSE framing
 * split anywhere, notifications and server requests before the answer, batches, caps, redirects,
 * protocol versions, deadlines, a lost connection (a read is sent once more, never a write), and
 * bounded `tools/list` pagination.
 */
import { describe, expect, it } from "vitest";
import { callTool, listTools, type McpEndpoint } from "../../../src/worker/targets/mcp/client";
import { SseParser } from "../../../src/worker/targets/mcp/sse";
import { mergeImported, planImport } from "../../../src/worker/features/mcp-servers/import";

type Answer = (message: Record<string, any>, request: Request) => Response | Promise<Response>;

const sse = (...events: string[]) =>
  new Response(events.join(""), { headers: { "content-type": "text/event-stream" } });
const rpc = (id: unknown, result: unknown) => `data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`;

/** A server that initializes (session `s-1`, the given version), accepts notifications and DELETE, and answers other requests with `answer`. */
function server(answer: Answer, version = "2025-11-25") {
  const sent: string[] = [];
  let changed = 0;
  const fetch = async (request: Request): Promise<Response> => {
    if (request.method === "DELETE") {
      sent.push(`DELETE ${request.headers.get("mcp-session-id")}`);
      return new Response(null, { status: 200 });
    }
    const message = JSON.parse(await request.text()) as Record<string, any>;
    sent.push(message.method ?? `answer ${JSON.stringify(message.result ?? message.error)}`);
    if (message.method === "initialize")
      return Response.json(
        {
          jsonrpc: "2.0",
          id: message.id,
          result: { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: "s", version: "1" } },
        },
        { headers: { "mcp-session-id": "s-1" } },
      );
    if (message.id === undefined || message.method === undefined) return new Response(null, { status: 202 });
    return answer(message, request);
  };
  const endpoint = (signal: AbortSignal = AbortSignal.timeout(5_000)): McpEndpoint => ({
    url: "https://mcp.example/mcp",
    headers: {},
    fetch,
    signal,
    onListChanged: () => void (changed += 1),
  });
  return { endpoint, sent, changes: () => changed };
}

const CALL = { name: "t", arguments: {} };
const OPTIONS = { retry: false, maxBytes: 4_096 };

describe("the SSE reader", () => {
  it("frames events across any split, skips comments, joins data lines and drops an unfinished event", () => {
    const parser = new SseParser();
    const events = [
      ...parser.push("\uFEFF: keep-alive\r"),
      ...parser.push("\nevent: note\ndata: a\r"),
      ...parser.push("\ndata:b\r\n\r\nid: 7\nretry: 10\n"),
      ...parser.push('data: {"x":1}\n\n'),
      ...parser.push("data: cut", true),
    ];
    expect(events).toEqual([
      { event: "note", data: "a\nb" },
      { event: "message", data: '{"x":1}' },
    ]);
  });
});

describe("one tools/call exchange", () => {
  it("reads an SSE answer after a notification, a server request and another id; notes list_changed once", async () => {
    const s = server((m) =>
      sse(
        ": warming up\n\n",
        `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })}\n\n`,
        `data: ${JSON.stringify({ jsonrpc: "2.0", id: "srv-1", method: "ping" })}\n\n`,
        `data: ${JSON.stringify({ jsonrpc: "2.0", id: "srv-2", method: "sampling/createMessage", params: {} })}\n\n`,
        `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })}\n\n`,
        rpc(m.id + 100, { content: [] }),
        rpc(m.id, { content: [{ type: "text", text: "done" }] }),
      ),
    );
    expect(await callTool(s.endpoint(), CALL, OPTIONS)).toEqual({
      kind: "result",
      result: { content: [{ type: "text", text: "done" }] },
    });
    expect([s.sent, s.changes()]).toEqual([
      [
        "initialize",
        "notifications/initialized",
        "tools/call",
        "answer {}",
        'answer {"code":-32601,"message":"The client offers no such method."}',
        "DELETE s-1",
      ],
      1,
    ]);
  });

  it("reads a JSON batch, and a JSON-RPC error as the server's answer", async () => {
    const batch = server((m) =>
      Response.json([
        { jsonrpc: "2.0", method: "notifications/message", params: {} },
        { jsonrpc: "2.0", id: m.id, result: { content: [] } },
      ]),
    );
    expect(await callTool(batch.endpoint(), CALL, OPTIONS)).toEqual({ kind: "result", result: { content: [] } });
    const refused = server((m) =>
      Response.json({ jsonrpc: "2.0", id: m.id, error: { code: -32602, message: "Unknown tool: t" } }),
    );
    expect(await callTool(refused.endpoint(), CALL, OPTIONS)).toEqual({
      kind: "error",
      code: -32602,
      message: "Unknown tool: t",
    });
  });

  it("answers lost for an oversized answer, a non-strict event, a redirect, a stream that ends early, and HTTP 429 as rate limited", async () => {
    const cases: Array<[string, Answer]> = [
      ["oversized", (m) => sse(rpc(m.id, { content: [{ type: "text", text: "x".repeat(5_000) }] }))],
      ["not strict", (m) => sse(`data: {"jsonrpc":"2.0","id":${m.id},"result":{"a":1,"a":2}}\n\n`)],
      ["redirect", () => new Response(null, { status: 307, headers: { location: "https://elsewhere.example/mcp" } })],
      ["ended", () => sse(": nothing\n\n")],
      ["limited", () => new Response("slow down", { status: 429 })],
    ];
    const replies = [];
    for (const [name, answer] of cases) replies.push([name, await callTool(server(answer).endpoint(), CALL, OPTIONS)]);
    expect(replies).toEqual([
      ["oversized", { kind: "lost", detail: "an answer larger than 4096 bytes" }],
      ["not strict", { kind: "lost", detail: "an event that is not strict JSON" }],
      ["redirect", { kind: "lost", detail: "HTTP 307" }],
      ["ended", { kind: "lost", detail: "the stream ended without the answer" }],
      ["limited", { kind: "rate_limited" }],
    ]);
  });

  it("gives up at the deadline while the server keeps the stream open", async () => {
    const s = server(
      () =>
        new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(": working\n\n")) }), {
          headers: { "content-type": "text/event-stream" },
        }),
    );
    expect(await callTool(s.endpoint(AbortSignal.timeout(300)), CALL, OPTIONS)).toEqual({
      kind: "lost",
      detail: "no answer in time",
    });
    expect(s.sent).toEqual(["initialize", "notifications/initialized", "tools/call", "DELETE s-1"]);
  });

  it("never sends the call to a server of an unknown protocol version", async () => {
    const s = server(() => Response.json({}), "2023-01-01");
    expect(await callTool(s.endpoint(), CALL, OPTIONS)).toEqual({
      kind: "not_started",
      failure: { kind: "lost", detail: "the server speaks an MCP protocol version the gate does not (2023-01-01)" },
    });
    expect(s.sent).toEqual(["initialize", "DELETE s-1"]);
  });

  it("sends a read once more after a lost connection, a write never", async () => {
    for (const retry of [true, false]) {
      let calls = 0;
      const s = server((m) => {
        calls += 1;
        if (calls === 1) throw new TypeError("Network connection lost.");
        return Response.json({ jsonrpc: "2.0", id: m.id, result: { content: [] } });
      });
      const reply = await callTool(s.endpoint(), CALL, { retry, maxBytes: 4_096 });
      expect([retry, reply, s.sent.filter((m) => m === "tools/call").length]).toEqual(
        retry
          ? [true, { kind: "result", result: { content: [] } }, 2]
          : [false, { kind: "lost", detail: "the connection failed" }, 1],
      );
    }
  });
});

describe("tools/list", () => {
  it("pages through cursors up to its bounds and says when it stopped early", async () => {
    const page = (n: number) => ({
      tools: [{ name: `t${n}`, inputSchema: { type: "object" } }],
      nextCursor: `c${n + 1}`,
    });
    const s = server((m) =>
      Response.json({
        jsonrpc: "2.0",
        id: m.id,
        result: page(m.params.cursor === undefined ? 1 : Number(String(m.params.cursor).slice(1))),
      }),
    );
    const listed = await listTools(s.endpoint(), { maxTools: 10, maxPages: 3, maxBytes: 4_096 });
    expect(listed).toEqual({
      ok: true,
      value: {
        tools: [1, 2, 3].map((n) => ({ name: `t${n}`, inputSchema: { type: "object" } })),
        truncated: true,
        protocolVersion: "2025-11-25",
        serverInfo: { name: "s", version: "1" },
      },
    });
    expect(s.sent).toEqual([
      "initialize",
      "notifications/initialized",
      "tools/list",
      "tools/list",
      "tools/list",
      "DELETE s-1",
    ]);
  });
});

describe("planning an import", () => {
  const SOURCE = { name: "srv", url: "https://mcp.example/mcp", prefix: "x_", auth: null, timeoutMs: 5_000 };
  const OBJECT = { type: "object" };

  it("refuses what the gate cannot call or check, each with its reason", () => {
    const deep = {
      type: "object",
      properties: {
        a: {
          type: "object",
          properties: {
            b: {
              type: "object",
              properties: {
                c: {
                  type: "object",
                  properties: {
                    d: {
                      type: "object",
                      properties: {
                        e: {
                          type: "object",
                          properties: { f: { type: "object", properties: { g: { type: "string" } } } },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    };
    const { planned, refused } = planImport(SOURCE, [
      {
        name: "ok",
        inputSchema: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: { n: { type: "array", items: { type: "integer", default: 3 }, maxItems: 2, examples: [[1]] } },
        },
        annotations: { title: "Titled" },
      },
      { name: "ok", inputSchema: OBJECT },
      { name: "has.dot", inputSchema: OBJECT },
      { name: "tasks", inputSchema: OBJECT, execution: { taskSupport: "required" } },
      { name: "refs", inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/a" } } } },
      { name: "list", inputSchema: { type: "array", items: OBJECT, maxItems: 1 } },
      { name: "scalar_out", inputSchema: OBJECT, outputSchema: { type: "string" } },
      { name: "deep_out", inputSchema: OBJECT, outputSchema: deep },
      { inputSchema: OBJECT },
    ]);
    // Annotation-only keywords ($schema, default, examples, …) are dropped: they never change what validates.
    expect(
      planned.map((p) => [p.name, p.downstream, p.definition.description, p.definition.risk, p.definition.input]),
    ).toEqual([
      [
        "x_ok",
        "ok",
        "Titled",
        "write",
        { type: "object", properties: { n: { type: "array", items: { type: "integer" }, maxItems: 2 } } },
      ],
    ]);
    expect(refused).toEqual([
      { downstream: "ok", reason: "the server lists this name twice" },
      {
        downstream: "has.dot",
        reason: '"x_has.dot" is not a tool name the gate accepts (^[a-zA-Z][a-zA-Z0-9_-]{0,63}$)',
      },
      {
        downstream: "tasks",
        reason: "the tool runs only as an MCP task (execution.taskSupport: required); the gate calls tools directly",
      },
      { downstream: "refs", reason: '/inputSchema/properties/a/$ref: unsupported keyword "$ref"' },
      { downstream: "list", reason: "/inputSchema/type: a tool's input is an object schema" },
      { downstream: "scalar_out", reason: "/outputSchema/type: structured content is an object schema" },
      {
        downstream: "deep_out",
        reason:
          "/outputSchema/properties/a/properties/b/properties/c/properties/d/properties/e/properties/f/properties/g: the schema nests deeper than 8 levels",
      },
      { downstream: "", reason: "a tool's name is a string of 1 to 128 characters" },
    ]);
  });

  it("a re-import takes the server's schemas and description, keeps the admin's rules, and stays a write once either side says so", () => {
    const [fresh] = planImport(SOURCE, [
      { name: "t", description: "New words.", inputSchema: OBJECT, annotations: { readOnlyHint: true } },
    ]).planned;
    const current = {
      ...fresh!.definition,
      description: "Old words.",
      risk: "write" as const,
      authorize: "false",
      approval: "always" as const,
      timeout_ms: 900,
    };
    expect(mergeImported(current, fresh!.definition)).toEqual({ ...current, description: "New words." });
  });
});
