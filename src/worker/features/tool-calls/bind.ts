import { parseProviderItem, type CallEcho } from "../../../core/adapters/native-calls";
import { fromOpenAiStrictArguments } from "../../../core/adapters/openai-strict";
import type { JsonObject } from "../../../core/json";
import { registeredProfilesText } from "../../../core/tool-result/constants";
import type { ToolRegistry } from "../../../core/tool-result/tool-spec";
import type { Principal, ToolCall } from "../../../core/tool-result/types";
import type { ToolCallRequest, ToolCallStatusRequest } from "../../../contracts/tool-call";
import { problem } from "../../http/problem";
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

/** The detail of a refused profile: it names the ones the gate answers, so a developer can pick one. */
export function unregisteredProfile(): string {
  return `The provider profile is not registered; the registered ones are ${registeredProfilesText()}.`;
}

/** A call bound to its host context, with what its answer repeats of the model's own item. */
export interface BoundCall {
  readonly call: ToolCall;
  /** What the answer to a call repeats of the model's own item (an Anthropic toolset name, a Gemini call without id); none for a proposal. */
  readonly echo: CallEcho | undefined;
}

/** Binds the proposal (or the provider's native item) to the host context. */
export function callOf(input: ToolCallInput): Outcome<ToolCall> {
  const bound = bindCall(input);
  return bound.ok ? ok(bound.value.call) : bound;
}

/** {@link callOf} with the item's echo: the provider's item is parsed once for both. */
export function bindCall(input: ToolCallInput): Outcome<BoundCall> {
  const ctx = input.context;
  let name: string;
  let args: JsonObject;
  let callId = ctx.call_id;
  let echo: CallEcho | undefined;
  if (input.provider_item !== undefined) {
    const parsed = parseProviderItem(ctx.provider, ctx.api_family, input.provider_item as JsonObject);
    if (parsed === undefined) return fail(problem("INVALID_HOST_CONTEXT", unregisteredProfile()));
    if (!parsed.ok) return fail(problem("INVALID_PROVIDER_ITEM", parsed.error.message));
    const itemId = parsed.value.call_id;
    if (callId !== undefined && itemId !== null && callId !== itemId) {
      return fail(problem("INVALID_PROVIDER_ITEM", "context.call_id differs from the provider item's call id."));
    }
    if (itemId === null && callId === undefined)
      return fail(problem("INVALID_REQUEST", "$.context.call_id: required when the provider item has no id"));
    name = parsed.value.name;
    args = parsed.value.arguments;
    callId = itemId ?? callId;
    echo = parsed.value.echo;
  } else if (input.proposal !== undefined) {
    name = input.proposal.name;
    args = input.proposal.arguments as JsonObject;
  } else {
    throw new Error("the contract admits exactly one of proposal and provider_item");
  }
  if (callId === undefined) return fail(problem("INVALID_REQUEST", "$.context.call_id: required with a proposal"));
  const call = {
    call_id: callId,
    operation_id: ctx.operation_id,
    name,
    arguments: args,
    idempotency_key: ctx.idempotency_key,
    provider: ctx.provider,
    api_family: ctx.api_family,
    response_id: ctx.response_id,
    adapter_revision: ctx.adapter_revision,
  };
  return ok({ call, echo });
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
