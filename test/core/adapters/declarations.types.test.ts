// Type-level: each declaration format against the vendor's own SDK types. Checked by
// `npx tsc --noEmit -p .` (tsconfig.json includes test/); vitest runs the file too, where
// `expectTypeOf` is a no-op and the one runtime case checks the values behind the types.
import type { Tool as AnthropicTool } from "@anthropic-ai/sdk/resources/messages";
import type { FunctionDeclaration } from "@google/genai";
import type { FunctionTool } from "openai/resources/responses/responses";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  declareTools,
  type AnthropicToolDeclaration,
  type GeminiToolDeclaration,
  type JsonSchemaToolDeclaration,
  type OpenAiToolDeclaration,
  type ToolDeclarationInput,
} from "../../../src/core/adapters";
import type { JsonObject } from "../../../src/core/json";

const tools: ToolDeclarationInput[] = [
  {
    name: "get_order",
    description: "Reads one order.",
    input: {
      type: "object",
      properties: { order_ref: { type: "string" } },
      required: ["order_ref"],
      additionalProperties: false,
    },
  },
];

describe("declarations typed by the vendors' SDKs", () => {
  it("openai: a Responses API FunctionTool, every key one the SDK declares", () => {
    expectTypeOf<OpenAiToolDeclaration>().toExtend<FunctionTool>();
    expectTypeOf<keyof OpenAiToolDeclaration>().toExtend<keyof FunctionTool>();
    // The keys FunctionTool requires are all present (not merely optional) in ours.
    expectTypeOf<OpenAiToolDeclaration>().toExtend<
      Required<Pick<FunctionTool, "type" | "name" | "parameters" | "strict">>
    >();
    const declared: FunctionTool[] = declareTools(tools, "openai");
    expectTypeOf(declared).toEqualTypeOf<FunctionTool[]>();
  });

  it("anthropic: a Messages API Tool with an object input_schema", () => {
    expectTypeOf<AnthropicToolDeclaration>().toExtend<AnthropicTool>();
    expectTypeOf<keyof AnthropicToolDeclaration>().toExtend<keyof AnthropicTool>();
    expectTypeOf<AnthropicToolDeclaration["input_schema"]>().toExtend<AnthropicTool.InputSchema>();
    const declared: AnthropicTool[] = declareTools(tools, "anthropic");
    expectTypeOf(declared).toEqualTypeOf<AnthropicTool[]>();
  });

  it("gemini: a FunctionDeclaration carrying parametersJsonSchema", () => {
    expectTypeOf<GeminiToolDeclaration>().toExtend<FunctionDeclaration>();
    // FunctionDeclaration's members are all optional: an unknown or misspelt key would still be
    // assignable, so check that every key is one the SDK declares.
    expectTypeOf<keyof GeminiToolDeclaration>().toExtend<keyof FunctionDeclaration>();
    expectTypeOf<"parametersJsonSchema">().toExtend<keyof GeminiToolDeclaration>();
    const declared: FunctionDeclaration[] = declareTools(tools, "gemini");
    expectTypeOf(declared).toEqualTypeOf<FunctionDeclaration[]>();
  });

  it("json-schema: the Anthropic shape without vendor options, and any format is JSON", () => {
    expectTypeOf<JsonSchemaToolDeclaration>().toExtend<AnthropicTool>();
    expectTypeOf<OpenAiToolDeclaration>().toExtend<JsonObject>();
    expectTypeOf<AnthropicToolDeclaration>().toExtend<JsonObject>();
    expectTypeOf<GeminiToolDeclaration>().toExtend<JsonObject>();
    expectTypeOf<JsonSchemaToolDeclaration>().toExtend<JsonObject>();
    const format = "gemini" as "openai" | "gemini";
    expectTypeOf(declareTools(tools, format)).toEqualTypeOf<JsonObject[]>();
  });

  it("produces, at run time, exactly the keys the types name", () => {
    expect(Object.keys(declareTools(tools, "openai")[0] ?? {}).sort()).toEqual([
      "description",
      "name",
      "parameters",
      "strict",
      "type",
    ]);
    expect(Object.keys(declareTools(tools, "anthropic")[0] ?? {}).sort()).toEqual([
      "description",
      "input_schema",
      "name",
    ]);
    expect(Object.keys(declareTools(tools, "gemini")[0] ?? {}).sort()).toEqual([
      "description",
      "name",
      "parametersJsonSchema",
    ]);
    expect(Object.keys(declareTools(tools, "json-schema")[0] ?? {}).sort()).toEqual([
      "description",
      "input_schema",
      "name",
    ]);
  });
});
