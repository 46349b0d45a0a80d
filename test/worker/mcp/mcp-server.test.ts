/**
 * The MCP endpoint's transport and lifecycle (docs/mcp.md): sessions bound to their
 * credential, protocol-version negotiation, the Origin/Host rule, and every malformed message
 * answered with the right JSON-RPC error and HTTP status, never a 5xx.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { createConsumer, credential, gate, gateFetch, pinClock, wipe } from "../../kit";
import { initialize, MCP, mcpPost, T0 } from "./mcp-server-support";

let agent: string;

beforeEach(async () => {
  await wipe("tenant-a");
  await createConsumer("tenant-a", ["get_order", "create_refund_draft"], ["rev-1"]);
  await pinClock("tenant-a", T0);
  agent = (await credential("tenant-a", "agent", "user-1")).secret;
});

const rpcProblem = (
  status: number,
  code: string,
  title: string,
  detail: string,
  rpcCode: number,
  id: string | number | null = null,
) => ({
  type: `https://toolgate.dev/problems/${code.toLowerCase().replaceAll("_", "-")}`,
  title,
  status,
  code,
  detail,
  jsonrpc: "2.0",
  id,
  error: { code: rpcCode, message: detail, data: { code } },
});

describe("initialize and sessions", () => {
  it("opens a session: 200 JSON with the Mcp-Session-Id header, server info and capabilities", async () => {
    const res = await mcpPost(agent, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("mcp-session-id")).toMatch(/^[0-9a-f]{32}$/);
    expect({ ...res.json, result: { ...res.json.result, instructions: typeof res.json.result.instructions } }).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: "2025-11-25",
        capabilities: {
          tools: { listChanged: false },
          logging: {},
          resources: { subscribe: true, listChanged: false },
          prompts: { listChanged: false },
          completions: {},
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        },
        serverInfo: { name: "toolgate", version: "0.1.0" },
        instructions: "string",
      },
    });
  });

  it("negotiates the protocol version: either spoken version as asked, anything else the latest", async () => {
    const versionOf = async (asked: string) => {
      const res = await mcpPost(agent, {
        jsonrpc: "2.0",
        id: "v",
        method: "initialize",
        params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      return [res.json.result.protocolVersion, Object.keys(res.json.result.capabilities).sort()];
    };
    expect(await versionOf("2025-11-25")).toEqual([
      "2025-11-25",
      ["completions", "logging", "prompts", "resources", "tasks", "tools"],
    ]);
    expect(await versionOf("2025-06-18")).toEqual([
      "2025-06-18",
      ["completions", "logging", "prompts", "resources", "tools"],
    ]);
    expect(await versionOf("2024-11-05")).toEqual([
      "2025-11-25",
      ["completions", "logging", "prompts", "resources", "tasks", "tools"],
    ]);
    expect(await versionOf("next")).toEqual([
      "2025-11-25",
      ["completions", "logging", "prompts", "resources", "tasks", "tools"],
    ]);
  });

  it("answers ping, logging/setLevel and notifications within a session", async () => {
    const s = await initialize(agent);
    expect((await mcpPost(agent, { jsonrpc: "2.0", method: "notifications/initialized" }, s.headers)).status).toBe(202);
    expect((await mcpPost(agent, { jsonrpc: "2.0", id: 9, result: {} }, s.headers)).status).toBe(202);
    const ping = await mcpPost(agent, { jsonrpc: "2.0", id: "p", method: "ping" }, s.headers);
    expect([ping.status, ping.json, ping.headers.get("mcp-session-id")]).toEqual([
      200,
      { jsonrpc: "2.0", id: "p", result: {} },
      s.sessionId,
    ]);
    const level = await mcpPost(
      agent,
      { jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "info" } },
      s.headers,
    );
    expect(level.json).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    const badLevel = await mcpPost(
      agent,
      { jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "loud" } },
      s.headers,
    );
    expect([badLevel.status, badLevel.json.error.code]).toEqual([200, -32602]);
  });

  it("refuses a message without a session (400), with an unknown or another credential's session (404)", async () => {
    const s = await initialize(agent);
    const other = (await credential("tenant-a", "agent", "user-1")).secret;
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const missing = await mcpPost(agent, ping);
    expect([missing.status, missing.headers.get("content-type"), missing.json]).toEqual([
      400,
      "application/problem+json",
      rpcProblem(
        400,
        "INVALID_REQUEST",
        "Request does not match its contract",
        "Send the Mcp-Session-Id header that initialize answered.",
        -32000,
      ),
    ]);
    const notFound = rpcProblem(
      404,
      "NOT_FOUND",
      "Not found",
      "No such MCP session: it was deleted, or never opened with this credential. Initialize a new one.",
      -32001,
    );
    const unknown = await mcpPost(agent, ping, { "mcp-session-id": "0".repeat(32) });
    expect([unknown.status, unknown.json]).toEqual([404, notFound]);
    const foreign = await mcpPost(other, ping, s.headers);
    expect([foreign.status, foreign.json]).toEqual([404, notFound]);
  });

  it("checks MCP-Protocol-Version when present: a version spoken here (or 2025-03-26, Streamable HTTP's first), else 400", async () => {
    const s = await initialize(agent, "2025-06-18");
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    expect((await mcpPost(agent, ping, { ...s.headers, "mcp-protocol-version": "2025-11-25" })).status).toBe(200);
    expect((await mcpPost(agent, ping, { ...s.headers, "mcp-protocol-version": "2025-03-26" })).status).toBe(200);
    const old = await mcpPost(agent, ping, { ...s.headers, "mcp-protocol-version": "2024-11-05" });
    expect([old.status, old.json.code, old.json.error.code]).toEqual([400, "INVALID_REQUEST", -32000]);
  });

  it("DELETE ends the session (204); later use of it is 404", async () => {
    const s = await initialize(agent);
    const other = (await credential("tenant-a", "agent", "user-1")).secret;
    const del = (token: string, headers: Record<string, string>) =>
      gate(MCP, { method: "DELETE", headers: { authorization: `Bearer ${token}`, ...headers } });
    expect((await del(other, s.headers)).status).toBe(404);
    expect((await del(agent, {})).status).toBe(400);
    const ended = await del(agent, s.headers);
    expect([ended.status, await ended.text()]).toEqual([204, ""]);
    expect((await mcpPost(agent, { jsonrpc: "2.0", id: 1, method: "ping" }, s.headers)).status).toBe(404);
    expect((await del(agent, s.headers)).status).toBe(404);
  });

  it("acts only for a credential's subject: a host credential is 403 PRINCIPAL_MISMATCH", async () => {
    const host = (await credential("tenant-a", "agent")).secret;
    const res = await mcpPost(host, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    expect([res.status, res.json.code, res.json.error.code]).toEqual([403, "PRINCIPAL_MISMATCH", -32000]);
    const approver = (await credential("tenant-a", "approver", "rev-1")).secret;
    const wrongKind = await mcpPost(approver, { jsonrpc: "2.0", id: 1, method: "ping" });
    expect([wrongKind.status, wrongKind.json.code, wrongKind.json.detail]).toEqual([
      403,
      "FORBIDDEN",
      "A approver credential may not call this route.",
    ]);
    expect((await mcpPost("not-a-credential", { jsonrpc: "2.0", id: 1, method: "ping" })).status).toBe(401);
  });
});

describe("Origin and Host (DNS rebinding)", () => {
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  };
  const raw = (url: string, headers: Record<string, string>) =>
    gateFetch(
      new Request(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${agent}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify(init),
      }),
    );

  it("refuses a foreign Host from a loopback client, and a cross-site Origin, with 403 ORIGIN_REFUSED", async () => {
    const rebound = await raw(`http://evil.example.com${MCP}`, {
      origin: "http://evil.example.com",
      "cf-connecting-ip": "127.0.0.1",
    });
    expect([rebound.status, await rebound.json()]).toEqual([
      403,
      rpcProblem(
        403,
        "ORIGIN_REFUSED",
        "Origin or Host refused",
        "A request from this machine must name a loopback host (localhost, 127.0.0.1 or [::1]): DNS rebinding protection.",
        -32000,
      ),
    ]);
    const crossSite = await raw(`http://gate${MCP}`, { origin: "http://evil.example.com" });
    expect([crossSite.status, ((await crossSite.json()) as { code: string }).code]).toEqual([403, "ORIGIN_REFUSED"]);
    const nullOrigin = await raw(`http://gate${MCP}`, { origin: "null" });
    expect(nullOrigin.status).toBe(403);
    const loopbackOrigin = await raw(`http://gate${MCP}`, { origin: "http://localhost:6274" });
    expect(loopbackOrigin.status).toBe(403);
    // Refused before the credential is read: no credential needed to be refused.
    const anonymous = await gateFetch(
      new Request(`http://gate${MCP}`, { method: "POST", headers: { origin: "http://evil.example.com" } }),
    );
    expect(anonymous.status).toBe(403);
  });

  it("accepts a loopback Host with its own or another loopback origin, and a same-origin request", async () => {
    for (const [url, headers] of [
      [`http://localhost:8787${MCP}`, { origin: "http://localhost:8787", "cf-connecting-ip": "127.0.0.1" }],
      [`http://127.0.0.1:8787${MCP}`, { origin: "http://localhost:6274", "cf-connecting-ip": "::1" }],
      [`http://[::1]:8787${MCP}`, { "cf-connecting-ip": "::1" }],
      [`https://gate.example.com${MCP}`, { origin: "https://gate.example.com", "cf-connecting-ip": "203.0.113.9" }],
      [`http://gate${MCP}`, {}],
    ] as const) {
      expect([url, (await raw(url, headers)).status]).toEqual([url, 200]);
    }
  });
});

describe("malformed messages: the right JSON-RPC error, never a 5xx", () => {
  it("answers each with its status and JSON-RPC code", async () => {
    const s = await initialize(agent);
    const cases: Array<[string, unknown, number, number, string | number | null]> = [
      ["batch", [{ jsonrpc: "2.0", id: 1, method: "ping" }], 400, -32600, null],
      ["wrong jsonrpc", { jsonrpc: "1.0", id: 1, method: "ping" }, 400, -32600, 1],
      ["missing method", { jsonrpc: "2.0", id: 2 }, 400, -32600, 2],
      ["bad id type", { jsonrpc: "2.0", id: { x: 1 }, method: "ping" }, 400, -32600, null],
      ["fractional id", { jsonrpc: "2.0", id: 1.5, method: "ping" }, 400, -32600, null],
      ["params array", { jsonrpc: "2.0", id: 3, method: "ping", params: [1] }, 400, -32600, 3],
      ["extra member", { jsonrpc: "2.0", id: 4, method: "ping", extra: true }, 400, -32600, 4],
      ["not an object", "7", 400, -32600, null],
      ["malformed JSON", '{"jsonrpc":"2.0",', 400, -32700, null],
      ["duplicate key", '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', 400, -32700, null],
      ["unknown method", { jsonrpc: "2.0", id: 5, method: "roots/list" }, 200, -32601, 5],
      [
        "resources/list cursor",
        { jsonrpc: "2.0", id: 8, method: "resources/list", params: { cursor: "x" } },
        200,
        -32602,
        8,
      ],
      ["bad params", { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: 7 } }, 200, -32602, 6],
      ["tools/list cursor", { jsonrpc: "2.0", id: 7, method: "tools/list", params: { cursor: "x" } }, 200, -32602, 7],
    ];
    for (const [label, body, status, code, id] of cases) {
      const res = await mcpPost(agent, typeof body === "string" ? body : JSON.stringify(body), s.headers);
      expect([label, res.status, res.json.error.code, res.json.id]).toEqual([label, status, code, id]);
    }
    const batch = await mcpPost(agent, [{ jsonrpc: "2.0", id: 1, method: "ping" }], s.headers);
    expect(batch.json).toEqual(
      rpcProblem(
        400,
        "INVALID_REQUEST",
        "Request does not match its contract",
        "JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message per request.",
        -32600,
      ),
    );
    const wrong = await mcpPost(agent, { jsonrpc: "1.0", id: 1, method: "ping" }, s.headers);
    expect(wrong.json).toEqual(
      rpcProblem(400, "INVALID_REQUEST", "Request does not match its contract", '$.jsonrpc must be "2.0".', -32600, 1),
    );
    const unknown = await mcpPost(agent, { jsonrpc: "2.0", id: 5, method: "roots/list" }, s.headers);
    expect(unknown.json).toEqual({
      jsonrpc: "2.0",
      id: 5,
      error: {
        code: -32601,
        message:
          "Method not found: this endpoint serves initialize, ping, tools/list, tools/call, logging/setLevel, resources/list, resources/templates/list, resources/read, resources/subscribe, resources/unsubscribe, prompts/list, prompts/get, completion/complete and (from 2025-11-25) tasks/get, tasks/result, tasks/list, tasks/cancel.",
      },
    });
  });

  it("refuses an oversized body (413), another media type (415), an Accept it cannot answer (406), a GET without text/event-stream (406), other methods (405)", async () => {
    const s = await initialize(agent);
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(70_000) } });
    const oversized = await mcpPost(agent, big, s.headers);
    expect([oversized.status, oversized.json.code, oversized.json.error.code]).toEqual([413, "BODY_TOO_LARGE", -32600]);
    const media = await mcpPost(
      agent,
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { ...s.headers, "content-type": "text/plain" },
    );
    expect([media.status, media.json.code]).toEqual([415, "UNSUPPORTED_MEDIA_TYPE"]);
    for (const accept of ["text/html", "application/json;q=0", ""]) {
      const res = await mcpPost(agent, { jsonrpc: "2.0", id: 1, method: "ping" }, { ...s.headers, accept });
      expect([accept, res.status, res.json.code]).toEqual([accept, 406, "NOT_ACCEPTABLE"]);
    }
    const get = await gate(MCP, {
      method: "GET",
      headers: { authorization: `Bearer ${agent}`, accept: "application/json", ...s.headers },
    });
    expect([get.status, ((await get.json()) as { code: string }).code]).toEqual([406, "NOT_ACCEPTABLE"]);
    const put = await gate(MCP, {
      method: "PUT",
      headers: { authorization: `Bearer ${agent}`, accept: "text/event-stream", ...s.headers },
    });
    expect([put.status, put.headers.get("allow"), ((await put.json()) as { code: string }).code]).toEqual([
      405,
      "GET, POST, DELETE",
      "METHOD_NOT_ALLOWED",
    ]);
  });

  it("answers one SSE event when the client accepts only text/event-stream", async () => {
    const s = await initialize(agent);
    const res = await gate(MCP, {
      method: "POST",
      headers: {
        authorization: `Bearer ${agent}`,
        "content-type": "application/json",
        accept: "text/event-stream",
        ...s.headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect([res.status, res.headers.get("content-type"), await res.text()]).toEqual([
      200,
      "text/event-stream",
      'event: message\ndata: {"id":1,"jsonrpc":"2.0","result":{}}\n\n',
    ]);
  });
});
