/**
 * Issue #13, progress and log messages of an MCP target reaching the gate's MCP client: a
 * `tools/call` with a progress token, or in a session that set a logging level, is answered as
 * an event stream carrying the downstream's notifications (progress rewritten to the client's
 * token, log messages filtered by the session's level, `logger` the tool's name), then the
 * response; without either it is answered JSON as before; the relay is bounded per call. The
 * downstream is a real SDK server (test/support/mcp-downstream.ts, `/relay/mcp`).
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PyFloat, readJson } from "../../../src/core/json";
import { callTool } from "../../../src/worker/targets/mcp/client";
import { relayable } from "../../../src/worker/targets/mcp/notify";
import { adminClient, context, credential, gate, MCP_ACCEPT, mcpRequest, pinClock, send, wipe } from "../../kit";

const C = "mcp-relay-a";
const T0 = 1_784_419_200;
const MCP = `/v1/consumers/${C}/mcp`;
const BOTH = "application/json, text/event-stream";

async function downstream(path: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(
    `https://mcp.test${path}`,
    body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
  );
  return (await res.json()) as Record<string, any>;
}

async function admin(method: string, path: string, body?: unknown) {
  expect(await adminClient(C).status(method, path, body)).toBeLessThan(300);
}

interface Answer {
  status: number;
  type: string | null;
  session: string | null;
  text: string;
}

async function post(
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
  accept = MCP_ACCEPT,
): Promise<Answer> {
  const res = await mcpRequest(C, token, body, headers, accept);
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    session: res.headers.get("mcp-session-id"),
    text: await res.text(),
  };
}

/** The events of an SSE answer: each must be a `message` event with one `data` line. */
function events(text: string): unknown[] {
  expect(text.endsWith("\n\n")).toBe(true);
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((event) => {
      const [kind, data, ...rest] = event.split("\n");
      expect([kind, rest]).toEqual(["event: message", []]);
      expect(data?.startsWith("data: ")).toBe(true);
      return JSON.parse((data ?? "").slice(6));
    });
}

let agent = "";

async function session(level: string | null = null): Promise<Record<string, string>> {
  const init = await post(agent, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } },
  });
  expect(init.status).toBe(200);
  const headers = { "mcp-session-id": init.session ?? "", "mcp-protocol-version": "2025-11-25" };
  if (level !== null)
    expect(
      JSON.parse(
        (await post(agent, { jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level } }, headers)).text,
      ),
    ).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  return headers;
}

const call = (id: number, name: string, meta?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {}, ...(meta === undefined ? {} : { _meta: meta }) },
});
const progress = (progressToken: string | number, n: number) => ({
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken, progress: n, total: 3, message: `step ${n}` },
});
const log = (logger: string, level: string, data: unknown) => ({
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { level, logger, data },
});

/** The response event's id, isError, content (the downstream's own) and the gate's status (its receipt in `_meta`). */
function response(message: any) {
  return {
    id: message.id,
    isError: message.result.isError,
    content: message.result.content,
    status: message.result._meta["io.toolgate/receipt"].status,
  };
}
const succeeded = (id: number, text: string) => ({
  id,
  isError: undefined,
  content: [{ type: "text", text }],
  status: "succeeded",
});

beforeAll(async () => {
  await wipe(C);
  await admin("PUT", "", { tools: [], approver_subjects: ["rev-1"] });
  await pinClock(C, T0);
  await admin("POST", "/mcp-servers", { name: "relay", url: "https://mcp.test/relay/mcp", timeout_ms: 5_000 });
  await admin("PUT", "", {
    tools: ["count_up", "count_held", "log_steps", "flood", "flood_big"],
    approver_subjects: ["rev-1"],
  });
  agent = (await credential(C, "agent", "user-1")).secret;
});

beforeEach(async () => {
  await downstream("/_control", { reset: true });
});

describe("progress", () => {
  it("answers a call with a progress token as an event stream: the downstream's progress for the client's token, then the response", async () => {
    const headers = await session();
    const answer = await post(agent, call(2, "count_up", { progressToken: "tok-1" }), headers);
    expect([answer.status, answer.type, answer.session]).toEqual([200, "text/event-stream", headers["mcp-session-id"]]);
    const got = events(answer.text);
    expect(got.slice(0, -1)).toEqual([progress("tok-1", 1), progress("tok-1", 2), progress("tok-1", 3)]);
    expect(response(got.at(-1))).toEqual(succeeded(2, "counted"));
    // The downstream got a token of the gate's own, never the client's.
    const runs = (await downstream("/_state")).runs as Array<{ tool: string; arguments: { token: string } }>;
    expect(runs.map((r) => r.tool)).toEqual(["count_up"]);
    expect(runs[0]?.arguments.token).toMatch(/^toolgate-[0-9a-f-]{36}$/);
  });

  it("streams each notification as it comes, before the call ends", async () => {
    const headers = await session();
    const res = await gate(MCP, {
      method: "POST",
      headers: { authorization: `Bearer ${agent}`, "content-type": "application/json", accept: BOTH, ...headers },
      body: JSON.stringify(call(2, "count_held", { progressToken: "held" })),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.endsWith("\n\n")) text += (await reader.read()).value ?? "";
    // The downstream is still waiting: the first progress came through while the call runs.
    expect(events(text)).toEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "held", progress: 1, total: 2 } },
    ]);
    await downstream("/_control", { release: true });
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    const got = events(text);
    expect(got.slice(1, -1)).toEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "held", progress: 2, total: 2 } },
    ]);
    expect(response(got.at(-1))).toEqual(succeeded(2, "held"));
  });

  it("keeps a numeric token (the SDK client's), and answers JSON when the client accepts no event stream", async () => {
    const headers = await session();
    const numeric = await post(agent, call(3, "count_up", { progressToken: 7 }), headers);
    const got = events(numeric.text);
    expect(got.slice(0, -1)).toEqual([progress(7, 1), progress(7, 2), progress(7, 3)]);
    const json = await post(agent, call(4, "count_up", { progressToken: 8 }), headers, "application/json");
    expect(json.type).toBe("application/json");
    expect(response(JSON.parse(json.text))).toEqual(succeeded(4, "counted"));
    const runs = (await downstream("/_state")).runs as Array<{ arguments: { token: string | null } }>;
    expect(runs.map((r) => r.arguments.token === null)).toEqual([false, true]);
  });
});

describe("log messages", () => {
  it("relays those at or above the session's level, the tool's name as logger", async () => {
    const warning = await session("warning");
    const answer = await post(agent, call(2, "log_steps"), warning);
    expect(answer.type).toBe("text/event-stream");
    const got = events(answer.text);
    expect(got.slice(0, -1)).toEqual([
      log("log_steps", "warning", { step: "warning" }),
      log("log_steps", "error", { step: "error" }),
    ]);
    expect(response(got.at(-1))).toEqual(succeeded(2, "logged"));
    const debug = await session("debug");
    expect(events((await post(agent, call(3, "log_steps"), debug)).text).slice(0, -1)).toEqual(
      ["debug", "info", "warning", "error"].map((level) => log("log_steps", level, { step: level })),
    );
  });

  it("relays none while logging is off, even on a stream opened for progress", async () => {
    const headers = await session();
    const got = events((await post(agent, call(2, "log_steps", { progressToken: "p" }), headers)).text);
    expect(got.map(response)).toEqual([succeeded(2, "logged")]);
  });
});

describe("without a progress token and with logging off", () => {
  it("answers JSON as before, and the downstream call carries no progress token", async () => {
    const headers = await session();
    const answer = await post(agent, call(2, "count_up"), headers);
    expect([answer.status, answer.type]).toEqual([200, "application/json"]);
    expect(response(JSON.parse(answer.text))).toEqual(succeeded(2, "counted"));
    // The HTTP tool-call route relays nothing either.
    const http = await send("POST", `/v1/consumers/${C}/tool-calls`, agent, {
      proposal: { name: "count_up", arguments: {} },
      context: context("http-1"),
    });
    expect(http.status).toBe(200);
    const runs = (await downstream("/_state")).runs as Array<{ tool: string; arguments: { token: string | null } }>;
    expect(runs).toEqual([
      { tool: "count_up", arguments: { token: null }, key: null },
      { tool: "count_up", arguments: { token: null }, key: null },
    ]);
  });
});

describe("the downstream side", () => {
  it("hands the answer stream's notifications (not list_changed) to the exchange, in order", async () => {
    const seen: unknown[] = [];
    const lines = [
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 50.0 } },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
      { jsonrpc: "2.0", method: "notifications/message", params: [1] },
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: 1 } },
    ];
    const fetch = async (request: Request): Promise<Response> => {
      const message = JSON.parse(await request.text()) as Record<string, any>;
      if (message.method === "initialize")
        return Response.json({
          jsonrpc: "2.0",
          id: message.id,
          result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "s", version: "1" } },
        });
      if (message.id === undefined) return new Response(null, { status: 202 });
      const body = [...lines, { jsonrpc: "2.0", id: message.id, result: { content: [] } }]
        .map((m) => `data: ${JSON.stringify(m)}\n\n`)
        .join("");
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    };
    const endpoint = {
      url: "https://mcp.example/mcp",
      headers: {},
      fetch,
      signal: AbortSignal.timeout(5_000),
      onNotification: (method: string, params: unknown) => void seen.push([method, params ?? null]),
    };
    expect(await callTool(endpoint, { name: "t", arguments: {} }, { retry: false, maxBytes: 4_096 })).toEqual({
      kind: "result",
      result: { content: [] },
    });
    expect(seen).toEqual([
      ["notifications/progress", { progressToken: "t", progress: 50 }],
      ["notifications/message", null],
      ["notifications/message", { level: "info", data: 1 }],
    ]);
  });

  it("relays progress only for the gate's token, with a number; log messages only with a known level and data", () => {
    const params = (text: string) => {
      const read = readJson(text);
      if (!read.ok) throw new Error("test JSON");
      return read.value as Record<string, any>;
    };
    expect(params('{"progress":50.0}')["progress"]).toEqual(new PyFloat(50));
    expect(
      relayable(
        "notifications/progress",
        params('{"progressToken":"g","progress":50.0,"total":100,"message":"half"}'),
        "g",
      ),
    ).toEqual({ kind: "progress", progress: 50, total: 100, message: "half" });
    expect(relayable("notifications/progress", params('{"progressToken":"g","progress":1}'), null)).toBe(null);
    expect(relayable("notifications/progress", params('{"progressToken":"x","progress":1}'), "g")).toBe(null);
    expect(relayable("notifications/progress", params('{"progressToken":"g","progress":"1"}'), "g")).toBe(null);
    expect(relayable("notifications/message", params('{"level":"info","data":null,"logger":"x"}'), null)).toEqual({
      kind: "log",
      level: "info",
      data: null,
    });
    expect(relayable("notifications/message", params('{"level":"verbose","data":1}'), null)).toBe(null);
    expect(relayable("notifications/message", params('{"level":"info"}'), null)).toBe(null);
    expect(relayable("notifications/resources/updated", params('{"uri":"x"}'), "g")).toBe(null);
    expect(relayable("notifications/message", undefined, null)).toBe(null);
  });
});

describe("bounds", () => {
  it("relays at most 64 notifications of a call", async () => {
    const headers = await session("debug");
    const got = events((await post(agent, call(2, "flood"), headers)).text);
    expect(got.slice(0, -1)).toEqual(Array.from({ length: 64 }, (_, i) => log("flood", "info", `message ${i + 1}`)));
    expect(response(got.at(-1))).toEqual(succeeded(2, "flooded"));
  });

  it("relays at most 64 KiB of notification events of a call", async () => {
    const headers = await session("debug");
    const got = events((await post(agent, call(2, "flood_big"), headers)).text);
    // Each event is about 10,100 bytes: six fit in 65,536, the seventh would not.
    expect(got.slice(0, -1)).toEqual([0, 1, 2, 3, 4, 5].map((i) => log("flood_big", "info", String(i).repeat(10_000))));
    expect(response(got.at(-1))).toEqual(succeeded(2, "flooded"));
  });
});
