/**
 * Issue #13, sampling and elicitation requests of an MCP target relayed to the gate's MCP client,
 * opt-in per registered server: a server registered with `relay` and a client that declared the
 * capability get the request on the call's event stream under an id of the gate's, the client's
 * response (a separate POST of the same session) goes to the downstream with its own id, and the
 * call ends with the downstream's result built from it; each relayed request is audited with a
 * digest. Anything else (a server not opted in, a client without the capability, a sixth…) is
 * refused downstream; a response the gate did not ask for is dropped. The downstream is a real
 * stateful SDK server (test/support/mcp-downstream.ts, `/ask/mcp`).
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adminClient, credential, gate, MCP_ACCEPT, mcpRequest, pinClock, send, wipe } from "../../kit";

const C = "mcp-relay-req-a";
const T0 = 1_784_419_200;
const MCP = `/v1/consumers/${C}/mcp`;
const BOTH = "application/json, text/event-stream";
const ASK = "https://mcp.test/ask/mcp";
const GATE_ID = /^toolgate-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function downstream(path: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(
    `https://mcp.test${path}`,
    body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
  );
  return (await res.json()) as Record<string, any>;
}

const admin = adminClient(C).call;

let agent = "";

function post(
  body: unknown,
  headers: Record<string, string> = {},
  accept = MCP_ACCEPT,
  token = agent,
): Promise<Response> {
  return mcpRequest(C, token, body, headers, accept);
}

async function session(capabilities: Record<string, unknown>, token = agent): Promise<Record<string, string>> {
  const init = await post(
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "test", version: "1" } },
    },
    {},
    BOTH,
    token,
  );
  expect(init.status).toBe(200);
  return { "mcp-session-id": init.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-11-25" };
}

const call = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {} },
});

/** An event stream read one event at a time (each a `message` event with one `data` line). */
class Events {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";

  constructor(res: Response) {
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    this.#reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  }

  async next(): Promise<any> {
    while (!this.#buffer.includes("\n\n")) {
      const chunk = await this.#reader.read();
      if (chunk.done) throw new Error("the stream ended");
      this.#buffer += chunk.value;
    }
    const end = this.#buffer.indexOf("\n\n");
    const [kind, data, ...rest] = this.#buffer.slice(0, end).split("\n");
    this.#buffer = this.#buffer.slice(end + 2);
    expect([kind, rest]).toEqual(["event: message", []]);
    return JSON.parse((data ?? "").slice(6));
  }

  async ended(): Promise<boolean> {
    return this.#buffer === "" && (await this.#reader.read()).done;
  }
}

/** The response's id, isError, content (an MCP target's: the downstream's own) and the gate's status (its receipt in `_meta`). */
function outcome(message: any) {
  return {
    id: message.id,
    isError: message.result.isError,
    content: message.result.content,
    status: message.result._meta["io.toolgate/receipt"].status,
  };
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function relayedAudit(): Promise<unknown[]> {
  const auditor = (await credential(C, "auditor")).secret;
  const entries = (
    (await (await send("GET", `/v1/consumers/${C}/audit`, auditor)).json()) as {
      entries: Array<{ kind: string; record: unknown }>;
    }
  ).entries;
  return entries.filter((e) => e.kind === "mcp.relayed").map((e) => e.record);
}

/** What the downstream saw of responses POSTed to it. */
async function responsesSeen(): Promise<number> {
  return ((await downstream("/_state")).seen as Array<{ rpc: string }>).filter((s) => s.rpc === "(response)").length;
}

const SAMPLING_PARAMS = { maxTokens: 50, messages: [{ content: { text: "Say hello", type: "text" }, role: "user" }] };
const MODEL_ANSWER = {
  role: "assistant",
  content: { type: "text", text: "hello there" },
  model: "test-model",
  stopReason: "endTurn",
};

beforeAll(async () => {
  await wipe(C);
  await admin("PUT", "", { tools: [], approver_subjects: ["rev-1"] });
  await pinClock(C, T0);
  const on = await admin("POST", "/mcp-servers", {
    name: "ask",
    url: ASK,
    timeout_ms: 5_000,
    relay: { sampling: true, elicitation: true },
  });
  expect([on.status, on.body?.server.relay]).toEqual([200, { sampling: true, elicitation: true }]);
  const off = await admin("POST", "/mcp-servers", { name: "ask_off", url: ASK, prefix: "off_", timeout_ms: 5_000 });
  expect([off.status, off.body?.server.relay]).toEqual([200, { sampling: false, elicitation: false }]);
  await admin("PUT", "", {
    tools: ["ask_model", "ask_user", "ask_many", "off_ask_model", "off_ask_user"],
    approver_subjects: ["rev-1"],
  });
  agent = (await credential(C, "agent", "user-1")).secret;
});

beforeEach(async () => {
  await downstream("/_control", { reset: true });
});

describe("registration", () => {
  it("shows each server's relay setting and audits it with the registration", async () => {
    const servers = (await admin("GET", "/mcp-servers")).body?.servers as Array<{ name: string; relay: unknown }>;
    expect(servers.map((s) => [s.name, s.relay])).toEqual([
      ["ask", { sampling: true, elicitation: true }],
      ["ask_off", { sampling: false, elicitation: false }],
    ]);
    const auditor = (await credential(C, "auditor")).secret;
    const entries = (
      (await (await send("GET", `/v1/consumers/${C}/audit`, auditor)).json()) as {
        entries: Array<{ kind: string; record: unknown }>;
      }
    ).entries;
    expect(entries.filter((e) => e.kind === "mcp_server.registered").map((e) => e.record)).toEqual([
      { name: "ask", prefix: "", protocol_version: "2025-11-25", relay: { sampling: true, elicitation: true } },
      {
        name: "ask_off",
        prefix: "off_",
        protocol_version: "2025-11-25",
        relay: { sampling: false, elicitation: false },
      },
    ]);
  });
});

describe("relayed requests", () => {
  it("relays a sampling request under a gate id, forwards the client's answer with the downstream's id, and audits a digest", async () => {
    const before = (await relayedAudit()).length;
    const headers = await session({ sampling: {}, elicitation: {} });
    const stream = new Events(await post(call(2, "ask_model"), headers));
    const request = await stream.next();
    expect(request.id).toMatch(GATE_ID);
    // The downstream's own `_meta` stays downstream.
    expect(request).toEqual({
      jsonrpc: "2.0",
      id: request.id,
      method: "sampling/createMessage",
      params: SAMPLING_PARAMS,
    });
    // The gate declared exactly the client capabilities the server opted into and the client declared.
    expect((await downstream("/_state")).askInit).toEqual([{ sampling: {}, elicitation: {} }]);
    const answered = await post({ jsonrpc: "2.0", id: request.id, result: MODEL_ANSWER }, headers);
    expect([answered.status, await answered.text()]).toEqual([202, ""]);
    expect(outcome(await stream.next())).toEqual({
      id: 2,
      isError: undefined,
      content: [{ type: "text", text: "test-model said: hello there" }],
      status: "succeeded",
    });
    expect(await stream.ended()).toBe(true);
    const state = await downstream("/_state");
    // The downstream got the client's answer under its own request id (the SDK matched it).
    expect(state.asked).toEqual([{ tool: "ask_model", method: "sampling/createMessage", answer: MODEL_ANSWER }]);
    expect((await relayedAudit()).slice(before)).toEqual([
      {
        server: "ask",
        tool: "ask_model",
        method: "sampling/createMessage",
        request_sha256: await sha256(
          '{"maxTokens":50,"messages":[{"content":{"text":"Say hello","type":"text"},"role":"user"}]}',
        ),
        answered: true,
      },
    ]);
  });

  it("relays an elicitation request; the client's error answer reaches the downstream as an error", async () => {
    const headers = await session({ elicitation: {} });
    const stream = new Events(await post(call(3, "ask_user"), headers));
    const request = await stream.next();
    expect(request).toEqual({
      jsonrpc: "2.0",
      id: request.id,
      method: "elicitation/create",
      params: {
        message: "Your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      },
    });
    expect(request.id).toMatch(GATE_ID);
    expect(
      (await post({ jsonrpc: "2.0", id: request.id, result: { action: "accept", content: { name: "Ada" } } }, headers))
        .status,
    ).toBe(202);
    expect(outcome(await stream.next())).toEqual({
      id: 3,
      isError: undefined,
      content: [{ type: "text", text: "accept: Ada" }],
      status: "succeeded",
    });
    expect((await downstream("/_state")).askInit).toEqual([{ elicitation: {} }]);
  });

  it("drops a response with an unknown id, or posted in another session: the downstream sees neither", async () => {
    const headers = await session({ sampling: {} });
    const other = await session({ sampling: {} });
    const stream = new Events(await post(call(4, "ask_model"), headers));
    const request = await stream.next();
    const unknown = await post(
      { jsonrpc: "2.0", id: "toolgate-00000000-0000-4000-8000-000000000000", result: MODEL_ANSWER },
      headers,
    );
    const foreign = await post({ jsonrpc: "2.0", id: request.id, result: MODEL_ANSWER }, other);
    const numeric = await post({ jsonrpc: "2.0", id: 7, result: MODEL_ANSWER }, headers);
    expect([unknown.status, foreign.status, numeric.status]).toEqual([202, 202, 202]);
    expect(await responsesSeen()).toBe(0);
    // The right session's answer still completes the call.
    expect((await post({ jsonrpc: "2.0", id: request.id, result: MODEL_ANSWER }, headers)).status).toBe(202);
    expect(outcome(await stream.next())).toEqual({
      id: 4,
      isError: undefined,
      content: [{ type: "text", text: "test-model said: hello there" }],
      status: "succeeded",
    });
    expect(await responsesSeen()).toBe(1);
    // A second answer to the same id is not forwarded again.
    expect((await post({ jsonrpc: "2.0", id: request.id, result: MODEL_ANSWER }, headers)).status).toBe(202);
    expect(await responsesSeen()).toBe(1);
  });

  it("relays at most four requests per call: the fifth is refused downstream", async () => {
    const headers = await session({ sampling: {} });
    const stream = new Events(await post(call(5, "ask_many"), headers));
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await stream.next()).id);
    for (const id of ids) expect((await post({ jsonrpc: "2.0", id, result: MODEL_ANSWER }, headers)).status).toBe(202);
    expect(outcome(await stream.next())).toEqual({
      id: 5,
      isError: undefined,
      content: [{ type: "text", text: "answered, answered, answered, answered, error -32000" }],
      status: "succeeded",
    });
    expect(new Set(ids).size).toBe(4);
  });
});

describe("refused requests", () => {
  it("refuses with -32601 for a server that did not opt in: the tool fails quickly, nothing is relayed", async () => {
    const before = (await relayedAudit()).length;
    const headers = await session({ sampling: {}, elicitation: {} });
    const started = Date.now();
    const stream = new Events(await post(call(6, "off_ask_model"), headers));
    const last = await stream.next();
    expect([last.id, last.result.isError, last.result._meta["io.toolgate/receipt"].error.code]).toEqual([
      6,
      true,
      "TOOL_ERROR",
    ]);
    expect(await stream.ended()).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    const state = await downstream("/_state");
    expect([state.askInit, state.asked]).toEqual([
      [{}],
      [{ tool: "ask_model", method: "sampling/createMessage", error: -32601 }],
    ]);
    expect((await relayedAudit()).length).toBe(before);
  });

  it("does not relay for a client that declared neither capability (the answer is JSON)", async () => {
    const headers = await session({});
    const res = await post(call(7, "ask_model"), headers);
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "application/json"]);
    const body = (await res.json()) as any;
    expect([body.result.isError, body.result._meta["io.toolgate/receipt"].error.code]).toEqual([true, "TOOL_ERROR"]);
    const state = await downstream("/_state");
    expect([state.askInit, state.asked]).toEqual([
      [{}],
      [{ tool: "ask_model", method: "sampling/createMessage", error: -32601 }],
    ]);
  });

  it("does not relay elicitation to a client that declared only sampling", async () => {
    const headers = await session({ sampling: {} });
    const stream = new Events(await post(call(8, "ask_user"), headers));
    const last = await stream.next();
    expect([last.id, last.result.isError, last.result._meta["io.toolgate/receipt"].error.code]).toEqual([
      8,
      true,
      "TOOL_ERROR",
    ]);
    const state = await downstream("/_state");
    expect([state.askInit, state.asked]).toEqual([
      [{ sampling: {} }],
      [{ tool: "ask_user", method: "elicitation/create", error: -32601 }],
    ]);
  });

  it("does not relay to a client that accepts only JSON", async () => {
    const headers = await session({ sampling: {} });
    const res = await post(call(9, "ask_model"), headers, "application/json");
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "application/json"]);
    expect(((await res.json()) as any).result._meta["io.toolgate/receipt"].error.code).toBe("TOOL_ERROR");
    expect((await downstream("/_state")).asked).toEqual([
      { tool: "ask_model", method: "sampling/createMessage", error: -32601 },
    ]);
  });
});
