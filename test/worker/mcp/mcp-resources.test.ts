/**
 * Resources and prompts of the consumer's MCP servers through its MCP endpoint (docs/mcp.md,
 * "Resources, prompts and completion"): a real SDK server (test/support/mcp-downstream.ts,
 * `/json/mcp`) registered with the prefix `plain_`; a credential that may call its tool sees its
 * resources, template and prompt under prefixed names, reads and gets them (audited by digest);
 * a credential whose tool scope leaves that tool out sees nothing of the server. GET opens the
 * session's server-to-client stream.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { adminClient, credential, gate, mcpPath, mcpPost, send } from "../../kit";

const C = "mcp-resources-a";
const PLAIN = "https://mcp.test/json/mcp";
const README = { uri: "plain_docs://readme", mimeType: "text/plain", text: "Read me first." };

let allowed: { id: string; secret: string };
let scopedOut: { id: string; secret: string };

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function session(token: string): Promise<Record<string, string>> {
  const res = await mcpPost(C, token, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } },
  });
  expect(res.status).toBe(200);
  return { "mcp-session-id": res.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-11-25" };
}

let id = 0;
async function rpc(token: string, headers: Record<string, string>, method: string, params: unknown = {}) {
  id += 1;
  const res = await mcpPost(C, token, { jsonrpc: "2.0", id, method, params }, headers);
  expect(res.status).toBe(200);
  return res.json as { result?: unknown; error?: unknown };
}

async function auditOf(kind: string): Promise<unknown[]> {
  const auditor = (await credential(C, "auditor")).secret;
  const entries = (
    (await (await send("GET", `/v1/consumers/${C}/audit`, auditor)).json()) as {
      entries: Array<{ kind: string; record: unknown }>;
    }
  ).entries;
  return entries.filter((e) => e.kind === kind).map((e) => e.record);
}

beforeAll(async () => {
  const admin = adminClient(C);
  expect((await admin.call("PUT", "", { tools: [], approver_subjects: ["rev-1"] })).status).toBe(200);
  const registered = await admin.call("POST", "/mcp-servers", { name: "plain", url: PLAIN, prefix: "plain_" });
  expect(registered.status).toBe(200);
  const config = { tools: ["plain_echo", "get_order"], approver_subjects: ["rev-1"] };
  expect((await admin.call("PUT", "", config)).status).toBe(200);
  allowed = await credential(C, "agent", "user-1");
  scopedOut = await credential(C, "agent", "user-2", { tools: ["get_order"] });
});

describe("resources and prompts of MCP servers, under the tool scope", () => {
  it("lists the server's resources, template and prompt with the server's prefix", async () => {
    const s = await session(allowed.secret);
    expect(await rpc(allowed.secret, s, "resources/list")).toEqual({
      jsonrpc: "2.0",
      id,
      result: {
        resources: [
          { uri: "plain_docs://readme", name: "readme", description: "The read-me.", mimeType: "text/plain" },
        ],
      },
    });
    expect((await rpc(allowed.secret, s, "resources/templates/list")).result).toEqual({
      resourceTemplates: [
        {
          uriTemplate: "plain_docs://items/{id}",
          name: "item",
          description: "One item.",
          mimeType: "application/json",
        },
      ],
    });
    expect((await rpc(allowed.secret, s, "prompts/list")).result).toEqual({
      prompts: [{ name: "plain_greet", description: "Greets someone.", arguments: [{ name: "who", required: true }] }],
    });
  });

  it("reads a resource and a template's, gets a prompt; each read and get is audited by digest", async () => {
    const s = await session(allowed.secret);
    const before = {
      reads: (await auditOf("mcp.resource.read")).length,
      gets: (await auditOf("mcp.prompt.get")).length,
    };
    expect((await rpc(allowed.secret, s, "resources/read", { uri: "plain_docs://readme" })).result).toEqual({
      contents: [README],
    });
    const item = { uri: "plain_docs://items/7", mimeType: "application/json", text: '{"id":"7"}' };
    expect((await rpc(allowed.secret, s, "resources/read", { uri: "plain_docs://items/7" })).result).toEqual({
      contents: [item],
    });
    const messages = [
      { role: "user", content: { type: "text", text: "Greet Ada." } },
      { role: "user", content: { type: "resource", resource: README } },
    ];
    expect(
      (await rpc(allowed.secret, s, "prompts/get", { name: "plain_greet", arguments: { who: "Ada" } })).result,
    ).toEqual({ messages });
    const who = { credential_id: allowed.id, subject_id: "user-1" };
    expect((await auditOf("mcp.resource.read")).slice(before.reads)).toEqual([
      {
        server: "plain",
        uri: "plain_docs://readme",
        ...who,
        contents_sha256: await sha256(
          '[{"mimeType":"text/plain","text":"Read me first.","uri":"plain_docs://readme"}]',
        ),
      },
      {
        server: "plain",
        uri: "plain_docs://items/7",
        ...who,
        contents_sha256: await sha256(
          '[{"mimeType":"application/json","text":"{\\"id\\":\\"7\\"}","uri":"plain_docs://items/7"}]',
        ),
      },
    ]);
    expect((await auditOf("mcp.prompt.get")).slice(before.gets)).toEqual([
      {
        server: "plain",
        name: "plain_greet",
        ...who,
        arguments_sha256: await sha256('{"who":"Ada"}'),
        messages_sha256: await sha256(
          '[{"content":{"text":"Greet Ada.","type":"text"},"role":"user"},' +
            '{"content":{"resource":{"mimeType":"text/plain","text":"Read me first.","uri":"plain_docs://readme"},"type":"resource"},"role":"user"}]',
        ),
      },
    ]);
  });

  it("forwards completion/complete to the server owning the prompt, under its own name", async () => {
    const s = await session(allowed.secret);
    const ask = (name: string) =>
      rpc(allowed.secret, s, "completion/complete", {
        ref: { type: "ref/prompt", name },
        argument: { name: "who", value: "A" },
      });
    expect((await ask("plain_greet")).result).toEqual({
      completion: { values: ["Ada", "Alan"], total: 2, hasMore: false },
    });
    expect((await ask("greet")).error).toEqual({ code: -32602, message: "Nothing to complete for this reference." });
    const scoped = await session(scopedOut.secret);
    const refused = await rpc(scopedOut.secret, scoped, "completion/complete", {
      ref: { type: "ref/prompt", name: "plain_greet" },
      argument: { name: "who", value: "A" },
    });
    expect(refused.error).toEqual({ code: -32602, message: "Nothing to complete for this reference." });
  });

  it("answers a name without the server's prefix as not found (names are namespaced)", async () => {
    const s = await session(allowed.secret);
    expect((await rpc(allowed.secret, s, "resources/read", { uri: "docs://readme" })).error).toEqual({
      code: -32002,
      message: "Resource not found.",
    });
    expect((await rpc(allowed.secret, s, "prompts/get", { name: "greet" })).error).toEqual({
      code: -32602,
      message: "Prompt not found.",
    });
  });

  it("shows a credential whose tool scope leaves out the server's tools nothing of it, and audits nothing", async () => {
    const s = await session(scopedOut.secret);
    const before = {
      reads: (await auditOf("mcp.resource.read")).length,
      gets: (await auditOf("mcp.prompt.get")).length,
    };
    expect((await rpc(scopedOut.secret, s, "resources/list")).result).toEqual({ resources: [] });
    expect((await rpc(scopedOut.secret, s, "resources/templates/list")).result).toEqual({ resourceTemplates: [] });
    expect((await rpc(scopedOut.secret, s, "prompts/list")).result).toEqual({ prompts: [] });
    expect((await rpc(scopedOut.secret, s, "resources/read", { uri: "plain_docs://readme" })).error).toEqual({
      code: -32002,
      message: "Resource not found.",
    });
    expect((await rpc(scopedOut.secret, s, "resources/subscribe", { uri: "plain_docs://readme" })).error).toEqual({
      code: -32002,
      message: "Resource not found.",
    });
    expect(
      (await rpc(scopedOut.secret, s, "prompts/get", { name: "plain_greet", arguments: { who: "Ada" } })).error,
    ).toEqual({ code: -32602, message: "Prompt not found." });
    expect([(await auditOf("mcp.resource.read")).length, (await auditOf("mcp.prompt.get")).length]).toEqual([
      before.reads,
      before.gets,
    ]);
  });

  it("passes on the owner's refusal of a subscription; unsubscribe is {}; GET opens the session's event stream", async () => {
    const s = await session(allowed.secret);
    // The SDK's McpServer declares no resources.subscribe: the gate asks it, and its answer stands.
    expect((await rpc(allowed.secret, s, "resources/subscribe", { uri: "plain_docs://readme" })).error).toEqual({
      code: -32601,
      message: "Method not found",
    });
    expect((await rpc(allowed.secret, s, "resources/unsubscribe", { uri: "plain_docs://readme" })).result).toEqual({});
    const res = await gate(mcpPath(C), {
      method: "GET",
      headers: { authorization: `Bearer ${allowed.secret}`, accept: "text/event-stream", ...s },
    });
    expect([res.status, res.headers.get("content-type"), res.headers.get("mcp-session-id")]).toEqual([
      200,
      "text/event-stream",
      s["mcp-session-id"],
    ]);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(": toolgate stream\n\n");
    await reader.cancel();
    const unknown = await gate(mcpPath(C), {
      method: "GET",
      headers: {
        authorization: `Bearer ${allowed.secret}`,
        accept: "text/event-stream",
        "mcp-session-id": "0".repeat(32),
      },
    });
    expect(unknown.status).toBe(404);
    await unknown.body?.cancel();
  });
});
