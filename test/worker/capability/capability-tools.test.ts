/**
 * Capabilities as tools: MCP `tools/list` lists what an attached provider offers and the
 * caller's grants and scope allow; `tools/call` and `POST …/tool-calls` run one capability
 * request under the engine's grants and audit and answer its result as tool content.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { capabilityToolName, capabilityToolNames } from "../../../src/worker/features/capability/tool-names";
import { credential, mcpPost, pinClock, send, wipe } from "../../kit";
import { grant, PROVIDER, setupCapabilityConsumer, SNAPSHOT, type CapabilityConsumer } from "../capability-support";

const CONSUMER = "cap-tools";
/** The pinned object clock (2026-07-19T00:00:00Z). */
const NOW = 1_784_419_200;
const OBSERVED_AT = "2026-07-19T00:00:00Z";

let c: CapabilityConsumer;

async function session(token: string): Promise<Record<string, string>> {
  const res = await mcpPost(CONSUMER, token, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  expect(res.status).toBe(200);
  return { "mcp-session-id": res.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-11-25" };
}

async function listNames(token: string): Promise<string[]> {
  const res = await mcpPost(CONSUMER, token, { jsonrpc: "2.0", id: 1, method: "tools/list" }, await session(token));
  return (res.json.result.tools as Array<{ name: string }>).map((t) => t.name);
}

async function callSnapshot(token: string, args: Record<string, unknown> = {}) {
  return mcpPost(
    CONSUMER,
    token,
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "browser_page_snapshot", arguments: args } },
    await session(token),
  );
}

async function providerPost(path: string, body?: unknown): Promise<Response> {
  return send("POST", `/v1/consumers/${CONSUMER}/capability/providers/${PROVIDER}/${path}`, c.provider, body);
}

/** The last effect sequence the test's provider acknowledged. */
let acked = 0;

/** The provider's next effects by long-poll (waits up to 5 s for one), acknowledging the ones before. */
async function effects(binding: number): Promise<Array<{ effect: Record<string, unknown> }>> {
  const res = await send(
    "GET",
    `/v1/consumers/${CONSUMER}/capability/providers/${PROVIDER}/effects?binding_id=${binding}&after=${acked}&wait=5000`,
    c.provider,
  );
  expect(res.status).toBe(200);
  const list = ((await res.json()) as { effects: Array<{ effect: Record<string, unknown> & { sequence: number } }> })
    .effects;
  acked = list.at(-1)?.effect.sequence ?? acked;
  return list;
}

/** The next invoke's operation and local id. */
async function nextInvoke(): Promise<{ operation_id: number; local_id: number }> {
  const [bound] = await effects(1);
  const effect = bound?.effect as { operation_id: number; request_key: { local_id: number } };
  return { operation_id: effect.operation_id, local_id: effect.request_key.local_id };
}

/** The provider observes `observation` for an invoke of `actor`. */
async function observe(actor: string, invoke: { operation_id: number; local_id: number }, observation: unknown) {
  const res = await providerPost("observations", {
    binding_id: 1,
    observation: {
      operation_id: invoke.operation_id,
      request_key: { consumer_id: CONSUMER, actor_id: actor, local_id: invoke.local_id },
      instance_id: 7,
      generation: 1,
      provider_id: PROVIDER,
      observation,
    },
  });
  expect(res.status).toBe(200);
}

async function auditEntries(kind: string): Promise<unknown[]> {
  const res = await send("GET", `/v1/consumers/${CONSUMER}/audit?limit=500`, c.auditor);
  const page = (await res.json()) as { entries: Array<{ kind: string; record: unknown }> };
  return page.entries.filter((e) => e.kind === kind).map((e) => e.record);
}

/** The test grant's key for another actor. */
function grantKeyOf(actor: string) {
  return {
    consumer_id: CONSUMER,
    actor_id: actor,
    instance_id: 7,
    generation: 1,
    provider_id: PROVIDER,
    capability_id: SNAPSHOT,
    resource_scope_id: "tab:1",
  };
}

interface Approval {
  key: { consumer_id: string; actor_id: string; local_id: number };
  accepted_sequence: number;
  approval_summary: string;
}

/** The first capability approval once one is open (polled). */
async function firstApproval(): Promise<Approval> {
  for (let i = 0; i < 50; i += 1) {
    const res = await send("GET", `/v1/consumers/${CONSUMER}/capability/approvals`, c.approver);
    const [first] = ((await res.json()) as { approvals: Approval[] }).approvals;
    if (first !== undefined) return first;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("no approval opened");
}

const failedModel = (code: string, category: string, message: string, recovery: string) => ({
  schema_version: "tool-model-result-v2",
  status: "failed",
  data: null,
  error: { code, category, safe_message: message, recovery, retry_after_ms: null },
  execution: { outcome: "not_started", delivery: "fresh", complete: true, truncated: false },
  provenance: {
    source_label: "offline-dispatcher",
    producer_revision: "offline-dispatcher-v2",
    resource_revision: null,
    observed_at: OBSERVED_AT,
    trust: "trusted_control",
  },
});

beforeAll(async () => {
  await wipe(CONSUMER);
  c = await setupCapabilityConsumer(CONSUMER);
  await pinClock(CONSUMER, NOW);
  expect((await grant(c, "allow")).status).toBe(200);
});

describe("capability tool names", () => {
  it("map a capability id's dots to underscores; ids that still are no tool name have none", () => {
    expect(capabilityToolName("browser.page.snapshot")).toBe("browser_page_snapshot");
    expect(capabilityToolName("browser.tab-list")).toBe("browser_tab-list");
    expect(capabilityToolName("files:read")).toBeNull();
    expect(capabilityToolName("a/b")).toBeNull();
    expect(capabilityToolName("9lives")).toBeNull();
    expect(capabilityToolName(`a.${"b".repeat(62)}`)).toBe(`a_${"b".repeat(62)}`);
    expect(capabilityToolName(`a.${"b".repeat(63)}`)).toBeNull();
  });

  it("refuse a name a defined tool has, and a name two capability ids share", () => {
    const provider = (id: string, capabilities: string[]) => ({
      id,
      owner: "gate" as const,
      capabilities: capabilities.map((cap) => ({ id: cap, class: "browser" as const, description: "" })),
    });
    const names = capabilityToolNames(
      [provider("p1", ["browser.page.snapshot", "a.b", "get.order"]), provider("p2", ["browser.page.snapshot", "a_b"])],
      (name) => name === "get_order",
    );
    expect([...names]).toEqual([["browser_page_snapshot", "browser.page.snapshot"]]);
  });
});

describe("capabilities as MCP tools", () => {
  it("lists nothing and answers a clear tool error while no provider is attached", async () => {
    const agent = c.agent;
    expect(await listNames(agent)).toEqual([]);
    const res = await callSnapshot(agent);
    const model = failedModel("TOOL_ERROR", "execution", "Tool execution failed.", "human_review");
    const [guidance, text, ...more] = res.json.result.content as Array<{ type: string; text: string }>;
    expect(guidance).toEqual({
      type: "text",
      text: "No provider offering browser.page.snapshot is attached now (for a browser: it is closed or its toolgate extension is not connected). Call again once it is.",
    });
    expect(JSON.parse(text?.text ?? "")).toEqual(model);
    expect(more).toEqual([]);
    expect(res.json.result.structuredContent).toEqual(model);
    expect(res.json.result.isError).toBe(true);
    expect((await auditEntries("capability.tool-call")).at(-1)).toEqual({
      tool: "browser_page_snapshot",
      capability_id: SNAPSHOT,
      actor_id: "agent-1",
      code: "TOOL_ERROR",
      status: "failed",
    });
  });

  it("lists the capability once its provider attaches, filtered by the actor's grants and the scope", async () => {
    expect(await (await providerPost("attach")).json()).toEqual({
      provider_id: PROVIDER,
      binding_id: 1,
      lease_ms: 60000,
    });
    const res = await mcpPost(
      CONSUMER,
      c.agent,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      await session(c.agent),
    );
    const [tool, ...more] = res.json.result.tools as Array<Record<string, unknown>>;
    expect(more).toEqual([]);
    expect({ ...tool, outputSchema: undefined }).toEqual({
      name: "browser_page_snapshot",
      title: "Browser page snapshot",
      description: "Read page state",
      inputSchema: {
        type: "object",
        additionalProperties: false,
        properties: {
          resource_scope_id: {
            type: "string",
            enum: ["tab:1"],
            description: "Which resource (needed only when there is more than one).",
          },
          provider_id: {
            type: "string",
            enum: [PROVIDER],
            description: "Which provider answers (needed only when more than one offers it).",
          },
          input: { type: "object", description: "The capability's input, sent to the provider as JSON (default {})." },
        },
      },
      outputSchema: undefined,
      annotations: { title: "Browser page snapshot", openWorldHint: true },
    });
    // agent-2 holds no grant; a scope naming another capability, or the tool name, admits nothing here.
    expect(await listNames((await credential(CONSUMER, "agent", "agent-2")).secret)).toEqual([]);
    const other = await credential(CONSUMER, "agent", "agent-1", { tools: ["capability:browser.tab.list"] });
    expect(await listNames(other.secret)).toEqual([]);
    const byName = await credential(CONSUMER, "agent", "agent-1", { tools: ["browser_page_snapshot"] });
    expect(await listNames(byName.secret)).toEqual([]);
    expect((await callSnapshot(byName.secret)).json.error.data.code).toBe("TOOL_NOT_IN_SCOPE");
    const scoped = await credential(CONSUMER, "agent", "agent-1", { tools: [`capability:${SNAPSHOT}`] });
    expect(await listNames(scoped.secret)).toEqual(["browser_page_snapshot"]);
  });

  it("calls the capability: the provider's JSON result comes back as text and structured content, audited", async () => {
    const pending = callSnapshot(c.agent, { input: { depth: 1 } });
    const [bound] = await effects(1);
    const effect = bound?.effect as {
      sequence: number;
      operation_id: number;
      request_key: { local_id: number };
      effect: { invoke: Record<string, unknown> };
    };
    expect(effect.effect.invoke).toEqual({
      consumer_id: CONSUMER,
      actor_id: "agent-1",
      capability_id: SNAPSHOT,
      resource_scope_id: "tab:1",
      payload: [...new TextEncoder().encode('{"depth":1}')],
    });
    const page = '{"title":"Herons","text":"The heron waits."}';
    const bytes = [...new TextEncoder().encode(page)];
    const observed = await providerPost("observations", {
      binding_id: 1,
      observation: {
        operation_id: effect.operation_id,
        request_key: { consumer_id: CONSUMER, actor_id: "agent-1", local_id: effect.request_key.local_id },
        instance_id: 7,
        generation: 1,
        provider_id: PROVIDER,
        observation: {
          succeeded: {
            result: {
              metadata: {
                byte_len: bytes.length,
                media_type: "application/json",
                truncated: false,
                redacted_summary: null,
              },
              delivery: { inline: { bytes } },
            },
          },
        },
      },
    });
    expect(observed.status).toBe(200);
    const res = await pending;
    const data = {
      capability_id: SNAPSHOT,
      media_type: "application/json",
      byte_len: bytes.length,
      truncated: false,
      json: { title: "Herons", text: "The heron waits." },
      content: [{ type: "text", text: page }],
    };
    const model = {
      schema_version: "tool-model-result-v2",
      status: "succeeded",
      data,
      error: null,
      execution: { outcome: "committed", delivery: "fresh", complete: true, truncated: false },
      provenance: {
        source_label: "toolgate-capability",
        producer_revision: "capability-tool-v1",
        resource_revision: null,
        observed_at: OBSERVED_AT,
        trust: "untrusted_data",
      },
    };
    expect(res.json.result.structuredContent).toEqual(model);
    expect(res.json.result.isError).toBe(false);
    expect(res.json.result.content[0]).toEqual({ type: "text", text: page });
    expect(res.json.result.content).toHaveLength(2);
    // The model sees no operation, binding, instance or generation.
    expect(JSON.stringify(res.json.result)).not.toContain("operation_id");
    // The gate's local ids: 2^52 + the pinned millisecond × 1024 + a counter.
    const local = String(2 ** 52 + 1_000_000 * 1024);
    expect(effect.request_key.local_id).toBe(Number(local));
    expect((await auditEntries("capability.tool-call")).at(-1)).toEqual({
      tool: "browser_page_snapshot",
      capability_id: SNAPSHOT,
      actor_id: "agent-1",
      local_id: local,
      provider_id: PROVIDER,
      resource_scope_id: "tab:1",
      decision: "allow",
      outcome: "succeeded",
      code: null,
      status: "succeeded",
    });
    const seq = res.json.result._meta["io.toolgate/audit"].seq as number;
    const kinds = await send("GET", `/v1/consumers/${CONSUMER}/audit?limit=500`, c.auditor);
    const entries = ((await kinds.json()) as { entries: Array<{ seq: number; kind: string }> }).entries;
    expect(entries.find((e) => e.seq === seq)?.kind).toBe("capability.tool-call");
    // The engine's own records of the request are in the chain as for any capability request.
    expect(entries.filter((e) => e.seq < seq).map((e) => e.kind)).toContain("capability.invocation-succeeded");
  });

  it("answers arguments that choose nothing granted as INVALID_ARGUMENTS, before any request", async () => {
    const res = await callSnapshot(c.agent, { resource_scope_id: "tab:9" });
    expect(res.json.result.content[0]).toEqual({
      type: "text",
      text: 'Choose resource_scope_id one of ["tab:1"], provider_id one of ["browser-1"].',
    });
    expect(res.json.result.structuredContent.error.code).toBe("INVALID_ARGUMENTS");
  });

  it("answers the same through POST …/tool-calls (OpenAI Responses), and an ungranted actor's call is an unknown tool", async () => {
    const body = (callId: string) => ({
      proposal: { name: "browser_page_snapshot", arguments: { resource_scope_id: "tab:9" } },
      context: {
        call_id: callId,
        operation_id: `op-${callId}`,
        idempotency_key: null,
        provider: "openai",
        api_family: "responses",
        response_id: "resp-1",
        adapter_revision: "openai-responses-v1",
      },
    });
    const res = await send("POST", `/v1/consumers/${CONSUMER}/tool-calls`, c.agent, body("call-1"));
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Record<string, Record<string, unknown>>;
    expect(answer["guidance"]).toBe('Choose resource_scope_id one of ["tab:1"], provider_id one of ["browser-1"].');
    expect(answer["model_result"]).toEqual(
      failedModel("INVALID_ARGUMENTS", "contract", "Arguments do not satisfy the tool contract.", "correct_input"),
    );
    expect(answer["provider_output"]).toEqual({
      type: "function_call_output",
      call_id: "call-1",
      output: JSON.stringify(answer["model_result"]),
    });
    const agent2 = (await credential(CONSUMER, "agent", "agent-2")).secret;
    const unknown = await send("POST", `/v1/consumers/${CONSUMER}/tool-calls`, agent2, body("call-2"));
    expect(((await unknown.json()) as { model_result: { error: { code: string } } }).model_result.error.code).toBe(
      "UNKNOWN_TOOL",
    );
  });
  it("waits for an approver under a require-approval grant; an approved image comes back as an MCP image block", async () => {
    const agent3 = (await credential(CONSUMER, "agent", "agent-3")).secret;
    const key = { ...grantKeyOf("agent-3"), resource_scope_id: "tab:1" };
    const set = await send("POST", `/v1/consumers/${CONSUMER}/capability/authority`, c.approver, {
      command: { "set-grant": { grant: { key, mode: "require-approval" } } },
    });
    expect(set.status).toBe(200);
    const pending = mcpPost(
      CONSUMER,
      agent3,
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "browser_page_snapshot", arguments: {} } },
      await session(agent3),
    );
    const approval = await firstApproval();
    expect(approval.approval_summary).toBe("Tool call browser_page_snapshot on tab:1");
    const resolved = await send("POST", `/v1/consumers/${CONSUMER}/capability/authority`, c.approver, {
      command: {
        "resolve-approval": {
          resolution: {
            request_key: approval.key,
            accepted_sequence: approval.accepted_sequence,
            instance_id: 7,
            generation: 1,
            decision: "approve-once",
          },
        },
      },
    });
    expect(resolved.status).toBe(200);
    const png = [137, 80, 78, 71, 13, 10, 26, 10];
    await observe("agent-3", await nextInvoke(), {
      succeeded: {
        result: {
          metadata: { byte_len: 8, media_type: "image/png", truncated: false, redacted_summary: "a screenshot" },
          delivery: { inline: { bytes: png } },
        },
      },
    });
    const res = await pending;
    expect(res.json.result.content[0]).toEqual({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" });
    expect(res.json.result.structuredContent.data).toEqual({
      capability_id: SNAPSHOT,
      media_type: "image/png",
      byte_len: 8,
      truncated: false,
      summary: "a screenshot",
      content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }],
    });
    expect((await auditEntries("capability.tool-call")).at(-1)).toEqual({
      tool: "browser_page_snapshot",
      capability_id: SNAPSHOT,
      actor_id: "agent-3",
      local_id: String(2 ** 52 + 1_000_000 * 1024 + 1),
      provider_id: PROVIDER,
      resource_scope_id: "tab:1",
      decision: "require-approval",
      outcome: "succeeded",
      code: null,
      status: "succeeded",
    });
  });

  it("answers a provider's failure and an opaque reference without the provider's message or reference", async () => {
    const failing = callSnapshot(c.agent);
    await observe("agent-1", await nextInvoke(), {
      failed: { failure: { kind: "unavailable", redacted_message: "secret tab http://intranet/x" } },
    });
    const failed = (await failing).json.result;
    expect(failed.content[0]).toEqual({
      type: "text",
      text: "The provider could not do browser.page.snapshot (unavailable).",
    });
    expect(failed.structuredContent.error.code).toBe("TOOL_ERROR");
    expect(JSON.stringify(failed)).not.toContain("intranet");

    const referenced = callSnapshot(c.agent);
    await observe("agent-1", await nextInvoke(), {
      succeeded: {
        result: {
          metadata: { byte_len: 5000, media_type: "application/pdf", truncated: false, redacted_summary: null },
          delivery: { "opaque-reference": { reference: "blob://provider/internal-42" } },
        },
      },
    });
    const result = (await referenced).json.result;
    expect(result.structuredContent.data).toEqual({
      capability_id: SNAPSHOT,
      media_type: "application/pdf",
      byte_len: 5000,
      truncated: false,
      content: [],
    });
    expect(JSON.stringify(result)).not.toContain("internal-42");
  });
});
