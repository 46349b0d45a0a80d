/**
 * Inbound adapters: a model's native tool-call item, read strictly into the only fields the
 * gate takes from a model — tool name, arguments and the provider's call id.
 * @module
 */
import * as z from "zod";
import { readJson, type Json, type JsonObject } from "../json";
import { isBoundedIdentifier, isPlainObject } from "../tool-result/text-rules";

/** A proposal as read from a provider payload. */
export interface NativeToolCall {
  readonly name: string;
  readonly arguments: JsonObject;
  readonly call_id: string;
}

/** Why an item was refused. */
export type NativeCallErrorCode = "NATIVE_CALL_INVALID" | "NATIVE_ARGUMENTS_INVALID";

/** Result of the inbound parsers. */
export type NativeCallResult =
  | { readonly ok: true; readonly value: NativeToolCall }
  | { readonly ok: false; readonly error: { readonly code: NativeCallErrorCode; readonly message: string } };

const identifier = z.custom<string>(isBoundedIdentifier, { message: "must be a non-empty string of at most 255 code points" });
const argumentsObject = z.custom<JsonObject>(isPlainObject, { message: "must be a JSON object" });

// Provider items carry more fields over time (ids, status, signatures); only these are read.
const openAiFunctionCall = z.looseObject({
  type: z.literal("function_call"),
  call_id: identifier,
  name: identifier,
  arguments: z.string(),
});
const anthropicToolUse = z.looseObject({ type: z.literal("tool_use"), id: identifier, name: identifier, input: argumentsObject });
const geminiFunctionCall = z.looseObject({
  type: z.literal("function_call").optional(),
  id: identifier,
  name: identifier,
  args: argumentsObject,
});

function invalid(code: NativeCallErrorCode, message: string): NativeCallResult {
  return { ok: false, error: { code, message } };
}

function issuesText(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.map(String).join(".") || "item"}: ${issue.message}`).join("; ");
}

/** OpenAI Responses `function_call` item; its `arguments` JSON string is read with the strict reader. */
export function parseOpenAiFunctionCall(item: Json): NativeCallResult {
  const parsed = openAiFunctionCall.safeParse(item);
  if (!parsed.success) return invalid("NATIVE_CALL_INVALID", `not an OpenAI function_call item: ${issuesText(parsed.error)}`);
  const args = readJson(parsed.data.arguments);
  if (!args.ok) return invalid("NATIVE_ARGUMENTS_INVALID", `arguments are not strict JSON: ${args.error.code}: ${args.error.message}`);
  if (!isPlainObject(args.value)) return invalid("NATIVE_ARGUMENTS_INVALID", "arguments must be a JSON object");
  return { ok: true, value: { name: parsed.data.name, arguments: args.value as JsonObject, call_id: parsed.data.call_id } };
}

/** Anthropic Messages `tool_use` content block. */
export function parseAnthropicToolUse(block: Json): NativeCallResult {
  const parsed = anthropicToolUse.safeParse(block);
  if (!parsed.success) return invalid("NATIVE_CALL_INVALID", `not an Anthropic tool_use block: ${issuesText(parsed.error)}`);
  return { ok: true, value: { name: parsed.data.name, arguments: parsed.data.input, call_id: parsed.data.id } };
}

/** Gemini function call (`id`, `name`, `args`). */
export function parseGeminiFunctionCall(part: Json): NativeCallResult {
  const parsed = geminiFunctionCall.safeParse(part);
  if (!parsed.success) return invalid("NATIVE_CALL_INVALID", `not a Gemini function call: ${issuesText(parsed.error)}`);
  return { ok: true, value: { name: parsed.data.name, arguments: parsed.data.args, call_id: parsed.data.id } };
}
