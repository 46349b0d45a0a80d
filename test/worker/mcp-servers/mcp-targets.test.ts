/**
 * Issue #13, MCP servers as targets: register a real MCP server (the official SDK's McpServer,
 * test/support/mcp-downstream.ts, behind workerd's outbound fetch), import its tools (one refused
 * for a schema outside the subset), enable and call them through the tool-call route: a read, an
 * approved write carrying the gate's idempotency key in `_meta`, a write whose answer is lost
 * (unknown, never re-sent), a tool error, `tools/list_changed` marking the server stale and a
 * re-import making a new revision; the routes are the admin's, per consumer.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { adminClient, context, credential, pinClock, secretOf, send, wipe } from "../../kit";

const C = "mcp-targets-a";
const OTHER = "mcp-targets-b";
const T0 = 1_784_419_200;
const SHOP = "https://mcp.test/shop/mcp";
const PLAIN = "https://mcp.test/json/mcp";

async function downstream(path: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(
    `https://mcp.test${path}`,
    body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
  );
  return (await res.json()) as Record<string, any>;
}

async function admin(method: string, path: string, body?: unknown, consumer = C) {
  return adminClient(consumer).call(method, path, body);
}

const REGISTRATION = { name: "shop", url: SHOP, auth: { secret: "shop_token" }, timeout_ms: 2_000 };

async function setup(
  tools: string[] = [],
): Promise<{ agent: string; approver: string; registered: { status: number; body: Record<string, any> | null } }> {
  expect((await admin("PUT", "", { tools: [], approver_subjects: ["rev-1"] })).status).toBe(200);
  expect((await admin("PUT", "/secrets/shop_token", { value: "shop-token" })).status).toBe(204);
  await pinClock(C, T0);
  const registered = await admin("POST", "/mcp-servers", REGISTRATION);
  expect(registered.status).toBe(200);
  if (tools.length > 0) expect((await admin("PUT", "", { tools, approver_subjects: ["rev-1"] })).status).toBe(200);
  return {
    agent: await secretOf(C, "agent", undefined, { roles: ["support"] }),
    approver: await secretOf(C, "approver", "rev-1"),
    registered,
  };
}

let n = 0;
async function callTool(agent: string, name: string, args: Record<string, unknown>, key: string | null = null) {
  n += 1;
  const callId = key === null ? `call-${n}` : `call-${key}`;
  const res = await send("POST", `/v1/consumers/${C}/tool-calls`, agent, {
    principal: { subject_id: "user-1", roles: ["support"] },
    proposal: { name, arguments: args },
    context: context(callId, { key }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function approve(approver: string, approvalId: string) {
  const list = (await (await send("GET", `/v1/consumers/${C}/approvals`, approver)).json()) as {
    approvals: Array<{ approval_id: string; approval_digest: string }>;
  };
  const digest = list.approvals.find((a) => a.approval_id === approvalId)?.approval_digest;
  expect(
    (
      await send("POST", `/v1/consumers/${C}/approvals/${approvalId}`, approver, {
        decision: "approve",
        approval_digest: digest,
      })
    ).status,
  ).toBe(200);
}

/** The requests the shop saw since `from`, as `rpc` names. */
async function rpcsSince(from: number): Promise<string[]> {
  return ((await downstream("/_state")).seen as Array<{ rpc: string }>).slice(from).map((s) => s.rpc);
}

const STRING = { type: "string" };
/** The schema of one content block, as docs/tools.md ("MCP targets") writes it. */
const BLOCK = {
  type: "object",
  properties: {
    type: { type: "string", enum: ["text", "image", "audio", "resource_link", "resource"] },
    text: STRING,
    data: STRING,
    mimeType: STRING,
    uri: STRING,
    name: STRING,
    title: STRING,
    description: STRING,
    size: { type: "number", minimum: 0 },
    annotations: {
      type: "object",
      properties: {
        audience: { type: "array", items: { type: "string", enum: ["user", "assistant"] }, maxItems: 2 },
        priority: { type: "number", minimum: 0, maximum: 1 },
        lastModified: STRING,
      },
    },
    resource: {
      type: "object",
      properties: { uri: STRING, mimeType: STRING, text: STRING, blob: STRING },
      required: ["uri"],
    },
  },
  required: ["type"],
};
const INT53 = { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 };

beforeEach(async () => {
  await wipe(C, OTHER);
  await downstream("/_control", { reset: true, token: "shop-token" });
});

describe("registering an MCP server", () => {
  it("imports its tools as definitions (not enabled), refusing the one outside the schema subset", async () => {
    const { registered } = await setup();
    const server = {
      name: "shop",
      url: SHOP,
      prefix: "",
      auth: { secret: "shop_token", prefix: "Bearer " },
      timeout_ms: 2_000,
      relay: { sampling: false, elicitation: false },
      protocol_version: "2025-11-25",
      server_info: { name: "shop", version: "1.2.0" },
      tools: ["broken", "create_order", "get_item", "refresh_catalog", "slow_order"].map((name) => ({
        name,
        downstream: name,
      })),
      registered_at: T0,
      imported_at: T0,
      stale: false,
      list_changed_at: null,
    };
    const imported = (change: string) => [
      { name: "broken", downstream: "broken", risk: "read", revision: 1, change },
      { name: "create_order", downstream: "create_order", risk: "write", revision: 1, change },
      { name: "get_item", downstream: "get_item", risk: "read", revision: 1, change },
      { name: "refresh_catalog", downstream: "refresh_catalog", risk: "read", revision: 1, change },
      { name: "slow_order", downstream: "slow_order", risk: "write", revision: 1, change },
    ];
    const refused = [
      // zod 4 writes `.email()` as format "email" (accepted, validated) and its own pattern, which the backtracking
      // guard refuses (docs/tools.md, "The schema subset"): the tool stays out until patterns run in linear time.
      {
        downstream: "with_email",
        reason:
          '/inputSchema/properties/email/pattern: "pattern" is refused: nested quantifiers: a repeated part holds a quantifier (at offset 24)',
      },
    ];
    expect(registered).toEqual({
      status: 200,
      body: { server, imported: imported("new"), refused, gone: [], truncated: false },
    });
    // Importing again changes nothing: every definition keeps its version.
    expect(await admin("POST", "/mcp-servers/shop/import")).toEqual({
      status: 200,
      body: { server, imported: imported("unchanged"), refused, gone: [], truncated: false },
    });
    expect(await admin("GET", "/mcp-servers")).toEqual({ status: 200, body: { servers: [server], next_cursor: null } });
    // Stored, not enabled: the consumer's tool list is unchanged until the admin names them.
    expect((await admin("GET", "/tools")).body?.enabled).toEqual([]);
    const getItem = (await admin("GET", "/tools/get_item")).body;
    expect(getItem?.history[0].definition).toEqual({
      description: "Read an item's name and stock.",
      risk: "read",
      timeout_ms: 2_000,
      input: { type: "object", properties: { id: { type: "string", maxLength: 8 } }, required: ["id"] },
      output: {
        schema: {
          type: "object",
          properties: {
            content: { type: "array", items: BLOCK, maxItems: 128 },
            structuredContent: {
              type: "object",
              properties: { id: STRING, name: STRING, stock: INT53 },
              required: ["id", "name", "stock"],
              additionalProperties: false,
            },
          },
          required: ["content", "structuredContent"],
        },
        bound_to_arguments: {},
        max_bytes: 262_144,
        max_depth: 16,
      },
      authorize: "true",
      target: {
        kind: "mcp",
        url: SHOP,
        tool: "get_item",
        auth: { secret: "shop_token", prefix: "Bearer " },
        max_response_bytes: 262_144,
      },
    });
    // A tool with a title and no description takes its title; one without an output schema carries content only.
    const order = (await admin("GET", "/tools/slow_order")).body?.history[0].definition;
    expect([
      (await admin("GET", "/tools/create_order")).body?.history[0].definition.description,
      order.output.schema,
    ]).toEqual([
      "Create an order",
      {
        type: "object",
        properties: { content: { type: "array", items: BLOCK, maxItems: 128 } },
        required: ["content"],
      },
    ]);
  });

  it("reads plain JSON answers of a stateless server, with a prefix", async () => {
    const { agent } = await setup();
    const plain = await admin("POST", "/mcp-servers", { name: "plain", url: PLAIN, prefix: "plain_" });
    expect([plain.status, plain.body?.imported, plain.body?.refused, plain.body?.server.protocol_version]).toEqual([
      200,
      [{ name: "plain_echo", downstream: "echo", risk: "read", revision: 1, change: "new" }],
      [],
      "2025-11-25",
    ]);
    expect((await admin("PUT", "", { tools: ["plain_echo"], approver_subjects: ["rev-1"] })).status).toBe(200);
    // An imported tool is declared to models like any other (OpenAI's strict form: docs/tools.md).
    expect((await admin("GET", "/tools?format=openai")).body?.tools).toEqual([
      {
        type: "function",
        name: "plain_echo",
        description: "Echo a word.",
        parameters: {
          type: "object",
          properties: { word: { type: "string", description: "At most 16 characters long." } },
          required: ["word"],
          additionalProperties: false,
        },
        strict: true,
      },
    ]);
    const echoed = await callTool(agent, "plain_echo", { word: "hello" });
    expect([echoed.status, echoed.body.model_result.status, echoed.body.model_result.data]).toEqual([
      200,
      "succeeded",
      { content: [{ type: "text", text: "hello" }] },
    ]);
    const seen = ((await downstream("/_state")).seen as Array<{ path: string; rpc: string; session: boolean }>).filter(
      (s) => s.path === "/json/mcp",
    );
    // Stateless: no session id, so nothing to DELETE.
    expect(seen.map((s) => [s.rpc, s.session])).toEqual([
      ["initialize", false],
      ["notifications/initialized", false],
      ["tools/list", false],
      ["initialize", false],
      ["notifications/initialized", false],
      ["tools/call", false],
    ]);
  });

  it("refuses a name twice, a plain-http URL, an unknown secret, an unreachable or refusing server, and a 17th server", async () => {
    await setup();
    const refusal = async (body: Record<string, unknown>) => {
      const res = await admin("POST", "/mcp-servers", body);
      return [res.status, res.body?.code, res.body?.detail, res.body?.path];
    };
    expect(await refusal(REGISTRATION)).toEqual([
      409,
      "MCP_SERVER_EXISTS",
      'An MCP server named "shop" is registered (POST …/mcp-servers/shop/import imports it again).',
      undefined,
    ]);
    // (The message adds "or loopback http" where the Worker admits loopback targets.)
    const web = await refusal({ name: "web", url: "http://mcp.test/shop/mcp" });
    expect([web[0], web[1], String(web[2]).startsWith("a target URL is https"), web[3]]).toEqual([
      400,
      "INVALID_REQUEST",
      true,
      "/url",
    ]);
    expect(await refusal({ name: "nosecret", url: SHOP, auth: { secret: "missing" } })).toEqual([
      400,
      "INVALID_REQUEST",
      'No secret named "missing" (PUT …/secrets/missing first).',
      "/auth/secret",
    ]);
    expect(await refusal({ name: "nowhere", url: "https://mcp.test/nowhere" })).toEqual([
      422,
      "MCP_SERVER_UNREACHABLE",
      'The MCP server "nowhere" could not be imported: initialize: HTTP 404.',
      undefined,
    ]);
    expect(await refusal({ name: "noauth", url: SHOP })).toEqual([
      422,
      "MCP_SERVER_UNREACHABLE",
      'The MCP server "noauth" could not be imported: initialize: HTTP 401.',
      undefined,
    ]);
    for (let i = 2; i <= 16; i++)
      expect((await admin("POST", "/mcp-servers", { name: `plain-${i}`, url: PLAIN, prefix: `p${i}_` })).status).toBe(
        200,
      );
    expect(await refusal({ name: "plain-17", url: PLAIN, prefix: "p17_" })).toEqual([
      429,
      "QUOTA_EXCEEDED",
      "A consumer registers at most 16 MCP servers.",
      undefined,
    ]);
    expect(((await admin("GET", "/mcp-servers")).body?.servers as unknown[]).length).toBe(16);
  });

  it("is the admin's, per consumer: agents are refused, another consumer sees nothing", async () => {
    const { agent } = await setup();
    for (const [method, path] of [
      ["GET", "/mcp-servers"],
      ["GET", "/mcp-servers/shop"],
      ["POST", "/mcp-servers/shop/import"],
      ["DELETE", "/mcp-servers/shop"],
    ] as const) {
      const res = await send(method, `/v1/consumers/${C}${path}`, agent);
      expect([method, path, res.status]).toEqual([method, path, 401]);
    }
    expect((await send("POST", `/v1/consumers/${C}/mcp-servers`, agent, { name: "x", url: SHOP })).status).toBe(401);
    expect((await admin("PUT", "", { tools: [], approver_subjects: [] }, OTHER)).status).toBe(200);
    expect(await admin("GET", "/mcp-servers", undefined, OTHER)).toEqual({
      status: 200,
      body: { servers: [], next_cursor: null },
    });
    for (const [method, path] of [
      ["GET", "/mcp-servers/shop"],
      ["POST", "/mcp-servers/shop/import"],
      ["DELETE", "/mcp-servers/shop"],
    ] as const) {
      const res = await admin(method, path, undefined, OTHER);
      expect([method, path, res.status, res.body?.code]).toEqual([method, path, 404, "NOT_FOUND"]);
    }
    expect((await admin("GET", "/mcp-servers/Not-A-Name")).status).toBe(404);
    const doc = (await (await send("GET", "/v1/openapi.json", null)).json()) as {
      paths: Record<string, unknown>;
      components: { schemas: Record<string, unknown> };
    };
    const paths = Object.keys(doc.paths).filter((p) => p.includes("/mcp-servers"));
    expect([
      paths,
      ["McpTarget", "McpServerRegistration", "McpImportResult", "McpServer"].filter(
        (id) => !(id in doc.components.schemas),
      ),
    ]).toEqual([
      [
        "/v1/consumers/{consumer}/mcp-servers",
        "/v1/consumers/{consumer}/mcp-servers/{name}",
        "/v1/consumers/{consumer}/mcp-servers/{name}/import",
      ],
      [],
    ]);
  });

  it("unregistering disables the definitions it imported", async () => {
    const { agent } = await setup(["get_item"]);
    expect(await admin("DELETE", "/mcp-servers/shop")).toEqual({
      status: 200,
      body: { name: "shop", disabled: ["broken", "create_order", "get_item", "refresh_catalog", "slow_order"] },
    });
    expect((await admin("GET", "/mcp-servers/shop")).status).toBe(404);
    expect((await callTool(agent, "get_item", { id: "w-1" })).body.model_result.error.code).toBe("UNKNOWN_TOOL");
  });
});

describe("calling an MCP target", () => {
  it("a read: one session (initialize, initialized, tools/call, DELETE) with the secret and the signed identity; content and structured content", async () => {
    const { agent } = await setup(["get_item"]);
    const from = ((await downstream("/_state")).seen as unknown[]).length;
    const read = await callTool(agent, "get_item", { id: "w-1" });
    expect([
      read.status,
      read.body.model_result.status,
      read.body.model_result.data,
      read.body.model_result.provenance.observed_at,
    ]).toEqual([
      200,
      "succeeded",
      {
        content: [{ type: "text", text: "item w-1: Widget, 3 in stock", annotations: { audience: ["assistant"] } }],
        structuredContent: { id: "w-1", name: "Widget", stock: 3 },
      },
      "2026-07-19T00:00:00Z",
    ]);
    const seen = ((await downstream("/_state")).seen as Array<Record<string, unknown>>).slice(from);
    const identity = {
      call_id: `call-${n}`,
      consumer: C,
      operation_id: `op-call-${n}`,
      roles: ["support"],
      subject_id: "user-1",
      tool: "get_item",
    };
    expect(seen).toEqual([
      {
        path: "/shop/mcp",
        rpc: "initialize",
        session: false,
        protocol: null,
        authorization: "Bearer shop-token",
        identity,
      },
      {
        path: "/shop/mcp",
        rpc: "notifications/initialized",
        session: true,
        protocol: "2025-11-25",
        authorization: "Bearer shop-token",
        identity,
      },
      {
        path: "/shop/mcp",
        rpc: "tools/call",
        session: true,
        protocol: "2025-11-25",
        authorization: "Bearer shop-token",
        identity,
      },
      {
        path: "/shop/mcp",
        rpc: "DELETE",
        session: true,
        protocol: "2025-11-25",
        authorization: "Bearer shop-token",
        identity,
      },
    ]);
    expect((await downstream("/_state")).runs).toEqual([{ tool: "get_item", arguments: { id: "w-1" }, key: null }]);
  });

  it("a write: approval first, then one tools/call carrying the gate's idempotency key in _meta; a repeat replays", async () => {
    const { agent, approver } = await setup(["create_order"]);
    const pending = await callTool(agent, "create_order", { item: "w-1", quantity: 2 }, "k-1");
    expect(pending.body.model_result.error.code).toBe("APPROVAL_REQUIRED");
    expect((await downstream("/_state")).runs).toEqual([]);
    await approve(approver, pending.body.approval_id);
    const done = await callTool(agent, "create_order", { item: "w-1", quantity: 2 }, "k-1");
    expect([done.body.model_result.status, done.body.model_result.data]).toEqual([
      "succeeded",
      { content: [{ type: "text", text: "created ORD-1" }], structuredContent: { order_id: "ORD-1" } },
    ]);
    const replay = await callTool(agent, "create_order", { item: "w-1", quantity: 2 }, "k-1");
    expect([replay.body.model_result.execution.delivery, replay.body.model_result.data.structuredContent]).toEqual([
      "local_replay",
      { order_id: "ORD-1" },
    ]);
    const state = await downstream("/_state");
    const calls = (state.seen as Array<{ rpc: string; identity: { status_ref?: string } }>).filter(
      (s) => s.rpc === "tools/call",
    );
    expect(state.runs).toHaveLength(1);
    expect(calls).toHaveLength(1);
    expect(state.runs[0]).toEqual({
      tool: "create_order",
      arguments: { item: "w-1", quantity: 2 },
      key: calls[0]?.identity.status_ref,
    });
    expect(state.runs[0].key).toMatch(/^status_[0-9a-f]{32}$/);
  });

  it("a write whose answer is lost after the server did the work is OUTCOME_UNKNOWN, and is never sent again", async () => {
    const { agent, approver } = await setup(["slow_order"]);
    const pending = await callTool(agent, "slow_order", { item: "w-9" }, "k-slow");
    await approve(approver, pending.body.approval_id);
    const lost = await callTool(agent, "slow_order", { item: "w-9" }, "k-slow");
    expect([
      lost.body.model_result.status,
      lost.body.model_result.error.code,
      lost.body.model_result.execution.outcome,
    ]).toEqual(["unknown", "OUTCOME_UNKNOWN", "unknown"]);
    const again = await callTool(agent, "slow_order", { item: "w-9" }, "k-slow");
    expect([again.body.model_result.error.code, again.body.status_ref]).toEqual([
      "OUTCOME_UNKNOWN",
      lost.body.status_ref,
    ]);
    // MCP has no status query: asking answers that it stays unknown, and asks the server nothing.
    const status = await send("POST", `/v1/consumers/${C}/tool-calls/status`, agent, {
      principal: { subject_id: "user-1", roles: ["support"] },
      proposal: { name: "slow_order", arguments: { item: "w-9" } },
      context: context("status-1", { key: "k-slow" }),
      status_ref: lost.body.status_ref,
    });
    expect(((await status.json()) as Record<string, any>).model_result.error.code).toBe("OUTCOME_UNKNOWN");
    // The server finishes the work it was asked once (slowMs 2,500 after the 2,000 ms deadline).
    await new Promise((done) => setTimeout(done, 1_000));
    const state = await downstream("/_state");
    expect([
      state.runs.map((r: { tool: string }) => r.tool),
      (state.seen as Array<{ rpc: string }>).filter((s) => s.rpc === "tools/call").length,
    ]).toEqual([["slow_order"], 1]);
  });

  it("a tool error (isError) is TOOL_ERROR: the server answered, nothing is unknown", async () => {
    const { agent } = await setup(["broken"]);
    const broken = await callTool(agent, "broken", {});
    expect([
      broken.body.model_result.status,
      broken.body.model_result.error.code,
      broken.body.model_result.execution.outcome,
      broken.body.model_result.data,
    ]).toEqual(["failed", "TOOL_ERROR", "not_started", null]);
  });

  it("tools/list_changed during a call marks the server stale; a stale tool runs its stored revision until a re-import makes a new one", async () => {
    const { agent } = await setup(["get_item", "refresh_catalog"]);
    const long = "w-123456789";
    expect((await callTool(agent, "refresh_catalog", {})).body.model_result.data).toEqual({
      content: [{ type: "text", text: "catalog reloaded" }],
    });
    const stale = (await admin("GET", "/mcp-servers/shop")).body;
    expect([stale?.stale, stale?.list_changed_at]).toEqual([true, T0]);
    expect((await callTool(agent, "get_item", { id: "w-1" })).body.model_result.status).toBe("succeeded");
    expect((await callTool(agent, "get_item", { id: long })).body.model_result.error.code).toBe("INVALID_ARGUMENTS");
    const reimported = await admin("POST", "/mcp-servers/shop/import");
    expect([
      reimported.status,
      reimported.body?.imported.map((t: { name: string; revision: number; change: string }) => [
        t.name,
        t.revision,
        t.change,
      ]),
      reimported.body?.server.stale,
    ]).toEqual([
      200,
      [
        ["broken", 1, "unchanged"],
        ["create_order", 1, "unchanged"],
        ["get_item", 2, "updated"],
        ["refresh_catalog", 1, "unchanged"],
        ["slow_order", 1, "unchanged"],
      ],
      false,
    ]);
    const history = (await admin("GET", "/tools/get_item")).body;
    expect([
      history?.current_version,
      history?.history[0].definition.input.properties.id,
      history?.history[0].revisions.input === history?.history[1].revisions.input,
    ]).toEqual([2, { type: "string", maxLength: 16 }, false]);
    const longRead = await callTool(agent, "get_item", { id: long });
    expect([longRead.body.model_result.status, longRead.body.model_result.data.structuredContent]).toEqual([
      "succeeded",
      { id: long, name: "Widget", stock: 3 },
    ]);
    const auditor = (await credential(C, "auditor")).secret;
    const entries = (
      (await (await send("GET", `/v1/consumers/${C}/audit`, auditor)).json()) as {
        entries: Array<{ kind: string; record: Record<string, unknown> }>;
      }
    ).entries;
    expect(entries.filter((e) => e.kind.startsWith("mcp_server.")).map((e) => [e.kind, e.record])).toEqual([
      [
        "mcp_server.registered",
        { name: "shop", prefix: "", protocol_version: "2025-11-25", relay: { sampling: false, elicitation: false } },
      ],
      [
        "mcp_server.imported",
        {
          name: "shop",
          imported: ["broken", "create_order", "get_item", "refresh_catalog", "slow_order"].map((name) => ({
            name,
            version: 1,
          })),
          refused: ["with_email"],
          gone: [],
        },
      ],
      ["mcp_server.list_changed", { name: "shop" }],
      [
        "mcp_server.imported",
        {
          name: "shop",
          imported: ["broken", "create_order", "get_item", "refresh_catalog", "slow_order"].map((name) => ({
            name,
            version: name === "get_item" ? 2 : 1,
          })),
          refused: ["with_email"],
          gone: [],
        },
      ],
    ]);
  });

  it("a re-import keeps the admin's rules written since (it never loosens them)", async () => {
    await setup();
    const current = (await admin("GET", "/tools/get_item")).body?.history[0].definition;
    expect(
      (await admin("PUT", "/tools/get_item", { ...current, authorize: '"support" in principal.roles' })).body?.version,
    ).toBe(2);
    const reimported = await admin("POST", "/mcp-servers/shop/import");
    expect(reimported.body?.imported.find((t: { name: string }) => t.name === "get_item")).toEqual({
      name: "get_item",
      downstream: "get_item",
      risk: "read",
      revision: 2,
      change: "unchanged",
    });
    expect((await admin("GET", "/tools/get_item")).body?.history[0].definition.authorize).toBe(
      '"support" in principal.roles',
    );
  });
});
