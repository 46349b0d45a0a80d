/**
 * Outbound adapters: the model projection of a validated package, in each provider's native
 * tool-result shape. The protected audit never leaves the host; an invalid package never
 * reaches a provider.
 * @module
 */
import { canonicalJson, sha256Hex, type JsonObject } from "../json";
import type { HashFn, Principal, ResultPackage, ToolCall } from "../tool-result/types";
import type { ToolSpec } from "../tool-result/tool-spec";
import { validateResult } from "../tool-result/validate-result";
import { toMcpToolResult } from "./mcp";

/** An adapter's answer: the provider payload, or why the package may not be sent. */
export type ProjectionResult =
  | { readonly ok: true; readonly value: JsonObject }
  | { readonly ok: false; readonly error: { readonly code: "RESULT_CONTRACT_VIOLATION"; readonly message: string } };

/** Signature shared by the three adapters. */
export type ProviderAdapter = (
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  pkg: ResultPackage,
  hash?: HashFn,
) => ProjectionResult;

const refuse = (message: string): ProjectionResult => ({ ok: false, error: { code: "RESULT_CONTRACT_VIOLATION", message } });

function invalidPackage(principal: Principal, call: ToolCall, spec: ToolSpec | undefined, pkg: ResultPackage, hash: HashFn): ProjectionResult | null {
  const errors = validateResult(principal, call, spec, pkg, hash);
  return errors.length === 0 ? null : refuse("result-contract validation failed:\n- " + errors.join("\n- "));
}

/** OpenAI Responses: a `function_call_output` item carrying the canonical model result. */
export const toOpenAiResponses: ProviderAdapter = (principal, call, spec, pkg, hash = sha256Hex) => {
  if (call.provider !== "openai" || call.api_family !== "responses") return refuse("call is not an OpenAI Responses context");
  const invalid = invalidPackage(principal, call, spec, pkg, hash);
  if (invalid !== null) return invalid;
  return { ok: true, value: { type: "function_call_output", call_id: call.call_id, output: canonicalJson(pkg.model_result) } };
};

/** Anthropic Messages: one `tool_result` block; the caller keeps tool_result blocks first in the turn. */
export const toAnthropicMessages: ProviderAdapter = (principal, call, spec, pkg, hash = sha256Hex) => {
  if (call.provider !== "anthropic" || call.api_family !== "messages") return refuse("call is not an Anthropic Messages context");
  const invalid = invalidPackage(principal, call, spec, pkg, hash);
  if (invalid !== null) return invalid;
  const model = pkg.model_result;
  return {
    ok: true,
    value: {
      type: "tool_result",
      tool_use_id: call.call_id,
      content: [{ type: "text", text: canonicalJson(model) }],
      is_error: model["status"] !== "succeeded",
    },
  };
};

/** Gemini Interactions: a continuation with one `function_result` input. */
export const toGeminiInteractions: ProviderAdapter = (principal, call, spec, pkg, hash = sha256Hex) => {
  if (call.provider !== "google" || call.api_family !== "interactions") return refuse("call is not a Gemini Interactions context");
  const invalid = invalidPackage(principal, call, spec, pkg, hash);
  if (invalid !== null) return invalid;
  return {
    ok: true,
    value: {
      previous_interaction_id: call.response_id,
      input: [
        {
          type: "function_result",
          name: call.name,
          call_id: call.call_id,
          result: [{ type: "text", text: canonicalJson(pkg.model_result) }],
        },
      ],
    },
  };
};

/** The adapter registered for a provider profile, with the reference's function name. */
export function adapterFor(provider: string, apiFamily: string): { readonly name: string; readonly adapter: ProviderAdapter } | undefined {
  if (provider === "openai" && apiFamily === "responses") return { name: "to_openai_responses", adapter: toOpenAiResponses };
  if (provider === "anthropic" && apiFamily === "messages") return { name: "to_anthropic_messages", adapter: toAnthropicMessages };
  if (provider === "google" && apiFamily === "interactions") return { name: "to_gemini_interactions", adapter: toGeminiInteractions };
  if (provider === "mcp" && apiFamily === "tools") return { name: "to_mcp_tool_result", adapter: toMcpToolResult };
  return undefined;
}
