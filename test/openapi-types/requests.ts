/**
 * Requests of the docs and the tests, checked against the generated types: each must compile
 * as it is, and each `@ts-expect-error` must be refused (a request the gate refuses too).
 */
import type { Body } from "./helpers";

type ToolCall = Body<"/v1/consumers/{consumer}/tool-calls", "post">;
const context = {
  call_id: "call-1",
  operation_id: "op-1",
  provider: "openai",
  api_family: "responses",
  response_id: "resp-1",
  adapter_revision: "openai-responses-v1",
};

// A proposal, with and without the idempotency key the server defaults to null.
export const proposal = {
  principal: { subject_id: "user-1", roles: ["support"] },
  proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
  context,
} satisfies ToolCall;
export const keyed = {
  proposal: { name: "create_refund_draft", arguments: { order_ref: "ORDER-7", reason: "duplicate" } },
  context: { ...context, idempotency_key: "refund-1" },
} satisfies ToolCall;
// Each provider's native item instead of a proposal.
export const responsesItem = {
  provider_item: { type: "function_call", call_id: "call-1", name: "get_order", arguments: '{"order_ref":"ORDER-7"}' },
  context,
} satisfies ToolCall;
export const chatItem = {
  provider_item: {
    id: "call-1",
    type: "function",
    function: { name: "get_order", arguments: '{"order_ref":"ORDER-7"}' },
  },
  context: { ...context, api_family: "chat_completions", adapter_revision: "openai-chat-completions-v1" },
} satisfies ToolCall;
export const anthropicItem = {
  provider_item: { type: "tool_use", id: "toolu_1", name: "get_order", input: { order_ref: "ORDER-7" } },
  context: {
    ...context,
    call_id: undefined,
    provider: "anthropic",
    api_family: "messages",
    adapter_revision: "anthropic-messages-v1",
  },
} satisfies ToolCall;
export const interactionsItem = {
  provider_item: { type: "function_call", id: "fc_1", name: "get_order", arguments: { order_ref: "ORDER-7" } },
  context: { ...context, provider: "google", api_family: "interactions", adapter_revision: "gemini-interactions-v2" },
} satisfies ToolCall;
export const generateContentItem = {
  provider_item: { functionCall: { name: "get_order", args: { order_ref: "ORDER-7" } } },
  context: {
    ...context,
    provider: "google",
    api_family: "generate_content",
    adapter_revision: "gemini-generate-content-v1",
  },
} satisfies ToolCall;
export const status = {
  proposal: keyed.proposal,
  context: keyed.context,
  status_ref: "status_0123456789abcdef0123456789abcdef",
} satisfies Body<"/v1/consumers/{consumer}/tool-calls/status", "post">;
export const batch = {
  principal: { subject_id: "user-1", roles: [] },
  context: {
    provider: "anthropic",
    api_family: "messages",
    response_id: "msg_1",
    adapter_revision: "anthropic-messages-v1",
  },
  calls: [
    {
      provider_item: { type: "tool_use", id: "toolu_1", name: "get_order", input: { order_ref: "ORDER-7" } },
      operation_id: "op-1",
    },
    {
      provider_item: {
        type: "tool_use",
        id: "toolu_2",
        name: "create_refund_draft",
        input: { order_ref: "ORDER-7", reason: "duplicate" },
      },
      operation_id: "op-2",
      idempotency_key: "refund-2",
    },
  ],
} satisfies Body<"/v1/consumers/{consumer}/tool-calls/batch", "post">;

export const decision = { decision: "approve", approval_digest: "850b3c".padEnd(64, "0") } satisfies Body<
  "/v1/consumers/{consumer}/approvals/{approval_id}",
  "post"
>;
export const endpoint = {
  url: "https://hooks.example/toolgate",
  events: ["approval.requested", "call.outcome_unknown"],
} satisfies Body<"/v1/consumers/{consumer}/webhooks", "post">;
export const mcpServer = { name: "everything", url: "https://mcp.example/mcp" } satisfies Body<
  "/v1/consumers/{consumer}/mcp-servers",
  "post"
>;
export const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
} satisfies Body<"/v1/consumers/{consumer}/mcp", "post">;

// Refused: no context; arguments that are not an object; a member the contract does not have.
// @ts-expect-error context is required
export const noContext = { proposal: { name: "get_order", arguments: {} } } satisfies ToolCall;
// @ts-expect-error arguments is a JSON object
export const textArguments = { proposal: { name: "get_order", arguments: "ORDER-7" }, context } satisfies ToolCall;
export const tenant = {
  proposal: { name: "get_order", arguments: {} },
  // @ts-expect-error the context has no member `tenant_id` (the tenant is always the consumer)
  context: { ...context, tenant_id: "t" },
} satisfies ToolCall;
// @ts-expect-error a decision is approve or deny
export const maybe = { decision: "maybe", approval_digest: "0".repeat(64) } satisfies Body<
  "/v1/consumers/{consumer}/approvals/{approval_id}",
  "post"
>;
