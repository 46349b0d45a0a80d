/**
 * Round trips through the vendors' own SDK clients: each client (its fetch replaced by a
 * scripted vendor) returns a model turn with tool calls, the gate's parsers, engine, adapters
 * and turn join answer them, and the same client sends the answer back. The test checks the
 * exact body the SDK sends, so each answer is a value the SDK takes and forwards unchanged.
 * Items are the SDKs' own objects, built with their helpers where they have one; each answer
 * goes back typed as the gate's turn type, which the SDK's own parameter type accepts.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import {
  createPartFromFunctionCall,
  createPartFromFunctionResponse,
  createUserContent,
  GoogleGenAI,
} from "@google/genai";
import OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import {
  adapterFor,
  joinTurn,
  parseProviderItem,
  type AnthropicTurn,
  type GeminiGenerateContentTurn,
  type GeminiInteractionsTurn,
  type OpenAiChatTurn,
  type OpenAiResponsesTurn,
} from "../../../src/core/adapters";
import type { Json, JsonObject } from "../../../src/core/json";
import { bindToolCall, createRegistry, defineTool, dispatch } from "../../../src/core/tool-result";
import { createDemoEngine, createRefundDraftTool, getOrderTool } from "../../../src/conformance/tool-cases";
import { accepted } from "../../support/accepted";

const T0 = 1_784_419_200;
const principal = { tenant_id: "tenant-a", subject_id: "user-1", roles: [] as string[] };

// The model results, keys in canonical order (JSON.stringify of them is their canonical text).
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
const NOT_FOUND = {
  data: null,
  error: {
    category: "authorization",
    code: "NOT_FOUND",
    recovery: "none",
    retry_after_ms: null,
    safe_message: "The resource does not exist or is inaccessible to the current principal.",
  },
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
};
const text7 = JSON.stringify(ORDER_7);
const textNotFound = JSON.stringify(NOT_FOUND);

interface Profile {
  readonly provider: string;
  readonly api_family: string;
  readonly adapter_revision: string;
}

/** The gate's path for one turn: parse each item, bind, dispatch, project, join. */
function answerTurn(
  profile: Profile,
  responseId: string,
  items: readonly unknown[],
  hostCallIds: readonly string[] = [],
): { outputs: JsonObject[]; message: Json } {
  // A provider's groups name their own gate tools: a Responses namespace, an Anthropic toolset.
  const registry = createRegistry([
    getOrderTool,
    createRefundDraftTool,
    defineTool({ ...getOrderTool, name: "crm__get_order" }),
    defineTool({ ...getOrderTool, name: "browser__read_order" }),
  ]);
  const engine = createDemoEngine({ registry });
  const entry = adapterFor(profile.provider, profile.api_family, profile.adapter_revision);
  if (entry === undefined) throw new Error("unregistered profile");
  const outputs = items.map((item, index) => {
    const parsed = parseProviderItem(profile.provider, profile.api_family, item as Json);
    if (parsed === undefined || !parsed.ok)
      throw new Error(`refused: ${parsed?.ok === false ? parsed.error.message : "no parser"}`);
    const callId = parsed.value.call_id ?? hostCallIds[index];
    if (callId === undefined) throw new Error("a call without id needs the host's");
    const context = {
      ...profile,
      call_id: callId,
      operation_id: `op-${index}`,
      idempotency_key: null,
      response_id: responseId,
    };
    const call = bindToolCall({ name: parsed.value.name, arguments: parsed.value.arguments }, context);
    const pkg = accepted(dispatch(engine, { principal, call, now: T0 }));
    const projected = entry.adapter(principal, call, engine.registry.get(call.name), pkg, undefined, parsed.value.echo);
    if (!projected.ok) throw new Error(projected.error.message);
    return projected.value;
  });
  const joined = joinTurn(profile.provider, profile.api_family, outputs);
  if (!joined.ok) throw new Error(joined.error.message);
  return { outputs, message: joined.value };
}

/** A scripted vendor: answers each request with the next reply and keeps each body the SDK sent. */
function vendor(replies: object[]): {
  sent: Array<Record<string, unknown>>;
  fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
} {
  const sent: Array<Record<string, unknown>> = [];
  return {
    sent,
    async fetch(input, init) {
      const body = input instanceof Request ? await input.text() : typeof init?.body === "string" ? init.body : "";
      sent.push(JSON.parse(body) as Record<string, unknown>);
      return new Response(JSON.stringify(replies.shift() ?? {}), {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    },
  };
}

describe("OpenAI Responses through the openai SDK", () => {
  it("answers a namespaced and a plain function_call as the next request's input items", async () => {
    const api = vendor([
      {
        id: "resp_1",
        object: "response",
        created_at: 1,
        model: "gpt-test",
        status: "completed",
        parallel_tool_calls: true,
        tools: [],
        output: [
          {
            type: "function_call",
            id: "fc_1",
            call_id: "call_1",
            namespace: "crm",
            name: "get_order",
            arguments: '{"order_ref":"ORDER-7"}',
            status: "completed",
          },
          {
            type: "function_call",
            id: "fc_2",
            call_id: "call_2",
            name: "get_order",
            arguments: '{"order_ref":"ORDER-8"}',
            status: "completed",
          },
        ],
      },
      {
        id: "resp_2",
        object: "response",
        created_at: 2,
        model: "gpt-test",
        status: "completed",
        parallel_tool_calls: true,
        tools: [],
        output: [],
      },
    ]);
    const client = new OpenAI({ apiKey: "sk-test", fetch: api.fetch, maxRetries: 0 });
    const response = await client.responses.create({ model: "gpt-test", input: "Where are ORDER-7 and ORDER-8?" });
    const calls = response.output.filter((item) => item.type === "function_call");
    expect(parseProviderItem("openai", "responses", calls[0] as unknown as Json)).toEqual({
      ok: true,
      value: { name: "crm__get_order", arguments: { order_ref: "ORDER-7" }, call_id: "call_1" },
    });
    const { message } = answerTurn(
      { provider: "openai", api_family: "responses", adapter_revision: "openai-responses-v1" },
      response.id,
      calls,
    );
    await client.responses.create({
      model: "gpt-test",
      previous_response_id: response.id,
      input: message as OpenAiResponsesTurn,
    });
    expect(api.sent[1]?.["input"]).toEqual([
      { type: "function_call_output", call_id: "call_1", output: text7 },
      { type: "function_call_output", call_id: "call_2", output: textNotFound },
    ]);
  });
});

describe("OpenAI Chat Completions through the openai SDK", () => {
  it("answers an assistant message's tool_calls as tool messages", async () => {
    const api = vendor([
      {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: "gpt-test",
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            logprobs: null,
            message: {
              role: "assistant",
              content: null,
              refusal: null,
              tool_calls: [
                {
                  id: "call_a",
                  type: "function",
                  function: { name: "get_order", arguments: '{"order_ref":"ORDER-7"}' },
                },
                {
                  id: "call_b",
                  type: "function",
                  function: { name: "get_order", arguments: '{"order_ref":"ORDER-8"}' },
                },
              ],
            },
          },
        ],
      },
      { id: "chatcmpl-2", object: "chat.completion", created: 2, model: "gpt-test", choices: [] },
    ]);
    const client = new OpenAI({ apiKey: "sk-test", fetch: api.fetch, maxRetries: 0 });
    const user: ChatCompletionMessageParam = { role: "user", content: "Where are ORDER-7 and ORDER-8?" };
    const completion = await client.chat.completions.create({ model: "gpt-test", messages: [user] });
    const assistant = completion.choices[0]?.message;
    if (assistant?.tool_calls === undefined) throw new Error("no tool calls");
    const profile = {
      provider: "openai",
      api_family: "chat_completions",
      adapter_revision: "openai-chat-completions-v1",
    };
    const { message } = answerTurn(profile, completion.id, assistant.tool_calls);
    await client.chat.completions.create({
      model: "gpt-test",
      messages: [user, assistant, ...(message as OpenAiChatTurn)],
    });
    expect((api.sent[1]?.["messages"] as unknown[]).slice(2)).toEqual([
      { role: "tool", tool_call_id: "call_a", content: text7 },
      { role: "tool", tool_call_id: "call_b", content: textNotFound },
    ]);
  });
});

describe("Anthropic Messages through the @anthropic-ai/sdk", () => {
  it("answers the tool_use blocks as one user message of tool_result blocks, a toolset member's name repeated", async () => {
    const api = vendor([
      {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-test",
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
        content: [
          { type: "text", text: "Looking both up." },
          {
            type: "tool_use",
            id: "toolu_1",
            name: "get_order",
            input: { order_ref: "ORDER-7" },
            caller: { type: "direct" },
          },
          {
            type: "tool_use",
            id: "toolu_2",
            name: "read_order",
            input: { order_ref: "ORDER-8" },
            toolset_name: "browser",
            caller: { type: "direct" },
          },
        ],
      },
      {
        id: "msg_2",
        type: "message",
        role: "assistant",
        model: "claude-test",
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
        content: [],
      },
    ]);
    const client = new Anthropic({ apiKey: "test-key", fetch: api.fetch, maxRetries: 0 });
    const user: MessageParam = { role: "user", content: "Where are ORDER-7 and ORDER-8?" };
    const reply = await client.messages.create({ model: "claude-test", max_tokens: 256, messages: [user] });
    const uses = reply.content.filter((block) => block.type === "tool_use");
    const profile = { provider: "anthropic", api_family: "messages", adapter_revision: "anthropic-messages-v1" };
    const { message } = answerTurn(profile, reply.id, uses);
    await client.messages.create({
      model: "claude-test",
      max_tokens: 256,
      messages: [user, { role: "assistant", content: reply.content }, message as AnthropicTurn],
    });
    expect((api.sent[1]?.["messages"] as unknown[])[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: text7 }], is_error: false },
        {
          type: "tool_result",
          tool_use_id: "toolu_2",
          content: [{ type: "text", text: textNotFound }],
          is_error: true,
          toolset_name: "browser",
        },
      ],
    });
  });
});

describe("Gemini Interactions through @google/genai", () => {
  const interaction = {
    id: "int_1",
    status: "requires_action",
    steps: [
      { type: "function_call", id: "fc_1", name: "get_order", arguments: { order_ref: "ORDER-7" } },
      { type: "function_call", id: "fc_2", name: "get_order", arguments: { order_ref: "ORDER-8" } },
    ],
  };

  it("answers the function_call steps as one continuation whose function_result steps carry is_error (v2)", async () => {
    const api = vendor([interaction, { id: "int_2", status: "completed", steps: [] }]);
    const ai = new GoogleGenAI({ apiKey: "test-key", httpOptions: { fetch: api.fetch } });
    const turn = await ai.interactions.create({ model: "gemini-test", input: "Where are ORDER-7 and ORDER-8?" });
    const steps = (turn.steps ?? []).filter((step) => step.type === "function_call");
    const profile = { provider: "google", api_family: "interactions", adapter_revision: "gemini-interactions-v2" };
    const { message } = answerTurn(profile, turn.id, steps);
    const continuation = message as GeminiInteractionsTurn;
    await ai.interactions.create({
      model: "gemini-test",
      previous_interaction_id: continuation.previous_interaction_id,
      input: continuation.input,
    });
    expect(api.sent[1]).toEqual({
      model: "gemini-test",
      previous_interaction_id: "int_1",
      input: [
        {
          type: "function_result",
          name: "get_order",
          call_id: "fc_1",
          result: [{ type: "text", text: text7 }],
          is_error: false,
        },
        {
          type: "function_result",
          name: "get_order",
          call_id: "fc_2",
          result: [{ type: "text", text: textNotFound }],
          is_error: true,
        },
      ],
    });
  });

  it("answers the same steps with the reference's bytes under gemini-interactions-v1 (no is_error)", async () => {
    const api = vendor([interaction]);
    const ai = new GoogleGenAI({ apiKey: "test-key", httpOptions: { fetch: api.fetch } });
    const turn = await ai.interactions.create({ model: "gemini-test", input: "Where are ORDER-7 and ORDER-8?" });
    const profile = { provider: "google", api_family: "interactions", adapter_revision: "gemini-interactions-v1" };
    const { outputs } = answerTurn(profile, turn.id, turn.steps ?? []);
    expect(outputs).toEqual([
      {
        previous_interaction_id: "int_1",
        input: [
          { type: "function_result", name: "get_order", call_id: "fc_1", result: [{ type: "text", text: text7 }] },
        ],
      },
      {
        previous_interaction_id: "int_1",
        input: [
          {
            type: "function_result",
            name: "get_order",
            call_id: "fc_2",
            result: [{ type: "text", text: textNotFound }],
          },
        ],
      },
    ]);
  });
});

describe("Gemini generateContent through @google/genai", () => {
  it("answers a Part without id and a FunctionCall with one as one user Content of functionResponse parts", async () => {
    const idless = createPartFromFunctionCall("get_order", { order_ref: "ORDER-7" });
    const api = vendor([
      {
        candidates: [
          {
            content: {
              role: "model",
              parts: [idless, { functionCall: { id: "fc_2", name: "get_order", args: { order_ref: "ORDER-8" } } }],
            },
          },
        ],
      },
      { candidates: [{ content: { role: "model", parts: [{ text: "Done." }] } }] },
    ]);
    const ai = new GoogleGenAI({ apiKey: "test-key", httpOptions: { fetch: api.fetch } });
    const user = createUserContent("Where are ORDER-7 and ORDER-8?");
    const result = await ai.models.generateContent({ model: "gemini-test", contents: [user] });
    const modelContent = result.candidates?.[0]?.content;
    const calls = result.functionCalls ?? [];
    if (modelContent?.parts === undefined || calls.length !== 2) throw new Error("no function calls");
    // The first as the whole Part the model sent, the second as the SDK's FunctionCall.
    const profile = {
      provider: "google",
      api_family: "generate_content",
      adapter_revision: "gemini-generate-content-v1",
    };
    const { message } = answerTurn(profile, "gen-1", [modelContent.parts[0], calls[1]], ["host-call-1"]);
    const expected = createUserContent([
      { functionResponse: { name: "get_order", response: { output: ORDER_7 } } },
      createPartFromFunctionResponse("fc_2", "get_order", { error: NOT_FOUND }),
    ]);
    expect(message).toEqual(expected);
    await ai.models.generateContent({
      model: "gemini-test",
      contents: [user, modelContent, message as GeminiGenerateContentTurn],
    });
    expect((api.sent[1]?.["contents"] as unknown[])[2]).toEqual({
      role: "user",
      parts: [
        { functionResponse: { name: "get_order", response: { output: ORDER_7 } } },
        { functionResponse: { id: "fc_2", name: "get_order", response: { error: NOT_FOUND } } },
      ],
    });
  });
});
