/**
 * `tools/list` and `tools/call` over MCP (docs/mcp.md): the consumer's tools as MCP tools, a
 * read's result exactly as the HTTP tool call's, a write's approval over MCP (the repeated
 * call with the same idempotency key runs once approved, then replays), an unknown outcome and
 * its status query, refusals as JSON-RPC errors, and the audit chain as for an HTTP call.
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { canonicalJson, type JsonObject } from "../../../src/core/json";
import { callToolResult } from "../../../src/worker/features/mcp/call";
import { credential, REFERENCE_TENANT, secretOf, send, setupConsumer, wipe } from "../../kit";
import { decideAll, initialize, lastToolCallReceipt, mcpPost, T0 } from "./mcp-server-support";

const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };
const OBSERVED = "2026-07-19T00:00:00Z";

/** The `outputSchema` of a tool without its own output schema: the model result, any object as `data`. */
const OUTPUT_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["schema_version", "status", "data", "error", "execution", "provenance"],
  properties: {
    schema_version: { const: "tool-model-result-v2" },
    status: { enum: ["succeeded", "failed", "unknown"] },
    data: { anyOf: [{ type: "object" }, { type: "null" }] },
    error: {
      anyOf: [
        {
          type: "object",
          additionalProperties: false,
          required: ["code", "category", "safe_message", "recovery", "retry_after_ms"],
          properties: {
            code: { type: "string" },
            category: { type: "string" },
            safe_message: { type: "string" },
            recovery: {
              enum: ["none", "correct_input", "request_approval", "retry_after", "query_status", "human_review"],
            },
            retry_after_ms: { type: ["integer", "null"], minimum: 0 },
          },
        },
        { type: "null" },
      ],
    },
    execution: {
      type: "object",
      additionalProperties: false,
      required: ["outcome", "delivery", "complete", "truncated"],
      properties: {
        outcome: { enum: ["not_started", "committed", "unknown"] },
        delivery: { enum: ["fresh", "local_replay", "receipt_reconciled"] },
        complete: { const: true },
        truncated: { const: false },
      },
    },
    provenance: {
      type: "object",
      additionalProperties: false,
      required: ["source_label", "producer_revision", "resource_revision", "observed_at", "trust"],
      properties: {
        source_label: { type: "string" },
        producer_revision: { type: "string" },
        resource_revision: { type: ["string", "null"] },
        observed_at: { type: "string" },
        trust: { enum: ["untrusted_data", "trusted_control"] },
      },
    },
  },
};

const CREATE_REFUND_DRAFT = {
  name: "create_refund_draft",
  title: "Create refund draft",
  description: "Changes data through create_refund_draft.",
  inputSchema: {
    type: "object",
    properties: {
      order_ref: { type: "string", minLength: 1, maxLength: 64 },
      reason: { type: "string", minLength: 1, maxLength: 32, enum: ["duplicate", "damaged", "other"] },
    },
    required: ["order_ref", "reason"],
    additionalProperties: false,
  },
  outputSchema: OUTPUT_SCHEMA,
  annotations: {
    title: "Create refund draft",
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
};

const GET_ORDER = {
  name: "get_order",
  title: "Get order",
  description: "Reads data through get_order.",
  inputSchema: {
    type: "object",
    properties: { order_ref: { type: "string", minLength: 1, maxLength: 64 } },
    required: ["order_ref"],
    additionalProperties: false,
  },
  outputSchema: OUTPUT_SCHEMA,
  annotations: {
    title: "Get order",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
};

/** A model result the engine answers (only what differs from a fresh committed read is given). */
function model(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    schema_version: "tool-model-result-v2",
    status: "succeeded",
    data: null,
    error: null,
    execution: { outcome: "committed", delivery: "fresh", complete: true, truncated: false },
    provenance: {
      source_label: "orders",
      producer_revision: "orders-mock-v2",
      resource_revision: "order-7-r3",
      observed_at: OBSERVED,
      trust: "untrusted_data",
    },
    ...fields,
  };
}

/** The first 32 hex digits of SHA-256 over canonical JSON, through WebCrypto (docs/mcp.md, "Call identity"). */
async function derived(prefix: string, parts: unknown[]): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(JSON.stringify(parts))));
  return `${prefix}_${[...digest]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")
    .slice(0, 32)}`;
}

async function downstream(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const init =
    body === undefined
      ? {}
      : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  return (await (await env.DOWNSTREAM!.fetch(new Request(`http://downstream${path}`, init))).json()) as Record<
    string,
    unknown
  >;
}

let agent: string;
let approver: string;
let auditor: string;

async function setup(tools: string[]): Promise<void> {
  await setupConsumer(REFERENCE_TENANT, { config: { approver_subjects: ["rev-1"] }, tools, clock: T0 });
  agent = await secretOf(REFERENCE_TENANT, "agent", "user-1");
  approver = await secretOf(REFERENCE_TENANT, "approver", "rev-1");
  auditor = await secretOf(REFERENCE_TENANT, "auditor");
}

const call = (
  token: string,
  headers: Record<string, string>,
  id: number,
  name: string,
  args: Record<string, unknown>,
  meta?: Record<string, unknown>,
) =>
  mcpPost(
    token,
    {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) },
    },
    headers,
  );

beforeEach(async () => {
  await wipe("tenant-a");
  await downstream("/_control", { reset: true, mode: "ok" });
});

describe("tools/list", () => {
  it("lists the enabled tools by name with schemas, annotations, and task support on writes (2025-11-25)", async () => {
    await setup(["get_order", "create_refund_draft"]);
    const s = await initialize(agent);
    const list = await mcpPost(agent, { jsonrpc: "2.0", id: 1, method: "tools/list" }, s.headers);
    expect(list.json).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { tools: [{ ...CREATE_REFUND_DRAFT, execution: { taskSupport: "optional" } }, GET_ORDER] },
    });
    const old = await initialize(agent, "2025-06-18");
    const listed = await mcpPost(agent, { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, old.headers);
    expect(listed.json.result).toEqual({ tools: [CREATE_REFUND_DRAFT, GET_ORDER] });
  });

  it("lists only the tools in the credential's scope, and refuses a call outside it as a JSON-RPC error", async () => {
    await setup(["get_order", "create_refund_draft"]);
    const scoped = (await credential("tenant-a", "agent", "user-1", { tools: ["get_order"] })).secret;
    const s = await initialize(scoped);
    const list = await mcpPost(scoped, { jsonrpc: "2.0", id: 1, method: "tools/list" }, s.headers);
    expect(list.json.result).toEqual({ tools: [GET_ORDER] });
    const refused = await call(scoped, s.headers, 2, "create_refund_draft", REFUND, {
      "io.toolgate/idempotency_key": "k-1",
    });
    expect([refused.status, refused.json]).toEqual([
      200,
      {
        jsonrpc: "2.0",
        id: 2,
        error: {
          code: -32000,
          message: 'This credential may not call "create_refund_draft".',
          data: { code: "TOOL_NOT_IN_SCOPE" },
        },
      },
    ]);
  });
});

describe("tools/call", () => {
  it("answers a read as a CallToolResult whose structuredContent is the model result", async () => {
    await setup(["get_order"]);
    const s = await initialize(agent);
    const read = await call(agent, s.headers, 1, "get_order", { order_ref: "ORDER-7" });
    const expected = model({ data: { order_ref: "ORDER-7", status: "paid" } });
    expect(read.json).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        content: [{ type: "text", text: canonicalJson(expected) }],
        structuredContent: expected,
        isError: false,
        _meta: { "io.toolgate/audit": await lastToolCallReceipt(auditor) },
      },
    });
  });

  it("answers APPROVAL_REQUIRED with the approval id in _meta; once approved the repeated call runs, then replays", async () => {
    await setup(["create_refund_draft"]);
    const s = await initialize(agent);
    const meta = { "io.toolgate/idempotency_key": "refund-1" };
    const first = await call(agent, s.headers, 1, "create_refund_draft", REFUND, meta);
    const approvalId = first.json.result._meta["io.toolgate/approval_id"] as string;
    expect(approvalId).toMatch(/^apr_[0-9a-f]{32}$/);
    const asked = model({
      status: "failed",
      error: {
        code: "APPROVAL_REQUIRED",
        category: "approval",
        safe_message: "This action requires approval bound to the current arguments.",
        recovery: "request_approval",
        retry_after_ms: null,
      },
      execution: { outcome: "not_started", delivery: "fresh", complete: true, truncated: false },
      provenance: {
        source_label: "offline-dispatcher",
        producer_revision: "offline-dispatcher-v2",
        resource_revision: null,
        observed_at: OBSERVED,
        trust: "trusted_control",
      },
    });
    // Outside a task the model is told what to do first (docs/mcp.md, "Approvals over MCP"), then the result's JSON.
    const guidance =
      `This call waits for a person's approval (approval ${approvalId}). One of this consumer's approvers (rev-1) ` +
      `decides it in the toolgate console at http://gate/console/approvals/${approvalId}. Once it is approved, call ` +
      "create_refund_draft again with exactly the same arguments within 60 seconds of the decision: it then runs, once. " +
      "Calling it again before the decision answers this same approval; changed arguments are a new call that needs its own approval.";
    expect(first.json.result).toEqual({
      content: [
        { type: "text", text: guidance },
        { type: "text", text: canonicalJson(asked) },
      ],
      structuredContent: asked,
      isError: true,
      _meta: { "io.toolgate/approval_id": approvalId, "io.toolgate/audit": await lastToolCallReceipt(auditor) },
    });
    expect(await decideAll(approver)).toEqual([approvalId]);

    const ran = await call(agent, s.headers, 2, "create_refund_draft", REFUND, meta);
    const draft = { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" };
    const provenance = {
      source_label: "refunds",
      producer_revision: "refunds-mock-v2",
      resource_revision: "draft-1-r1",
      observed_at: OBSERVED,
      trust: "untrusted_data",
    };
    const succeeded = model({ data: draft, provenance });
    expect(ran.json.result).toEqual({
      content: [{ type: "text", text: canonicalJson(succeeded) }],
      structuredContent: succeeded,
      isError: false,
      _meta: { "io.toolgate/audit": await lastToolCallReceipt(auditor) },
    });

    // Another session, another JSON-RPC id: the same key is the same call.
    const later = await initialize(agent);
    const replay = await call(agent, later.headers, 3, "create_refund_draft", REFUND, meta);
    expect(replay.json.result.structuredContent).toEqual(
      model({
        data: draft,
        provenance,
        execution: { outcome: "committed", delivery: "local_replay", complete: true, truncated: false },
      }),
    );

    const audit = (await (await send("GET", "/v1/consumers/tenant-a/audit", auditor)).json()) as {
      entries: Array<{ kind: string; record: Record<string, unknown> }>;
    };
    const calls = audit.entries.filter((e) => e.kind === "tool_call" || e.kind === "approval.decision");
    const callId = await derived("mcpc", ["call", "create_refund_draft", "refund-1"]);
    expect(
      calls.map((e) => [
        e.kind,
        e.record["call_id"] ?? (e.record["provider_context"] as Record<string, unknown>)["call_id"],
      ]),
    ).toEqual([
      ["tool_call", callId],
      ["approval.decision", callId],
      ["tool_call", callId],
      ["tool_call", callId],
    ]);
  });

  it("derives the call's identity from the key, or from the session and the JSON-RPC id; _meta may name call and operation ids", async () => {
    await setup(["get_order"]);
    const s = await initialize(agent);
    await call(agent, s.headers, 7, "get_order", { order_ref: "ORDER-7" });
    await call(agent, s.headers, 8, "get_order", { order_ref: "ORDER-7" }, { "io.toolgate/idempotency_key": "read-1" });
    await call(
      agent,
      s.headers,
      9,
      "get_order",
      { order_ref: "ORDER-7" },
      { "io.toolgate/call_id": "client-call-1", "io.toolgate/operation_id": "client-op-1" },
    );
    const audit = (await (await send("GET", "/v1/consumers/tenant-a/audit", auditor)).json()) as {
      entries: Array<{ kind: string; record: Record<string, unknown> }>;
    };
    const ids = audit.entries
      .filter((e) => e.kind === "tool_call")
      .map(({ record }) => {
        const provider = record["provider_context"] as Record<string, unknown>;
        return [provider["call_id"], record["operation_id"], provider["response_id"], provider["provider"]];
      });
    expect(ids).toEqual([
      [
        await derived("mcpc", ["call", s.sessionId, 7]),
        await derived("mcpo", ["operation", s.sessionId, 7]),
        await derived("mcpr", ["response", s.sessionId]),
        "mcp",
      ],
      [
        await derived("mcpc", ["call", "get_order", "read-1"]),
        await derived("mcpo", ["operation", "get_order", "read-1"]),
        await derived("mcpr", ["response", "read-1"]),
        "mcp",
      ],
      ["client-call-1", "client-op-1", await derived("mcpr", ["response", s.sessionId]), "mcp"],
    ]);
  });

  it("answers a keyless write with a derived key (it waits for its approval), and an unknown tool as the engine does", async () => {
    await setup(["create_refund_draft"]);
    const s = await initialize(agent);
    const keyless = await call(agent, s.headers, 1, "create_refund_draft", REFUND);
    expect([keyless.json.result.isError, keyless.json.result.structuredContent.error.code]).toEqual([
      true,
      "APPROVAL_REQUIRED",
    ]);
    const unknown = await call(agent, s.headers, 2, "no_such_tool", {});
    expect([unknown.status, unknown.json.result.isError, unknown.json.result.structuredContent.error.code]).toEqual([
      200,
      true,
      "UNKNOWN_TOOL",
    ]);
    const badMeta = await call(agent, s.headers, 3, "create_refund_draft", REFUND, {
      "io.toolgate/idempotency_key": "",
    });
    expect([badMeta.status, badMeta.json.error.code]).toEqual([200, -32602]);
  });

  it("answers an unknown outcome with its status_ref in _meta; that status_ref in _meta asks for the status", async () => {
    await setup(["submit_refund"]);
    const s = await initialize(agent);
    const meta = { "io.toolgate/idempotency_key": "submit-1" };
    await call(agent, s.headers, 1, "submit_refund", REFUND, meta);
    await decideAll(approver);
    await downstream("/_control", { mode: "error_after_commit" });
    const unknown = await call(agent, s.headers, 2, "submit_refund", REFUND, meta);
    const statusRef = unknown.json.result._meta["io.toolgate/status_ref"] as string;
    expect([unknown.json.result.isError, unknown.json.result.structuredContent.error.code, statusRef]).toEqual([
      true,
      "OUTCOME_UNKNOWN",
      expect.stringMatching(/^status_[0-9a-f]{32}$/),
    ]);
    await downstream("/_control", { mode: "ok" });
    const status = await call(agent, s.headers, 3, "submit_refund", REFUND, {
      ...meta,
      "io.toolgate/status_ref": statusRef,
    });
    expect([
      status.json.result.isError,
      status.json.result.structuredContent.status,
      status.json.result.structuredContent.execution.delivery,
    ]).toEqual([false, "succeeded", "receipt_reconciled"]);
    expect((await downstream("/_effects")).effects).toBe(1);
  });
});

describe("callToolResult", () => {
  it("places a succeeded result's valid content blocks before the text block, and only then", () => {
    const blocks: JsonObject[] = [
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "text" },
      { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "a" } },
      { type: "resource_link", uri: "file:///b.txt", name: "b" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      { type: "video", data: "x" },
    ];
    const output = (status: string): JsonObject => ({
      content: [{ type: "text", text: "{}" }],
      structuredContent: { status, data: { content: blocks } },
      isError: status !== "succeeded",
    });
    const answer = (status: string): JsonObject => ({
      model_result: { status, data: { content: blocks } },
      provider_output: output(status),
    });
    expect(callToolResult(answer("succeeded"))).toEqual({
      ...output("succeeded"),
      content: [blocks[0], blocks[2], blocks[3], blocks[4], { type: "text", text: "{}" }],
    });
    expect(callToolResult({ ...answer("unknown"), status_ref: "status_1" })).toEqual({
      ...output("unknown"),
      _meta: { "io.toolgate/status_ref": "status_1" },
    });
  });
});
