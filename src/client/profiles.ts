/**
 * A tool call typed by its provider profile: the answer's `provider_output` is the one shape
 * of the call's `provider`/`api_family`, and `provider_item` takes the model's own item as the
 * vendor's SDK returns it. These are structural types (no vendor package is imported): each
 * lists the fields the gate reads, readonly, so an SDK object with more fields fits as it is.
 * @module
 */
import type * as z from "../core/zod";
import type {
  AnthropicToolResult,
  GeminiFunctionResponsePart,
  GeminiInteractionsContinuation,
  McpCallToolResult,
  OpenAiChatToolMessage,
  OpenAiFunctionCallOutput,
} from "../contracts/provider-output";
import type { ToolCallRequest, ToolCallResponse } from "../contracts/tool-call";

/**
 * Each provider profile's adapter revision as the gate registers it first (its default):
 * `google/interactions` also answers `gemini-interactions-v2` when the context names it.
 */
export const ADAPTER_REVISIONS = {
  openai: { responses: "openai-responses-v1", chat_completions: "openai-chat-completions-v1" },
  anthropic: { messages: "anthropic-messages-v1" },
  google: { interactions: "gemini-interactions-v1", generate_content: "gemini-generate-content-v1" },
  mcp: { tools: "mcp-tools-v1" },
} as const;

/** A provider the gate answers. */
export type Provider = keyof typeof ADAPTER_REVISIONS;

/** An API family of `P`. */
export type ApiFamily<P extends Provider> = keyof (typeof ADAPTER_REVISIONS)[P] & string;

/** OpenAI Responses `function_call` output item (`ResponseFunctionToolCall`). */
export interface OpenAiFunctionCallItem {
  readonly type: "function_call";
  readonly call_id: string;
  readonly name: string;
  /** The arguments as JSON text, as the model wrote them. */
  readonly arguments: string;
  readonly namespace?: string | null;
  /** Fields the SDK's item also has (not read by the gate). */
  readonly id?: string;
  readonly status?: string;
  readonly caller?: unknown;
}

/** OpenAI Chat Completions: one `tool_calls[]` entry (`ChatCompletionMessageFunctionToolCall`). */
export interface OpenAiChatToolCallItem {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string; readonly arguments: string };
}

/** Anthropic Messages `tool_use` block (`ToolUseBlock`); `input` is checked by the gate. */
export interface AnthropicToolUseItem {
  readonly type: "tool_use";
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  readonly toolset_name?: string | null;
  /** Not read by the gate. */
  readonly caller?: unknown;
}

/** Gemini Interactions `function_call` step (`Interactions.FunctionCallStep`). */
export interface GeminiFunctionCallStepItem {
  readonly type?: "function_call";
  readonly id: string;
  readonly name: string;
  readonly arguments?: Readonly<Record<string, unknown>>;
  readonly args?: Readonly<Record<string, unknown>>;
}

/** Gemini generateContent `FunctionCall` (the gate refuses one without `name`). */
export interface GeminiFunctionCallItem {
  readonly id?: string | null;
  readonly name?: string;
  readonly args?: Readonly<Record<string, unknown>>;
  /** Streaming fields of the SDK's `FunctionCall` (a partial call is refused). */
  readonly partialArgs?: unknown;
  readonly willContinue?: boolean;
}

/** Each profile's native tool-call item (MCP calls arrive over MCP: they have none here). */
export interface ProviderItems {
  openai: { responses: OpenAiFunctionCallItem; chat_completions: OpenAiChatToolCallItem };
  anthropic: { messages: AnthropicToolUseItem };
  google: {
    interactions: GeminiFunctionCallStepItem;
    generate_content: GeminiFunctionCallItem | { readonly functionCall: GeminiFunctionCallItem };
  };
  mcp: { tools: never };
}

/** Each profile's provider-native result item (`ProviderOutput`, one member per profile). */
export interface ProviderOutputs {
  openai: {
    responses: z.output<typeof OpenAiFunctionCallOutput>;
    chat_completions: z.output<typeof OpenAiChatToolMessage>;
  };
  anthropic: { messages: z.output<typeof AnthropicToolResult> };
  google: {
    interactions: z.output<typeof GeminiInteractionsContinuation>;
    generate_content: z.output<typeof GeminiFunctionResponsePart>;
  };
  mcp: { tools: z.output<typeof McpCallToolResult> };
}

/** The native item of profile `P`/`F`. */
export type ProviderItem<P extends Provider, F extends ApiFamily<P>> = F extends keyof ProviderItems[P]
  ? ProviderItems[P][F]
  : never;

/** The result item of profile `P`/`F`. */
export type ProviderOutputOf<P extends Provider, F extends ApiFamily<P>> = F extends keyof ProviderOutputs[P]
  ? ProviderOutputs[P][F]
  : never;

type WireCall = z.input<typeof ToolCallRequest>;

/**
 * The host context the gate cannot derive: `adapter_revision` defaults to the profile's
 * ({@link ADAPTER_REVISIONS}), `idempotency_key` to none, `call_id` to the item's.
 */
export interface CallContext {
  readonly operation_id: string;
  readonly response_id: string;
  readonly call_id?: string;
  readonly idempotency_key?: string | null;
  readonly adapter_revision?: string;
}

/** What the model proposed, when the host has no native item to pass. */
export interface CallProposal {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** A tool call of profile `P`/`F`: the model's native item (`provider_item`) or a `proposal`. */
export type ProfileCall<P extends Provider, F extends ApiFamily<P>> = {
  readonly provider: P;
  readonly api_family: F;
  readonly context: CallContext;
  readonly principal?: { readonly subject_id: string; readonly roles: readonly string[] };
  readonly principal_token?: string;
  readonly rationale?: string;
} & (
  | { readonly provider_item: ProviderItem<P, F>; readonly proposal?: undefined }
  | { readonly proposal: CallProposal; readonly provider_item?: undefined }
);

/** The answer to a call of profile `P`/`F`: `provider_output` in that profile's one shape. */
export type ProfileAnswer<P extends Provider, F extends ApiFamily<P>> = Omit<
  z.output<typeof ToolCallResponse>,
  "provider_output"
> & { provider_output: ProviderOutputOf<P, F> };

/** The profile's adapter revision (the context's, when it names one). */
export function adapterRevisionOf<P extends Provider>(provider: P, apiFamily: ApiFamily<P>): string {
  const families: Readonly<Record<string, string>> = ADAPTER_REVISIONS[provider];
  const revision = families[apiFamily];
  if (revision === undefined) throw new Error(`no adapter revision for ${provider}/${apiFamily}`);
  return revision;
}

/** The wire body (`ToolCallRequest`) of a profile call: the context completed with what the client derives. */
export function toolCallBody<P extends Provider, F extends ApiFamily<P>>(call: ProfileCall<P, F>): WireCall {
  const { provider, api_family, context, provider_item, proposal, ...rest } = call;
  const wireContext: WireCall["context"] = {
    ...context,
    provider,
    api_family,
    adapter_revision: context.adapter_revision ?? adapterRevisionOf(provider, api_family),
  };
  const body: WireCall = { context: wireContext };
  // The item travels as the model wrote it: the gate reads it strictly (its type here is only structural).
  if (provider_item !== undefined) body.provider_item = provider_item as WireCall["provider_item"];
  if (proposal !== undefined) body.proposal = { name: proposal.name, arguments: proposal.arguments };
  if (rest.principal !== undefined)
    body.principal = { subject_id: rest.principal.subject_id, roles: [...rest.principal.roles] };
  if (rest.principal_token !== undefined) body.principal_token = rest.principal_token;
  if (rest.rationale !== undefined) body.rationale = rest.rationale;
  return body;
}
