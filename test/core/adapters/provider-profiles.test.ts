import { describe, expect, it } from "vitest";
import {
  adapterFor,
  joinsTurns,
  joinTurn,
  parseGeminiFunctionCall,
  parseGeminiGenerateContentCall,
  parseOpenAiChatToolCall,
  parseOpenAiFunctionCall,
  parseAnthropicToolUse,
  parseProviderItem,
  qualifiedToolName,
  toGeminiGenerateContent,
  toOpenAiChatCompletions,
} from "../../../src/core/adapters";
import {
  bindToolCall,
  dispatch,
  expectedAdapterRevision,
  GATE_PROFILES,
  isRegisteredProfile,
} from "../../../src/core/tool-result";
import { createDemoEngine } from "../../../src/conformance/tool-cases";
import { accepted } from "../../support/accepted";

describe("provider profiles", () => {
  it("lists the reference's three, then the gate's own", () => {
    expect(GATE_PROFILES).toEqual([
      { provider: "openai", api_family: "responses", adapter_revision: "openai-responses-v1" },
      { provider: "anthropic", api_family: "messages", adapter_revision: "anthropic-messages-v1" },
      { provider: "google", api_family: "interactions", adapter_revision: "gemini-interactions-v1" },
      { provider: "mcp", api_family: "tools", adapter_revision: "mcp-tools-v1" },
      { provider: "openai", api_family: "chat_completions", adapter_revision: "openai-chat-completions-v1" },
      { provider: "google", api_family: "generate_content", adapter_revision: "gemini-generate-content-v1" },
      { provider: "google", api_family: "interactions", adapter_revision: "gemini-interactions-v2" },
    ]);
  });

  it("admits the gate's profiles in gate scope only; the reference keeps one revision per profile", () => {
    expect(isRegisteredProfile("openai", "chat_completions", "openai-chat-completions-v1")).toBe(true);
    expect(isRegisteredProfile("openai", "chat_completions", "openai-chat-completions-v1", "reference")).toBe(false);
    expect(isRegisteredProfile("google", "interactions", "gemini-interactions-v1")).toBe(true);
    expect(isRegisteredProfile("google", "interactions", "gemini-interactions-v2")).toBe(true);
    expect(isRegisteredProfile("google", "interactions", "gemini-interactions-v2", "reference")).toBe(false);
    expect(isRegisteredProfile("google", "generate_content", "gemini-interactions-v1")).toBe(false);
    expect(isRegisteredProfile("openai", "responses", 1)).toBe(false);
    expect(expectedAdapterRevision("google", "interactions")).toBe("gemini-interactions-v1");
    expect(expectedAdapterRevision("google", "generate_content")).toBe("gemini-generate-content-v1");
    expect(expectedAdapterRevision("google", "generate_content", "reference")).toBe(undefined);
  });

  it("finds each revision's adapter, the profile's first without a revision", () => {
    expect(adapterFor("google", "interactions")?.name).toBe("to_gemini_interactions");
    expect(adapterFor("google", "interactions", "gemini-interactions-v2")?.name).toBe("to_gemini_interactions_v2");
    expect(adapterFor("openai", "chat_completions")?.name).toBe("to_openai_chat_completions");
    expect(adapterFor("google", "generate_content", "gemini-generate-content-v1")?.name).toBe(
      "to_gemini_generate_content",
    );
    expect(adapterFor("mcp", "tools")?.name).toBe("to_mcp_tool_result");
    expect(adapterFor("google", "interactions", "gemini-interactions-v3")).toBe(undefined);
    expect(adapterFor("openai", "completions")).toBe(undefined);
  });

  it("keeps each adapter to its own profile", () => {
    const principal = { tenant_id: "tenant-a", subject_id: "user-1", roles: [] as string[] };
    const call = bindToolCall(
      { name: "get_order", arguments: { order_ref: "ORDER-7" } },
      {
        provider: "openai",
        api_family: "responses",
        adapter_revision: "openai-responses-v1",
        response_id: "resp-1",
        call_id: "call-1",
        operation_id: "op-1",
        idempotency_key: null,
      },
    );
    const engine = createDemoEngine();
    const pkg = accepted(dispatch(engine, { principal, call, now: 1_784_419_200 }));
    expect(toOpenAiChatCompletions(principal, call, engine.registry.get("get_order"), pkg)).toEqual({
      ok: false,
      error: { code: "RESULT_CONTRACT_VIOLATION", message: "call is not an OpenAI Chat Completions context" },
    });
    expect(toGeminiGenerateContent(principal, call, engine.registry.get("get_order"), pkg)).toEqual({
      ok: false,
      error: { code: "RESULT_CONTRACT_VIOLATION", message: "call is not a Gemini generateContent context" },
    });
  });
});

describe("native items of every profile", () => {
  it("qualifies an OpenAI namespace and an Anthropic toolset into the gate's tool name", () => {
    const item = { type: "function_call", call_id: "call_1", namespace: "crm", name: "get_order", arguments: "{}" };
    expect(parseOpenAiFunctionCall(item)).toEqual({
      ok: true,
      value: { name: "crm__get_order", arguments: {}, call_id: "call_1" },
    });
    expect(parseOpenAiFunctionCall({ ...item, namespace: null })).toEqual({
      ok: true,
      value: { name: "get_order", arguments: {}, call_id: "call_1" },
    });
    expect(
      parseAnthropicToolUse({
        type: "tool_use",
        id: "toolu_1",
        name: "navigate",
        input: { url: "https://example.com" },
        toolset_name: "browser",
      }),
    ).toEqual({
      ok: true,
      value: {
        name: "browser__navigate",
        arguments: { url: "https://example.com" },
        call_id: "toolu_1",
        echo: { toolset_name: "browser" },
      },
    });
    expect(
      parseAnthropicToolUse({ type: "tool_use", id: "toolu_1", name: "get_order", input: {}, toolset_name: null }),
    ).toEqual({
      ok: true,
      value: { name: "get_order", arguments: {}, call_id: "toolu_1" },
    });
    expect(qualifiedToolName("n".repeat(200), "m".repeat(60))).toBe(null);
    expect(parseOpenAiFunctionCall({ ...item, namespace: "n".repeat(200), name: "m".repeat(60) })).toEqual({
      ok: false,
      error: { code: "NATIVE_CALL_INVALID", message: "the group and function name together exceed 255 code points" },
    });
  });

  it("reads a Chat Completions function tool call and refuses a custom one or bad arguments", () => {
    expect(
      parseOpenAiChatToolCall({
        id: "call_a",
        type: "function",
        function: { name: "get_order", arguments: '{"order_ref":"ORDER-7"}' },
      }),
    ).toEqual({
      ok: true,
      value: { name: "get_order", arguments: { order_ref: "ORDER-7" }, call_id: "call_a" },
    });
    expect(
      parseOpenAiChatToolCall({ id: "call_a", type: "custom", custom: { name: "get_order", input: "x" } }),
    ).toEqual({
      ok: false,
      error: {
        code: "NATIVE_CALL_INVALID",
        message:
          'not an OpenAI Chat Completions function tool call: type: Invalid input: expected "function"; function: Invalid input: expected object, received undefined',
      },
    });
    expect(
      parseOpenAiChatToolCall({ id: "call_a", type: "function", function: { name: "get_order", arguments: "[]" } }),
    ).toEqual({
      ok: false,
      error: { code: "NATIVE_ARGUMENTS_INVALID", message: "arguments must be a JSON object" },
    });
  });

  it("reads a Gemini Interactions function_call step's arguments, and the older args, never both", () => {
    const step = { type: "function_call", id: "fc_1", name: "get_order", arguments: { order_ref: "ORDER-7" } };
    expect(parseGeminiFunctionCall(step)).toEqual({
      ok: true,
      value: { name: "get_order", arguments: { order_ref: "ORDER-7" }, call_id: "fc_1" },
    });
    expect(parseGeminiFunctionCall({ ...step, args: { order_ref: "ORDER-7" } })).toEqual({
      ok: false,
      error: { code: "NATIVE_CALL_INVALID", message: "not a Gemini function call: send one of arguments and args" },
    });
    expect(parseGeminiFunctionCall({ type: "function_call", id: "fc_1", name: "get_order" })).toEqual({
      ok: false,
      error: { code: "NATIVE_CALL_INVALID", message: "not a Gemini function call: arguments: must be a JSON object" },
    });
  });

  it("reads a generateContent FunctionCall or its Part, with or without id, and refuses a partial call", () => {
    expect(
      parseGeminiGenerateContentCall({
        functionCall: { name: "get_order", args: { order_ref: "ORDER-7" } },
        thoughtSignature: "c2ln",
      }),
    ).toEqual({
      ok: true,
      value: { name: "get_order", arguments: { order_ref: "ORDER-7" }, call_id: null, echo: { id_absent: true } },
    });
    expect(parseGeminiGenerateContentCall({ id: "fc_2", name: "list_orders" })).toEqual({
      ok: true,
      value: { name: "list_orders", arguments: {}, call_id: "fc_2" },
    });
    expect(
      parseGeminiGenerateContentCall({ id: "fc_2", name: "get_order", partialArgs: [], willContinue: true }),
    ).toEqual({
      ok: false,
      error: {
        code: "NATIVE_CALL_INVALID",
        message: "not a Gemini FunctionCall: a streamed partial call (partialArgs, willContinue); send the whole call",
      },
    });
    expect(parseGeminiGenerateContentCall({ text: "hello" })).toEqual({
      ok: false,
      error: {
        code: "NATIVE_CALL_INVALID",
        message: "not a Gemini FunctionCall: name: must be a non-empty string of at most 255 code points",
      },
    });
  });

  it("picks the parser by profile; MCP and unknown profiles take no native item", () => {
    const chat = { id: "call_a", type: "function", function: { name: "get_order", arguments: "{}" } };
    expect(parseProviderItem("openai", "chat_completions", chat)).toEqual({
      ok: true,
      value: { name: "get_order", arguments: {}, call_id: "call_a" },
    });
    expect(parseProviderItem("openai", "responses", chat)?.ok).toBe(false);
    expect(parseProviderItem("mcp", "tools", chat)).toBe(undefined);
    expect(parseProviderItem("openai", "assistants", chat)).toBe(undefined);
  });
});

describe("one message per turn", () => {
  it("joins each profile's answers and refuses what makes no one message", () => {
    expect(joinsTurns("mcp", "tools")).toBe(false);
    expect(joinTurn("mcp", "tools", [{}])).toEqual({
      ok: false,
      error: { code: "TURN_NOT_JOINABLE", message: "the mcp/tools profile answers no turn as one message" },
    });
    expect(joinTurn("anthropic", "messages", [])).toEqual({
      ok: false,
      error: { code: "TURN_NOT_JOINABLE", message: "a turn has at least one call" },
    });
    const step = (call: string) => ({
      type: "function_result",
      name: "get_order",
      call_id: call,
      result: [{ type: "text", text: "{}" }],
    });
    expect(
      joinTurn("google", "interactions", [
        { previous_interaction_id: "int_1", input: [step("a")] },
        { previous_interaction_id: "int_1", input: [step("b")] },
      ]),
    ).toEqual({
      ok: true,
      value: { previous_interaction_id: "int_1", input: [step("a"), step("b")] },
    });
    expect(
      joinTurn("google", "interactions", [
        { previous_interaction_id: "int_1", input: [step("a")] },
        { previous_interaction_id: "int_2", input: [step("b")] },
      ]),
    ).toEqual({
      ok: false,
      error: { code: "TURN_NOT_JOINABLE", message: "the continuations continue different interactions" },
    });
    const tool = { role: "tool", tool_call_id: "call_a", content: "{}" };
    expect(joinTurn("openai", "chat_completions", [tool])).toEqual({ ok: true, value: [tool] });
  });
});
