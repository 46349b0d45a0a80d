// Type-level: every provider shape the gate answers (one call, one turn) and every item field
// its parsers read, against the vendors' own SDK types. Checked by `npx tsc --noEmit -p .`
// (tsconfig.json includes test/); under vitest `expectTypeOf` is a no-op and the values built
// at the end check that each typed sample is one the adapters actually produce.
import type { MessageParam, ToolResultBlockParam, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import type { Content, FunctionCall, FunctionResponse, Interactions, Part } from "@google/genai";
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionToolMessageParam,
} from "openai/resources/chat/completions";
import type { ResponseFunctionToolCall, ResponseInput, ResponseInputItem } from "openai/resources/responses/responses";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  joinTurn,
  type AnthropicToolResult,
  type AnthropicTurn,
  type GeminiFunctionResponse,
  type GeminiFunctionResponsePart,
  type GeminiFunctionResultStep,
  type GeminiGenerateContentTurn,
  type GeminiInteractionsContinuation,
  type GeminiInteractionsTurn,
  type OpenAiChatToolMessage,
  type OpenAiChatTurn,
  type OpenAiFunctionCallOutput,
  type OpenAiResponsesTurn,
} from "../../../src/core/adapters";
import type { JsonObject } from "../../../src/core/json";

/** What a continuation may set of a model interaction's create parameters. */
type InteractionContinuation = Pick<
  Interactions.CreateModelInteractionParamsNonStreaming,
  "previous_interaction_id" | "input"
>;

describe("one call's answer, typed by the vendors' SDKs", () => {
  it("openai/responses: a ResponseInputItem.FunctionCallOutput", () => {
    expectTypeOf<OpenAiFunctionCallOutput>().toExtend<ResponseInputItem.FunctionCallOutput>();
    expectTypeOf<OpenAiFunctionCallOutput>().toExtend<ResponseInputItem>();
    expectTypeOf<keyof OpenAiFunctionCallOutput>().toExtend<keyof ResponseInputItem.FunctionCallOutput>();
  });

  it("openai/chat_completions: a ChatCompletionToolMessageParam", () => {
    expectTypeOf<OpenAiChatToolMessage>().toExtend<ChatCompletionToolMessageParam>();
    expectTypeOf<OpenAiChatToolMessage>().toExtend<ChatCompletionMessageParam>();
    expectTypeOf<keyof OpenAiChatToolMessage>().toExtend<keyof ChatCompletionToolMessageParam>();
  });

  it("anthropic/messages: a ToolResultBlockParam, toolset_name and is_error included", () => {
    expectTypeOf<AnthropicToolResult>().toExtend<ToolResultBlockParam>();
    expectTypeOf<keyof AnthropicToolResult>().toExtend<keyof ToolResultBlockParam>();
    expectTypeOf<"toolset_name" | "is_error">().toExtend<keyof AnthropicToolResult>();
  });

  it("google/interactions: a FunctionResultStep inside the create parameters of the next interaction", () => {
    expectTypeOf<GeminiFunctionResultStep>().toExtend<Interactions.FunctionResultStep>();
    expectTypeOf<keyof GeminiFunctionResultStep>().toExtend<keyof Interactions.FunctionResultStep>();
    expectTypeOf<"is_error">().toExtend<keyof GeminiFunctionResultStep>();
    expectTypeOf<GeminiInteractionsContinuation>().toExtend<InteractionContinuation>();
    expectTypeOf<keyof GeminiInteractionsContinuation>().toExtend<keyof InteractionContinuation>();
  });

  it("google/generate_content: a Part whose functionResponse is a FunctionResponse", () => {
    expectTypeOf<GeminiFunctionResponsePart>().toExtend<Part>();
    expectTypeOf<keyof GeminiFunctionResponsePart>().toExtend<keyof Part>();
    expectTypeOf<GeminiFunctionResponse>().toExtend<FunctionResponse>();
    expectTypeOf<keyof GeminiFunctionResponse>().toExtend<keyof FunctionResponse>();
  });
});

describe("one turn's message, typed by the vendors' SDKs", () => {
  it("openai/responses: a ResponseInput (items to append to the next input)", () => {
    expectTypeOf<OpenAiResponsesTurn>().toExtend<ResponseInput>();
  });

  it("openai/chat_completions: messages to append to the next messages", () => {
    expectTypeOf<OpenAiChatTurn>().toExtend<ChatCompletionMessageParam[]>();
  });

  it("anthropic/messages: one user MessageParam of tool_result blocks", () => {
    expectTypeOf<AnthropicTurn>().toExtend<MessageParam>();
    expectTypeOf<AnthropicTurn["role"]>().toEqualTypeOf<"user">();
  });

  it("google/interactions: one continuation", () => {
    expectTypeOf<GeminiInteractionsTurn>().toExtend<InteractionContinuation>();
  });

  it("google/generate_content: one Content of functionResponse parts", () => {
    expectTypeOf<GeminiGenerateContentTurn>().toExtend<Content>();
    expectTypeOf<keyof GeminiGenerateContentTurn>().toExtend<keyof Content>();
  });
});

describe("the item fields each parser reads are the SDKs' own", () => {
  it("openai/responses function_call: call_id, name, arguments (JSON text), namespace", () => {
    expectTypeOf<ResponseFunctionToolCall["type"]>().toEqualTypeOf<"function_call">();
    expectTypeOf<Pick<ResponseFunctionToolCall, "call_id" | "name" | "arguments">>().toEqualTypeOf<{
      call_id: string;
      name: string;
      arguments: string;
    }>();
    expectTypeOf<ResponseFunctionToolCall["namespace"]>().toEqualTypeOf<string | undefined>();
  });

  it("openai/chat_completions tool_calls[]: id, type function, function.name and function.arguments (JSON text)", () => {
    expectTypeOf<ChatCompletionMessageFunctionToolCall["type"]>().toEqualTypeOf<"function">();
    expectTypeOf<ChatCompletionMessageFunctionToolCall["id"]>().toEqualTypeOf<string>();
    expectTypeOf<ChatCompletionMessageFunctionToolCall["function"]>().toEqualTypeOf<{
      name: string;
      arguments: string;
    }>();
  });

  it("anthropic tool_use: id, name, input, toolset_name", () => {
    expectTypeOf<ToolUseBlock["type"]>().toEqualTypeOf<"tool_use">();
    expectTypeOf<Pick<ToolUseBlock, "id" | "name">>().toEqualTypeOf<{ id: string; name: string }>();
    expectTypeOf<ToolUseBlock["toolset_name"]>().toEqualTypeOf<string | null | undefined>();
  });

  it("google/interactions function_call step: id, name, arguments", () => {
    expectTypeOf<Interactions.FunctionCallStep["type"]>().toEqualTypeOf<"function_call">();
    expectTypeOf<Pick<Interactions.FunctionCallStep, "id" | "name">>().toEqualTypeOf<{ id: string; name: string }>();
    expectTypeOf<Interactions.FunctionCallStep["arguments"]>().toEqualTypeOf<{ [k: string]: any }>();
  });

  it("google/generate_content FunctionCall: id and args optional, or the Part carrying it", () => {
    expectTypeOf<FunctionCall["id"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<FunctionCall["args"]>().toEqualTypeOf<Record<string, unknown> | undefined>();
    expectTypeOf<Part["functionCall"]>().toEqualTypeOf<FunctionCall | undefined>();
  });
});

describe("typed samples are values the gate joins", () => {
  it("joins typed answers into the typed turn of each profile", () => {
    const text = { type: "text" as const, text: "{}" };
    const result: AnthropicToolResult = {
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: [text],
      is_error: false,
    };
    const anthropic: AnthropicTurn = { role: "user", content: [result] };
    expect(joinTurn("anthropic", "messages", [result as JsonObject])).toEqual({ ok: true, value: anthropic });
    const part: GeminiFunctionResponsePart = { functionResponse: { name: "get_order", response: { output: {} } } };
    const content: GeminiGenerateContentTurn = { role: "user", parts: [part] };
    expect(joinTurn("google", "generate_content", [part as JsonObject])).toEqual({ ok: true, value: content });
    const output: OpenAiFunctionCallOutput = { type: "function_call_output", call_id: "call_1", output: "{}" };
    const responses: OpenAiResponsesTurn = [output];
    expect(joinTurn("openai", "responses", [output as JsonObject])).toEqual({ ok: true, value: responses });
  });
});
