/**
 * Outbound adapters: the model projection of a validated package, in each provider's native
 * tool-result shape (./provider-shapes.ts). The protected audit never leaves the host; an
 * invalid package never reaches a provider. The reference's three adapters keep the
 * reference's bytes; the gate's own profiles (constants.ts) add theirs.
 * @module
 */
import { sha256Hex, type JsonObject } from "../json";
import { canonicalOfResult } from "../tool-result/packages";
import { GATE_PROFILES, type ProviderProfile } from "../tool-result/constants";
import type { HashFn, Principal, ResultPackage, ToolCall } from "../tool-result/types";
import type { ToolSpec } from "../tool-result/tool-spec";
import { validateResult } from "../tool-result/validate-result";
import { toMcpToolResult } from "./mcp";
import type { CallEcho } from "./native-calls";
import type {
  AnthropicToolResult,
  GeminiFunctionResponsePart,
  GeminiFunctionResultStep,
  GeminiInteractionsContinuation,
  OpenAiChatToolMessage,
  OpenAiFunctionCallOutput,
} from "./provider-shapes";

/** An adapter's answer: the provider payload, or why the package may not be sent. */
export type ProjectionResult =
  | { readonly ok: true; readonly value: JsonObject }
  | { readonly ok: false; readonly error: { readonly code: "RESULT_CONTRACT_VIOLATION"; readonly message: string } };

/**
 * Signature shared by the adapters. `echo` carries what the model's own item asks its answer to
 * repeat (an Anthropic toolset name, a Gemini call without id); the reference's runs pass none.
 */
export type ProviderAdapter = (
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  pkg: ResultPackage,
  hash?: HashFn,
  echo?: CallEcho,
) => ProjectionResult;

const refuse = (message: string): ProjectionResult => ({
  ok: false,
  error: { code: "RESULT_CONTRACT_VIOLATION", message },
});

function invalidPackage(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  pkg: ResultPackage,
  hash: HashFn,
): ProjectionResult | null {
  const errors = validateResult(principal, call, spec, pkg, hash);
  return errors.length === 0 ? null : refuse("result-contract validation failed:\n- " + errors.join("\n- "));
}

/** OpenAI Responses: a `function_call_output` item carrying the canonical model result. */
export const toOpenAiResponses: ProviderAdapter = (principal, call, spec, pkg, hash = sha256Hex) => {
  if (call.provider !== "openai" || call.api_family !== "responses")
    return refuse("call is not an OpenAI Responses context");
  const invalid = invalidPackage(principal, call, spec, pkg, hash);
  if (invalid !== null) return invalid;
  const value: OpenAiFunctionCallOutput = {
    type: "function_call_output",
    call_id: call.call_id,
    output: canonicalOfResult(pkg.model_result),
  };
  return { ok: true, value };
};

/** OpenAI Chat Completions: a `tool` message answering the `tool_calls[]` entry. */
export const toOpenAiChatCompletions: ProviderAdapter = (principal, call, spec, pkg, hash = sha256Hex) => {
  if (call.provider !== "openai" || call.api_family !== "chat_completions")
    return refuse("call is not an OpenAI Chat Completions context");
  const invalid = invalidPackage(principal, call, spec, pkg, hash);
  if (invalid !== null) return invalid;
  const value: OpenAiChatToolMessage = {
    role: "tool",
    tool_call_id: call.call_id,
    content: canonicalOfResult(pkg.model_result),
  };
  return { ok: true, value };
};

/**
 * Anthropic Messages: one `tool_result` block; the caller keeps tool_result blocks first in the
 * turn. A toolset member's answer repeats its `toolset_name`.
 */
export const toAnthropicMessages: ProviderAdapter = (principal, call, spec, pkg, hash = sha256Hex, echo) => {
  if (call.provider !== "anthropic" || call.api_family !== "messages")
    return refuse("call is not an Anthropic Messages context");
  const invalid = invalidPackage(principal, call, spec, pkg, hash);
  if (invalid !== null) return invalid;
  const model = pkg.model_result;
  const value: AnthropicToolResult = {
    type: "tool_result",
    tool_use_id: call.call_id,
    content: [{ type: "text", text: canonicalOfResult(model) }],
    is_error: model["status"] !== "succeeded",
  };
  if (echo?.toolset_name !== undefined) value.toolset_name = echo.toolset_name;
  return { ok: true, value };
};

function geminiInteractions(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  pkg: ResultPackage,
  hash: HashFn,
  isError: boolean,
): ProjectionResult {
  if (call.provider !== "google" || call.api_family !== "interactions")
    return refuse("call is not a Gemini Interactions context");
  const invalid = invalidPackage(principal, call, spec, pkg, hash);
  if (invalid !== null) return invalid;
  const model = pkg.model_result;
  const step: GeminiFunctionResultStep = {
    type: "function_result",
    name: call.name,
    call_id: call.call_id,
    result: [{ type: "text", text: canonicalOfResult(model) }],
  };
  if (isError) step.is_error = model["status"] !== "succeeded";
  const value: GeminiInteractionsContinuation = { previous_interaction_id: call.response_id, input: [step] };
  return { ok: true, value };
}

/** Gemini Interactions (the reference's `gemini-interactions-v1`): a continuation with one `function_result` input. */
export const toGeminiInteractions: ProviderAdapter = (principal, call, spec, pkg, hash = sha256Hex) =>
  geminiInteractions(principal, call, spec, pkg, hash, false);

/** Gemini Interactions, `gemini-interactions-v2`: the same continuation, its `function_result` carrying `is_error`. */
export const toGeminiInteractionsV2: ProviderAdapter = (principal, call, spec, pkg, hash = sha256Hex) =>
  geminiInteractions(principal, call, spec, pkg, hash, true);

/**
 * Gemini generateContent: a `functionResponse` part, the model result under `output` (succeeded)
 * or `error`; its `id` is the call's, left out when the model's `FunctionCall` had none.
 */
export const toGeminiGenerateContent: ProviderAdapter = (principal, call, spec, pkg, hash = sha256Hex, echo) => {
  if (call.provider !== "google" || call.api_family !== "generate_content")
    return refuse("call is not a Gemini generateContent context");
  const invalid = invalidPackage(principal, call, spec, pkg, hash);
  if (invalid !== null) return invalid;
  const model = pkg.model_result;
  const response = model["status"] === "succeeded" ? { output: model } : { error: model };
  const value: GeminiFunctionResponsePart = {
    functionResponse:
      echo?.id_absent === true ? { name: call.name, response } : { id: call.call_id, name: call.name, response },
  };
  return { ok: true, value };
};

/** Each registered revision's adapter, with the reference's function name where it has one. */
const ADAPTERS: ReadonlyMap<string, { readonly name: string; readonly adapter: ProviderAdapter }> = new Map([
  ["openai-responses-v1", { name: "to_openai_responses", adapter: toOpenAiResponses }],
  ["anthropic-messages-v1", { name: "to_anthropic_messages", adapter: toAnthropicMessages }],
  ["gemini-interactions-v1", { name: "to_gemini_interactions", adapter: toGeminiInteractions }],
  ["mcp-tools-v1", { name: "to_mcp_tool_result", adapter: toMcpToolResult }],
  ["openai-chat-completions-v1", { name: "to_openai_chat_completions", adapter: toOpenAiChatCompletions }],
  ["gemini-generate-content-v1", { name: "to_gemini_generate_content", adapter: toGeminiGenerateContent }],
  ["gemini-interactions-v2", { name: "to_gemini_interactions_v2", adapter: toGeminiInteractionsV2 }],
]);

/**
 * The adapter registered for a provider profile, with the reference's function name. Without
 * `adapterRevision`, the profile's first revision (the reference's, where it has one).
 */
export function adapterFor(
  provider: string,
  apiFamily: string,
  adapterRevision?: string,
): { readonly name: string; readonly adapter: ProviderAdapter } | undefined {
  const profile: ProviderProfile | undefined = GATE_PROFILES.find(
    (p) =>
      p.provider === provider &&
      p.api_family === apiFamily &&
      (adapterRevision === undefined || p.adapter_revision === adapterRevision),
  );
  return profile === undefined ? undefined : ADAPTERS.get(profile.adapter_revision);
}
