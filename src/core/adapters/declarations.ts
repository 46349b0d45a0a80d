/**
 * Declarations for the model: a tool's name, description and input schema (the gate's JSON
 * Schema 2020-12 subset), written once, in each vendor's tool-declaration shape.
 *
 * | format        | shape                                                                    |
 * | ------------- | ------------------------------------------------------------------------ |
 * | `openai`      | Responses API function tool `{ type: "function", name, description, parameters, strict: true }`, the schema in strict form ({@link toOpenAiStrictSchema}) |
 * | `anthropic`   | Messages API tool `{ name, description, input_schema }`, the schema as written |
 * | `gemini`      | `FunctionDeclaration` `{ name, description, parametersJsonSchema }`, the schema as written |
 * | `json-schema` | `{ name, description, input_schema }`, the schema as written, and `confirmed_by: "end_user"` for a tool its end user confirms |
 *
 * Gemini: `parametersJsonSchema` is the field of `@google/genai`'s `FunctionDeclaration` that
 * takes JSON Schema (the alternative, `parameters`, is Gemini's OpenAPI-style `Schema` with
 * upper-case `Type` names); it is where the SDK's own `mcpToTool` puts an MCP tool's
 * `inputSchema`, unchanged, and so does this module.
 *
 * Whatever the format, the gate validates the arguments against the tool's own schema when the
 * call arrives: a declaration tells the model what to send, it never widens what is accepted.
 * Each declaration is a fresh copy (mutating it leaves the tool's definition alone).
 * @module
 */
import type { Json, JsonObject } from "../json";
import { toOpenAiStrictSchema } from "./openai-strict";
import { copyObject, member } from "./schema-nodes";

/** The declaration formats, in the order the API documents them. */
export const DECLARATION_FORMATS = ["openai", "anthropic", "gemini", "json-schema"] as const;

/** A vendor's tool-declaration shape. */
export type DeclarationFormat = (typeof DECLARATION_FORMATS)[number];

/** What a declaration is made of: a tool's name, description and input schema. */
export interface ToolDeclarationInput {
  readonly name: string;
  readonly description: string;
  /** The tool's input schema: an object schema in the gate's JSON Schema subset, validated. */
  readonly input: JsonObject;
  /** Who confirms a write that needs a human, when it is the requesting end user (the `json-schema` format says so). */
  readonly confirmedBy?: "end_user";
}

/** An input schema whose root is an object schema (what Anthropic's `input_schema` requires). */
export type ObjectSchema = { readonly type: "object"; readonly [keyword: string]: Json };

/** OpenAI Responses API function tool, strict. */
export type OpenAiToolDeclaration = {
  readonly type: "function";
  readonly name: string;
  readonly description: string;
  readonly parameters: ObjectSchema;
  readonly strict: true;
};

/** Anthropic Messages API client tool. */
export type AnthropicToolDeclaration = {
  readonly name: string;
  readonly description: string;
  readonly input_schema: ObjectSchema;
};

/** Gemini function declaration, its parameters in JSON Schema. */
export type GeminiToolDeclaration = {
  readonly name: string;
  readonly description: string;
  readonly parametersJsonSchema: ObjectSchema;
};

/**
 * The plain form: the tool's schema under `input_schema`, as written; `confirmed_by: "end_user"`
 * when the requesting end user confirms its writes in chat (an adapter asks there).
 */
export type JsonSchemaToolDeclaration = {
  readonly name: string;
  readonly description: string;
  readonly input_schema: ObjectSchema;
  readonly confirmed_by?: "end_user";
};

/** True for a format name this module declares (for reading a `?format=` query). */
export function isDeclarationFormat(value: string): value is DeclarationFormat {
  return (DECLARATION_FORMATS as readonly string[]).includes(value);
}

/** A copy of the tool's schema, which must be an object schema (definitions are validated first). */
function objectSchema(input: JsonObject, strict: boolean): ObjectSchema {
  if (member(input, "type") !== "object") throw new TypeError("a tool's input schema must be an object schema");
  return { ...(strict ? toOpenAiStrictSchema(input) : copyObject(input)), type: "object" };
}

function openAi(tool: ToolDeclarationInput): OpenAiToolDeclaration {
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: objectSchema(tool.input, true),
    strict: true,
  };
}

function anthropic(tool: ToolDeclarationInput): AnthropicToolDeclaration {
  return { name: tool.name, description: tool.description, input_schema: objectSchema(tool.input, false) };
}

function jsonSchema(tool: ToolDeclarationInput): JsonSchemaToolDeclaration {
  return {
    ...anthropic(tool),
    ...(tool.confirmedBy === "end_user" ? { confirmed_by: "end_user" as const } : {}),
  };
}

function gemini(tool: ToolDeclarationInput): GeminiToolDeclaration {
  return { name: tool.name, description: tool.description, parametersJsonSchema: objectSchema(tool.input, false) };
}

/**
 * One declaration per tool, in the given order, in `format`'s shape (see the module's table).
 * Throws when a tool's input schema is not an object schema: a caller's bug, since definitions
 * are validated when they are stored.
 */
export function declareTools(tools: readonly ToolDeclarationInput[], format: "openai"): OpenAiToolDeclaration[];
export function declareTools(tools: readonly ToolDeclarationInput[], format: "anthropic"): AnthropicToolDeclaration[];
export function declareTools(tools: readonly ToolDeclarationInput[], format: "gemini"): GeminiToolDeclaration[];
export function declareTools(
  tools: readonly ToolDeclarationInput[],
  format: "json-schema",
): JsonSchemaToolDeclaration[];
export function declareTools(tools: readonly ToolDeclarationInput[], format: DeclarationFormat): JsonObject[];
export function declareTools(tools: readonly ToolDeclarationInput[], format: DeclarationFormat): JsonObject[] {
  switch (format) {
    case "openai":
      return tools.map(openAi);
    case "anthropic":
      return tools.map(anthropic);
    case "json-schema":
      return tools.map(jsonSchema);
    case "gemini":
      return tools.map(gemini);
  }
}
