/**
 * The provider profiles over HTTP (docs/providers.md): the gate's own profiles (OpenAI Chat
 * Completions, Gemini generateContent, Gemini Interactions v2) and the native items the
 * reference's profiles now read (a Responses namespace, an Anthropic toolset member, a Gemini
 * Interactions `function_call` step) on `POST …/tool-calls`; then `POST …/tool-calls/batch`,
 * all the calls of one model turn answered as one provider message, each call its own call.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, createConsumer, credential, gate, pinClock, send, sendJson, wipe } from "../../kit";
import { LOOKUP } from "../../support/ledger-tools";

// The demo catalog's orders belong to the reference's tenant: each test starts from a wiped one.
const C = "tenant-a";
const T0 = 1_784_419_200;

// The reference's model results (keys in canonical order: JSON.stringify is their canonical text).
const ORDER_7 = {
  data: { order_ref: "ORDER-7", status: "paid" },
  error: null,
  execution: { complete: true, delivery: "fresh", outcome: "committed", truncated: false },
  provenance: {
    observed_at: "2026-07-19T00:00:00Z",
    producer_revision: "orders-mock-v2",
    resource_revision: "order-7-r3",
    source_label: "orders",
    trust: "untrusted_data",
  },
  schema_version: "tool-model-result-v2",
  status: "succeeded",
};
const failed = (category: string, code: string, recovery: string, message: string) => ({
  data: null,
  error: { category, code, recovery, retry_after_ms: null, safe_message: message },
  execution: { complete: true, delivery: "fresh", outcome: "not_started", truncated: false },
  provenance: {
    observed_at: "2026-07-19T00:00:00Z",
    producer_revision: "offline-dispatcher-v2",
    resource_revision: null,
    source_label: "offline-dispatcher",
    trust: "trusted_control",
  },
  schema_version: "tool-model-result-v2",
  status: "failed",
});
const NOT_FOUND = failed(
  "authorization",
  "NOT_FOUND",
  "none",
  "The resource does not exist or is inaccessible to the current principal.",
);
const UNKNOWN_TOOL = failed("contract", "UNKNOWN_TOOL", "correct_input", "The tool is not allowlisted.");
const APPROVAL_REQUIRED = failed(
  "approval",
  "APPROVAL_REQUIRED",
  "request_approval",
  "This action requires approval bound to the current arguments.",
);
const text = (value: unknown) => JSON.stringify(value);

const PROFILES = {
  responses: { provider: "openai", api_family: "responses", adapter_revision: "openai-responses-v1" },
  chat: { provider: "openai", api_family: "chat_completions", adapter_revision: "openai-chat-completions-v1" },
  anthropic: { provider: "anthropic", api_family: "messages", adapter_revision: "anthropic-messages-v1" },
  interactions: { provider: "google", api_family: "interactions", adapter_revision: "gemini-interactions-v1" },
  interactionsV2: { provider: "google", api_family: "interactions", adapter_revision: "gemini-interactions-v2" },
  generateContent: {
    provider: "google",
    api_family: "generate_content",
    adapter_revision: "gemini-generate-content-v1",
  },
} as const;

type Body = Record<string, any>;
type Profile = { readonly provider: string; readonly api_family: string; readonly adapter_revision: string };

async function post(path: string, token: string, body: unknown): Promise<{ status: number; body: Body }> {
  const { status, body: answer } = await sendJson("POST", `/v1/consumers/${C}${path}`, token, body);
  return { status, body: answer as Body };
}

let agent: string;
let approver: string;
let auditor: string;

beforeEach(async () => {
  await wipe(C);
  await createConsumer(C, [], ["rev-1"]);
  for (const name of ["crm__lookup_customer", "browser__lookup_customer"]) {
    expect((await send("PUT", `/v1/consumers/${C}/tools/${name}`, ADMIN_TOKEN, LOOKUP)).status).toBe(200);
  }
  await createConsumer(
    C,
    ["get_order", "create_refund_draft", "crm__lookup_customer", "browser__lookup_customer"],
    ["rev-1"],
  );
  await pinClock(C, T0);
  agent = (await credential(C, "agent", "user-1")).secret;
  approver = (await credential(C, "approver", "rev-1")).secret;
  auditor = (await credential(C, "auditor")).secret;
});

/** One call on the single route: the model's item under a profile. */
function single(profile: Profile, item: unknown, extra: Record<string, unknown> = {}) {
  return post("/tool-calls", agent, {
    provider_item: item,
    context: { operation_id: "op-1", response_id: "resp-1", ...profile, ...extra },
  });
}

describe("the gate's own profiles on POST …/tool-calls", () => {
  it("OpenAI Chat Completions: a tool_calls[] entry in, a tool message out", async () => {
    const res = await single(PROFILES.chat, {
      id: "call_a",
      type: "function",
      function: { name: "get_order", arguments: '{"order_ref":"ORDER-7"}' },
    });
    expect(res.status).toBe(200);
    expect(res.body.model_result).toEqual(ORDER_7);
    expect(res.body.provider_output).toEqual({ role: "tool", tool_call_id: "call_a", content: text(ORDER_7) });
  });

  it("Gemini generateContent: a Part without id (the host names the call) and a FunctionCall with one", async () => {
    const part = { functionCall: { name: "get_order", args: { order_ref: "ORDER-7" } } };
    const missing = await single(PROFILES.generateContent, part);
    expect([missing.status, missing.body.code, missing.body.detail]).toEqual([
      400,
      "INVALID_REQUEST",
      "$.context.call_id: required when the provider item has no id",
    ]);
    const idless = await single(PROFILES.generateContent, part, { call_id: "host-call-1" });
    expect(idless.status).toBe(200);
    expect(idless.body.provider_output).toEqual({
      functionResponse: { name: "get_order", response: { output: ORDER_7 } },
    });
    const withId = await single(PROFILES.generateContent, {
      id: "fc_2",
      name: "get_order",
      args: { order_ref: "ORDER-8" },
    });
    expect(withId.body.provider_output).toEqual({
      functionResponse: { id: "fc_2", name: "get_order", response: { error: NOT_FOUND } },
    });
  });

  it("Gemini Interactions: a function_call step is read; v1 answers the reference's bytes, v2 adds is_error", async () => {
    const step = { type: "function_call", id: "fc_1", name: "get_order", arguments: { order_ref: "ORDER-8" } };
    const v1 = await single(PROFILES.interactions, step);
    expect(v1.status).toBe(200);
    expect(v1.body.provider_output).toEqual({
      previous_interaction_id: "resp-1",
      input: [
        {
          type: "function_result",
          name: "get_order",
          call_id: "fc_1",
          result: [{ type: "text", text: text(NOT_FOUND) }],
        },
      ],
    });
    const v2 = await single(PROFILES.interactionsV2, { ...step, id: "fc_2" }, { operation_id: "op-2" });
    expect(v2.body.provider_output).toEqual({
      previous_interaction_id: "resp-1",
      input: [
        {
          type: "function_result",
          name: "get_order",
          call_id: "fc_2",
          result: [{ type: "text", text: text(NOT_FOUND) }],
          is_error: true,
        },
      ],
    });
  });

  it("OpenAI Responses: a namespace names the gate tool <namespace>__<name>, never the bare name", async () => {
    const item = {
      type: "function_call",
      call_id: "call_1",
      namespace: "crm",
      name: "lookup_customer",
      arguments: '{"customer":"acme"}',
    };
    const crm = await single(PROFILES.responses, item);
    expect(crm.body.model_result.status).toBe("succeeded");
    expect(crm.body.model_result.data).toEqual({ customer: "acme", tier: "gold" });
    expect(crm.body.provider_output).toEqual({
      type: "function_call_output",
      call_id: "call_1",
      output: text(crm.body.model_result),
    });
    const erp = await single(
      PROFILES.responses,
      { ...item, call_id: "call_2", namespace: "erp" },
      { operation_id: "op-2" },
    );
    expect(erp.body.model_result).toEqual(UNKNOWN_TOOL);
  });

  it("Anthropic Messages: a toolset member's tool_result repeats its toolset_name", async () => {
    const res = await single(PROFILES.anthropic, {
      type: "tool_use",
      id: "toolu_1",
      name: "lookup_customer",
      input: { customer: "acme" },
      toolset_name: "browser",
    });
    expect(res.body.model_result.data).toEqual({ customer: "acme", tier: "gold" });
    expect(res.body.provider_output).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: [{ type: "text", text: text(res.body.model_result) }],
      is_error: false,
      toolset_name: "browser",
    });
  });
});

/** A batch of one turn under a profile. */
function batch(profile: Profile, calls: unknown[], token = agent) {
  return post("/tool-calls/batch", token, { context: { response_id: "resp-1", ...profile }, calls });
}

describe("POST …/tool-calls/batch", () => {
  it("answers an Anthropic turn as one user message of tool_result blocks, each call its own call", async () => {
    const res = await batch(PROFILES.anthropic, [
      {
        provider_item: { type: "tool_use", id: "toolu_1", name: "get_order", input: { order_ref: "ORDER-7" } },
        operation_id: "op-1",
      },
      {
        provider_item: { type: "tool_use", id: "toolu_2", name: "get_order", input: { order_ref: "ORDER-8" } },
        operation_id: "op-2",
      },
      {
        provider_item: {
          type: "tool_use",
          id: "toolu_3",
          name: "create_refund_draft",
          input: { order_ref: "ORDER-7", reason: "duplicate" },
        },
        operation_id: "op-3",
        idempotency_key: "refund-1",
      },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.provider_message).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [{ type: "text", text: text(ORDER_7) }],
          is_error: false,
        },
        {
          type: "tool_result",
          tool_use_id: "toolu_2",
          content: [{ type: "text", text: text(NOT_FOUND) }],
          is_error: true,
        },
        {
          type: "tool_result",
          tool_use_id: "toolu_3",
          content: [{ type: "text", text: text(APPROVAL_REQUIRED) }],
          is_error: true,
        },
      ],
    });
    const calls = res.body.calls as Body[];
    expect(calls.map((c) => [c.call_id, c.model_result.status, c.provider_output.tool_use_id])).toEqual([
      ["toolu_1", "succeeded", "toolu_1"],
      ["toolu_2", "failed", "toolu_2"],
      ["toolu_3", "failed", "toolu_3"],
    ]);
    expect(calls.map((c) => Object.keys(c).sort())).toEqual([
      ["audit", "call_id", "model_result", "provider_output"],
      ["audit", "call_id", "model_result", "provider_output"],
      ["approval_id", "audit", "call_id", "model_result", "provider_output"],
    ]);
    expect(/^apr_[0-9a-f]{32}$/.test(calls[2]?.approval_id)).toBe(true);
    // Each call is its own audit entry, in call order, and the approval is the write's own.
    const audit = (await (await send("GET", `/v1/consumers/${C}/audit?after=0&limit=100`, auditor)).json()) as {
      entries: Array<{ seq: number; kind: string }>;
    };
    const toolCalls = audit.entries.filter((e) => e.kind === "tool_call").map((e) => e.seq);
    expect(calls.map((c) => c.audit.seq)).toEqual(toolCalls);
    const pending = (await (await send("GET", `/v1/consumers/${C}/approvals?state=pending`, approver)).json()) as {
      approvals: Body[];
    };
    expect(
      pending.approvals.map((a) => [a.approval_id, a.call_id, a.operation_id, a.idempotency_key, a.response_id]),
    ).toEqual([[calls[2]?.approval_id, "toolu_3", "op-3", "refund-1", "resp-1"]]);
  });

  it("runs an approved write of a repeated turn once, its key replaying it afterwards", async () => {
    const turn = [
      {
        provider_item: {
          type: "function_call",
          call_id: "call_1",
          name: "create_refund_draft",
          arguments: '{"order_ref":"ORDER-7","reason":"duplicate"}',
        },
        operation_id: "op-1",
        idempotency_key: "refund-1",
        rationale: "The customer was charged twice",
      },
    ];
    const first = await batch(PROFILES.responses, turn);
    const approvalId = (first.body.calls as Body[])[0]?.approval_id as string;
    const pending = (await (await send("GET", `/v1/consumers/${C}/approvals?state=pending`, approver)).json()) as {
      approvals: Body[];
    };
    // A batch call's rationale reaches the approver as a single call's does.
    expect(pending.approvals.map((a) => [a.approval_id, a.rationale])).toEqual([
      [approvalId, "The customer was charged twice"],
    ]);
    const digest = pending.approvals[0]?.approval_digest;
    expect(
      (
        await send("POST", `/v1/consumers/${C}/approvals/${approvalId}`, approver, {
          decision: "approve",
          approval_digest: digest,
        })
      ).status,
    ).toBe(200);
    const run = await batch(PROFILES.responses, turn);
    const replay = await batch(PROFILES.responses, turn);
    const draft = { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" };
    for (const [answer, delivery] of [
      [run, "fresh"],
      [replay, "local_replay"],
    ] as const) {
      const call = (answer.body.calls as Body[])[0] as Body;
      expect([call.model_result.status, call.model_result.data, call.model_result.execution.delivery]).toEqual([
        "succeeded",
        draft,
        delivery,
      ]);
      expect(answer.body.provider_message).toEqual([
        { type: "function_call_output", call_id: "call_1", output: text(call.model_result) },
      ]);
    }
  });

  it("answers OpenAI Responses and Chat Completions turns as lists of items and tool messages", async () => {
    const responses = await batch(PROFILES.responses, [
      {
        provider_item: {
          type: "function_call",
          call_id: "call_1",
          name: "get_order",
          arguments: '{"order_ref":"ORDER-7"}',
        },
        operation_id: "op-1",
      },
      {
        provider_item: {
          type: "function_call",
          call_id: "call_2",
          namespace: "erp",
          name: "get_order",
          arguments: '{"order_ref":"ORDER-7"}',
        },
        operation_id: "op-2",
      },
    ]);
    expect(responses.body.provider_message).toEqual([
      { type: "function_call_output", call_id: "call_1", output: text(ORDER_7) },
      { type: "function_call_output", call_id: "call_2", output: text(UNKNOWN_TOOL) },
    ]);
    const chat = await batch(PROFILES.chat, [
      {
        provider_item: {
          id: "call_a",
          type: "function",
          function: { name: "get_order", arguments: '{"order_ref":"ORDER-7"}' },
        },
        operation_id: "op-a",
      },
      { proposal: { name: "get_order", arguments: { order_ref: "ORDER-8" } }, call_id: "call_b", operation_id: "op-b" },
    ]);
    expect(chat.body.provider_message).toEqual([
      { role: "tool", tool_call_id: "call_a", content: text(ORDER_7) },
      { role: "tool", tool_call_id: "call_b", content: text(NOT_FOUND) },
    ]);
  });

  it("answers Gemini turns as one Interactions continuation and one generateContent Content", async () => {
    const interactions = await batch(PROFILES.interactionsV2, [
      {
        provider_item: { type: "function_call", id: "fc_1", name: "get_order", arguments: { order_ref: "ORDER-7" } },
        operation_id: "op-1",
      },
      {
        provider_item: { type: "function_call", id: "fc_2", name: "get_order", arguments: { order_ref: "ORDER-8" } },
        operation_id: "op-2",
      },
    ]);
    expect(interactions.body.provider_message).toEqual({
      previous_interaction_id: "resp-1",
      input: [
        {
          type: "function_result",
          name: "get_order",
          call_id: "fc_1",
          result: [{ type: "text", text: text(ORDER_7) }],
          is_error: false,
        },
        {
          type: "function_result",
          name: "get_order",
          call_id: "fc_2",
          result: [{ type: "text", text: text(NOT_FOUND) }],
          is_error: true,
        },
      ],
    });
    const content = await batch(PROFILES.generateContent, [
      {
        provider_item: { functionCall: { name: "get_order", args: { order_ref: "ORDER-7" } } },
        call_id: "host-1",
        operation_id: "op-g1",
      },
      { provider_item: { id: "fc_9", name: "get_order", args: { order_ref: "ORDER-8" } }, operation_id: "op-g2" },
    ]);
    expect(content.body.provider_message).toEqual({
      role: "user",
      parts: [
        { functionResponse: { name: "get_order", response: { output: ORDER_7 } } },
        { functionResponse: { id: "fc_9", name: "get_order", response: { error: NOT_FOUND } } },
      ],
    });
    expect((content.body.calls as Body[]).map((c) => c.call_id)).toEqual(["host-1", "fc_9"]);
  });

  it("gives a call the single route would refuse its problem, runs the others, and answers no message", async () => {
    const scoped = (await credential(C, "agent", "user-1", { tools: ["get_order"] })).secret;
    const res = await batch(
      PROFILES.anthropic,
      [
        {
          provider_item: {
            type: "tool_use",
            id: "toolu_1",
            name: "create_refund_draft",
            input: { order_ref: "ORDER-7", reason: "duplicate" },
          },
          operation_id: "op-1",
          idempotency_key: "k-1",
        },
        {
          provider_item: { type: "tool_use", id: "toolu_2", name: "get_order", input: { order_ref: "ORDER-7" } },
          operation_id: "op-2",
        },
      ],
      scoped,
    );
    expect(res.status).toBe(200);
    expect(res.body.provider_message).toBe(null);
    const [refused, answered] = res.body.calls as Body[];
    expect(refused).toEqual({
      call_id: "toolu_1",
      problem: {
        type: "https://toolgate.dev/problems/tool-not-in-scope",
        title: "Credential may not call this tool",
        status: 403,
        code: "TOOL_NOT_IN_SCOPE",
        detail: 'This credential may not call "create_refund_draft".',
      },
    });
    expect(answered?.model_result).toEqual(ORDER_7);
  });

  it("refuses the whole turn before any call runs: a foreign item, a repeated call id, a call without id", async () => {
    const ok = {
      provider_item: { type: "tool_use", id: "toolu_1", name: "get_order", input: { order_ref: "ORDER-7" } },
      operation_id: "op-1",
    };
    const refusals = [
      [
        PROFILES.anthropic,
        [
          ok,
          {
            provider_item: { type: "function_call", call_id: "c", name: "get_order", arguments: "{}" },
            operation_id: "op-2",
          },
        ],
      ],
      [PROFILES.anthropic, [ok, { ...ok, operation_id: "op-2" }]],
      [PROFILES.generateContent, [{ provider_item: { name: "get_order", args: {} }, operation_id: "op-1" }]],
      [PROFILES.anthropic, [{ proposal: { name: "get_order", arguments: {} }, operation_id: "op-1" }]],
      [{ provider: "mcp", api_family: "tools", adapter_revision: "mcp-tools-v1" }, [ok]],
      [{ ...PROFILES.anthropic, adapter_revision: "anthropic-messages-v9" }, [ok]],
    ] as const;
    const answers = [];
    for (const [profile, calls] of refusals) {
      const res = await batch(profile, [...calls]);
      answers.push([res.status, res.body.code, res.body.detail]);
    }
    expect(answers).toEqual([
      [
        400,
        "INVALID_PROVIDER_ITEM",
        'calls[1]: not an Anthropic tool_use block: type: Invalid input: expected "tool_use"; id: must be a non-empty string of at most 255 code points; input: must be a JSON object',
      ],
      [400, "INVALID_REQUEST", "calls[1] repeats the call id of calls[0]."],
      [400, "INVALID_REQUEST", "$.calls[0].call_id: required when the provider item has no id"],
      [400, "INVALID_REQUEST", "$.calls[0].call_id: required with a proposal"],
      [
        400,
        "INVALID_HOST_CONTEXT",
        "The provider profile answers no turn as one message; these do: openai/responses (openai-responses-v1), " +
          "anthropic/messages (anthropic-messages-v1), google/interactions (gemini-interactions-v1), " +
          "openai/chat_completions (openai-chat-completions-v1), google/generate_content (gemini-generate-content-v1), " +
          "google/interactions (gemini-interactions-v2).",
      ],
      [
        400,
        "INVALID_HOST_CONTEXT",
        "The provider profile is not registered; the registered ones are openai/responses (openai-responses-v1), " +
          "anthropic/messages (anthropic-messages-v1), google/interactions (gemini-interactions-v1), " +
          "mcp/tools (mcp-tools-v1), openai/chat_completions (openai-chat-completions-v1), " +
          "google/generate_content (gemini-generate-content-v1), google/interactions (gemini-interactions-v2).",
      ],
    ]);
    const audit = (await (await send("GET", `/v1/consumers/${C}/audit?after=0&limit=100`, auditor)).json()) as {
      entries: Array<{ kind: string }>;
    };
    expect(audit.entries.filter((e) => e.kind === "tool_call")).toEqual([]);
  });

  it("bounds a turn to 32 calls, takes agents only, and is in the OpenAPI document", async () => {
    const many = Array.from({ length: 33 }, (_, i) => ({
      proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
      call_id: `c-${i}`,
      operation_id: `op-${i}`,
    }));
    const tooMany = await batch(PROFILES.responses, many);
    expect([tooMany.status, tooMany.body.code, tooMany.body.detail]).toEqual([
      400,
      "INVALID_REQUEST",
      "$.calls: Too big: expected array to have <=32 items",
    ]);
    const empty = await batch(PROFILES.responses, []);
    expect([empty.status, empty.body.code]).toEqual([400, "INVALID_REQUEST"]);
    const byApprover = await batch(PROFILES.responses, many.slice(0, 1), approver);
    expect([byApprover.status, byApprover.body.code]).toEqual([403, "FORBIDDEN"]);
    const doc = (await (await gate("/v1/openapi.json")).json()) as { paths: Record<string, Record<string, Body>> };
    const op = doc.paths["/v1/consumers/{consumer}/tool-calls/batch"]?.post;
    expect([
      op?.["x-toolgate-credential"],
      op?.requestBody.content["application/json"].schema,
      op?.responses["200"].content["application/json"].schema,
    ]).toEqual([
      "agent",
      { $ref: "#/components/schemas/ToolCallBatchRequest" },
      { $ref: "#/components/schemas/ToolCallBatchResponse" },
    ]);
  });
});
