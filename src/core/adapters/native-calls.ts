/**
 * Inbound adapters: a model's native tool-call item, read strictly into the only fields the
 * gate takes from a model — tool name, arguments and the provider's call id — plus what the
 * answer must repeat of it ({@link CallEcho}).
 *
 * | profile                   | item                                                                 |
 * | ------------------------- | -------------------------------------------------------------------- |
 * | `openai/responses`        | `{type:"function_call", call_id, name, arguments:"<JSON>", namespace?}` |
 * | `openai/chat_completions` | a `tool_calls[]` entry `{id, type:"function", function:{name, arguments:"<JSON>"}}` |
 * | `anthropic/messages`      | `{type:"tool_use", id, name, input, toolset_name?}`                  |
 * | `google/interactions`     | a `function_call` step `{type:"function_call", id, name, arguments}` (also `args`) |
 * | `google/generate_content` | a `FunctionCall` `{id?, name, args?}`, or its `Part` `{functionCall:{…}}` |
 *
 * A call grouped by the provider (an OpenAI Responses `namespace`, an Anthropic `toolset_name`)
 * names the gate tool `<group>__<name>` ({@link qualifiedToolName}): two groups' `search` stay
 * two tools, and a group's tools can be an MCP server imported with the prefix `<group>__`.
 * @module
 */
import * as z from "../zod";
import { readJson, type Json, type JsonObject } from "../json";
import { isBoundedIdentifier, isPlainObject } from "../tool-result/text-rules";

/** What the answer to a call repeats of the model's own item (absent: nothing). */
export interface CallEcho {
  /** Anthropic: a toolset member's family (`tool_use.toolset_name`), repeated on its `tool_result`. */
  readonly toolset_name?: string;
  /** Gemini generateContent: the model's `FunctionCall` had no `id`, so its `FunctionResponse` has none. */
  readonly id_absent?: true;
}

/** A proposal as read from a provider payload. */
export interface NativeToolCall {
  readonly name: string;
  readonly arguments: JsonObject;
  /** The provider's call id; null only for a generateContent `FunctionCall` without one (the host's `context.call_id` names the call then). */
  readonly call_id: string | null;
  readonly echo?: CallEcho;
}

/** Why an item was refused. */
export type NativeCallErrorCode = "NATIVE_CALL_INVALID" | "NATIVE_ARGUMENTS_INVALID";

/** Result of the inbound parsers. */
export type NativeCallResult =
  | { readonly ok: true; readonly value: NativeToolCall }
  | { readonly ok: false; readonly error: { readonly code: NativeCallErrorCode; readonly message: string } };

/** Joins a provider's group (namespace, toolset) and a function name into the gate's tool name. */
export const GROUP_SEPARATOR = "__";

const identifier = z.deferred(() =>
  z.custom<string>(isBoundedIdentifier, {
    error: "must be a non-empty string of at most 255 code points",
  }),
);
const argumentsObject = z.deferred(() => z.custom<JsonObject>(isPlainObject, { error: "must be a JSON object" }));

// Provider items carry more fields over time (ids, status, signatures); only these are read.
const openAiFunctionCall = z.deferred(() =>
  z.looseObject({
    type: z.literal("function_call"),
    call_id: identifier,
    name: identifier,
    arguments: z.string(),
    namespace: z.nullish(identifier),
  }),
);
const openAiChatToolCall = z.deferred(() =>
  z.looseObject({
    id: identifier,
    type: z.literal("function"),
    function: z.looseObject({ name: identifier, arguments: z.string() }),
  }),
);
const anthropicToolUse = z.deferred(() =>
  z.looseObject({
    type: z.literal("tool_use"),
    id: identifier,
    name: identifier,
    input: argumentsObject,
    toolset_name: z.nullish(identifier),
  }),
);
const geminiFunctionCallStep = z.deferred(() =>
  z.looseObject({
    type: z.optional(z.literal("function_call")),
    id: identifier,
    name: identifier,
    arguments: z.optional(argumentsObject),
    args: z.optional(argumentsObject),
  }),
);
const geminiFunctionCall = z.deferred(() =>
  z.looseObject({
    id: z.nullish(identifier),
    name: identifier,
    args: z.optional(argumentsObject),
    partialArgs: z.optional(z.unknown()),
    willContinue: z.optional(z.boolean()),
  }),
);

function invalid(code: NativeCallErrorCode, message: string): NativeCallResult {
  return { ok: false, error: { code, message } };
}

function issuesText(error: z.core.$ZodError): string {
  return error.issues.map((issue) => `${issue.path.map(String).join(".") || "item"}: ${issue.message}`).join("; ");
}

/** The gate's tool name for `name` in a provider's `group`, or null when it is not an identifier. */
export function qualifiedToolName(group: string | null | undefined, name: string): string | null {
  if (group === null || group === undefined) return name;
  const qualified = `${group}${GROUP_SEPARATOR}${name}`;
  return isBoundedIdentifier(qualified) ? qualified : null;
}

function called(name: string | null, args: JsonObject, callId: string | null, echo?: CallEcho): NativeCallResult {
  if (name === null)
    return invalid("NATIVE_CALL_INVALID", "the group and function name together exceed 255 code points");
  return {
    ok: true,
    value:
      echo === undefined
        ? { name, arguments: args, call_id: callId }
        : { name, arguments: args, call_id: callId, echo },
  };
}

/** An OpenAI `arguments` JSON string, read with the strict reader; it must be an object. */
function jsonArguments(text: string): { ok: true; value: JsonObject } | { ok: false; result: NativeCallResult } {
  const args = readJson(text);
  if (!args.ok)
    return {
      ok: false,
      result: invalid(
        "NATIVE_ARGUMENTS_INVALID",
        `arguments are not strict JSON: ${args.error.code}: ${args.error.message}`,
      ),
    };
  if (!isPlainObject(args.value))
    return { ok: false, result: invalid("NATIVE_ARGUMENTS_INVALID", "arguments must be a JSON object") };
  return { ok: true, value: args.value };
}

/** OpenAI Responses `function_call` item; `arguments` is read strictly, a `namespace` qualifies the name. */
export function parseOpenAiFunctionCall(item: Json): NativeCallResult {
  const parsed = openAiFunctionCall.safeParse(item);
  if (!parsed.success)
    return invalid("NATIVE_CALL_INVALID", `not an OpenAI function_call item: ${issuesText(parsed.error)}`);
  const args = jsonArguments(parsed.data.arguments);
  if (!args.ok) return args.result;
  return called(qualifiedToolName(parsed.data.namespace, parsed.data.name), args.value, parsed.data.call_id);
}

/** OpenAI Chat Completions: one entry of an assistant message's `tool_calls[]` (a function call). */
export function parseOpenAiChatToolCall(item: Json): NativeCallResult {
  const parsed = openAiChatToolCall.safeParse(item);
  if (!parsed.success)
    return invalid(
      "NATIVE_CALL_INVALID",
      `not an OpenAI Chat Completions function tool call: ${issuesText(parsed.error)}`,
    );
  const args = jsonArguments(parsed.data.function.arguments);
  if (!args.ok) return args.result;
  return called(parsed.data.function.name, args.value, parsed.data.id);
}

/** Anthropic Messages `tool_use` content block; a toolset member's `toolset_name` qualifies the name and is repeated. */
export function parseAnthropicToolUse(block: Json): NativeCallResult {
  const parsed = anthropicToolUse.safeParse(block);
  if (!parsed.success)
    return invalid("NATIVE_CALL_INVALID", `not an Anthropic tool_use block: ${issuesText(parsed.error)}`);
  const toolset = parsed.data.toolset_name;
  const echo = toolset === null || toolset === undefined ? undefined : { toolset_name: toolset };
  return called(qualifiedToolName(toolset, parsed.data.name), parsed.data.input, parsed.data.id, echo);
}

/**
 * Gemini Interactions `function_call` step (`{type, id, name, arguments}`, as `@google/genai`
 * returns it); the older form with `args` is read too, never both.
 */
export function parseGeminiFunctionCall(part: Json): NativeCallResult {
  const parsed = geminiFunctionCallStep.safeParse(part);
  if (!parsed.success) return invalid("NATIVE_CALL_INVALID", `not a Gemini function call: ${issuesText(parsed.error)}`);
  const { arguments: args, args: legacy } = parsed.data;
  if (args !== undefined && legacy !== undefined)
    return invalid("NATIVE_CALL_INVALID", "not a Gemini function call: send one of arguments and args");
  const value = args ?? legacy;
  if (value === undefined)
    return invalid("NATIVE_CALL_INVALID", "not a Gemini function call: arguments: must be a JSON object");
  return called(parsed.data.name, value, parsed.data.id);
}

/**
 * Gemini generateContent: a `FunctionCall` (`{id?, name, args?}`) or the `Part` carrying it.
 * Missing `args` is an empty object; a streamed partial call is refused.
 */
export function parseGeminiGenerateContentCall(item: Json): NativeCallResult {
  const call = isPlainObject(item) && Object.hasOwn(item, "functionCall") ? item["functionCall"] : item;
  const parsed = geminiFunctionCall.safeParse(call);
  if (!parsed.success) return invalid("NATIVE_CALL_INVALID", `not a Gemini FunctionCall: ${issuesText(parsed.error)}`);
  if (parsed.data.partialArgs !== undefined || parsed.data.willContinue === true) {
    return invalid(
      "NATIVE_CALL_INVALID",
      "not a Gemini FunctionCall: a streamed partial call (partialArgs, willContinue); send the whole call",
    );
  }
  const id = parsed.data.id ?? null;
  return called(parsed.data.name, parsed.data.args ?? {}, id, id === null ? { id_absent: true } : undefined);
}

const PARSERS: ReadonlyMap<string, (item: Json) => NativeCallResult> = new Map([
  ["openai\u0000responses", parseOpenAiFunctionCall],
  ["openai\u0000chat_completions", parseOpenAiChatToolCall],
  ["anthropic\u0000messages", parseAnthropicToolUse],
  ["google\u0000interactions", parseGeminiFunctionCall],
  ["google\u0000generate_content", parseGeminiGenerateContentCall],
]);

/** Reads `item` with the parser of its provider profile; undefined when the profile takes no native item. */
export function parseProviderItem(provider: string, apiFamily: string, item: Json): NativeCallResult | undefined {
  return PARSERS.get(`${provider}\u0000${apiFamily}`)?.(item);
}
