import { parseAnthropicToolUse, parseGeminiFunctionCall, parseOpenAiFunctionCall } from "../../../core/adapters/native-calls";
import { fromOpenAiStrictArguments } from "../../../core/adapters/openai-strict";
import type { JsonObject } from "../../../core/json";
import type { ToolRegistry } from "../../../core/tool-result/tool-spec";
import type { Principal, ToolCall } from "../../../core/tool-result/types";
import type { ToolCallRequest, ToolCallStatusRequest } from "../../../contracts/tool-call";
import { problem } from "../../problem";
import { fail, ok, type Outcome } from "../../result";

/** A tool-call request after the Worker's contract check; the tenant is always the consumer. */
export type ToolCallInput = ToolCallRequest | ToolCallStatusRequest;

/**
 * The principal of a call the gate stored itself after resolving it (an App Facade action):
 * always present there. Never use this for a request: those go through `resolvePrincipal`.
 */
export function storedPrincipal(consumer: string, input: ToolCallInput): Principal {
  if (input.principal === undefined) throw new Error("a stored call without its principal");
  return { tenant_id: consumer, subject_id: input.principal.subject_id, roles: [...input.principal.roles] };
}

const NATIVE_PARSERS = {
  "openai/responses": parseOpenAiFunctionCall,
  "anthropic/messages": parseAnthropicToolUse,
  "google/interactions": parseGeminiFunctionCall,
} as const;

/** Binds the proposal (or the provider's native item) to the host context. */
export function callOf(input: ToolCallInput): Outcome<ToolCall> {
  const ctx = input.context;
  let name: string;
  let args: JsonObject;
  let callId = ctx.call_id;
  if (input.provider_item !== undefined) {
    const parse = (NATIVE_PARSERS as Record<string, (typeof NATIVE_PARSERS)[keyof typeof NATIVE_PARSERS] | undefined>)[`${ctx.provider}/${ctx.api_family}`];
    if (parse === undefined) return fail(problem("INVALID_HOST_CONTEXT", "The provider profile is not registered."));
    const parsed = parse(input.provider_item as JsonObject);
    if (!parsed.ok) return fail(problem("INVALID_PROVIDER_ITEM", parsed.error.message));
    if (callId !== undefined && callId !== parsed.value.call_id) {
      return fail(problem("INVALID_PROVIDER_ITEM", "context.call_id differs from the provider item's call id."));
    }
    name = parsed.value.name;
    args = parsed.value.arguments;
    callId = parsed.value.call_id;
  } else if (input.proposal !== undefined) {
    name = input.proposal.name;
    args = input.proposal.arguments as JsonObject;
  } else {
    throw new Error("the contract admits exactly one of proposal and provider_item");
  }
  if (callId === undefined) return fail(problem("INVALID_REQUEST", "$.context.call_id: required with a proposal"));
  return ok({
    call_id: callId,
    operation_id: ctx.operation_id,
    name,
    arguments: args,
    idempotency_key: ctx.idempotency_key,
    provider: ctx.provider,
    api_family: ctx.api_family,
    response_id: ctx.response_id,
    adapter_revision: ctx.adapter_revision,
  });
}

/**
 * A call to a tool with its own input schema, proposed by an OpenAI model: its strict-mode
 * declaration (`GET …/tools?format=openai`) makes every property required and the optional
 * ones nullable, so the model sends `null` for an optional argument it leaves out. Those
 * `null`s are dropped (where the tool's own schema refuses them) before the call is bound, so
 * the arguments validated, digested and executed are the tool's own form.
 */
export function withToolForm(call: ToolCall, registry: ToolRegistry): ToolCall {
  const schema = registry.get(call.name)?.inputSchema;
  if (call.provider !== "openai" || schema === undefined) return call;
  return { ...call, arguments: fromOpenAiStrictArguments(schema.document, call.arguments) };
}
