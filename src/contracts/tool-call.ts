import * as z from "zod";
import { AuditReference } from "./audit";
import { ModelResult, ProviderOutput } from "./provider-output";
import { httpSchemas, Identifier, JsonObjectValue } from "./registry";

/** The subject the agent host acts for; the tenant is always the consumer. */
export const PrincipalInput = z
  .strictObject({ subject_id: Identifier, roles: z.array(Identifier).max(32) })
  .register(httpSchemas, { id: "Principal" });

/** What the model proposed. */
export const ProposalInput = z
  .strictObject({ name: Identifier, arguments: JsonObjectValue })
  .register(httpSchemas, { id: "Proposal" });

/** Correlation fields set by the trusted host (`call_id` may come from `provider_item`). */
export const HostContextInput = z
  .strictObject({
    call_id: Identifier.optional(),
    operation_id: Identifier,
    idempotency_key: Identifier.nullable().default(null),
    provider: Identifier,
    api_family: Identifier,
    response_id: Identifier,
    adapter_revision: Identifier,
  })
  .register(httpSchemas, { id: "HostContext" });

const toolCallShape = {
  principal: PrincipalInput.optional().meta({
    description: "Whom the call acts for. Required with a host credential; optional with a subject-bound one (it must name that subject); with a token-verified one it may only narrow the token's roles.",
  }),
  principal_token: z.string().min(1).max(8192).optional().meta({
    description: "The end user's JWT, required with a token-verified credential: the gate verifies it and acts as its subject.",
  }),
  proposal: ProposalInput.optional(),
  provider_item: JsonObjectValue.optional().meta({
    description: "The model's native tool-call item (OpenAI function_call, Anthropic tool_use, Gemini function_call) instead of `proposal`.",
  }),
  context: HostContextInput,
};

function oneIntent(v: { proposal?: unknown; provider_item?: unknown }): boolean {
  return (v.proposal === undefined) !== (v.provider_item === undefined);
}

const intentRule = { message: "send exactly one of proposal and provider_item", path: ["proposal"] };

/** `POST …/tool-calls`. */
export const ToolCallRequest = z
  .strictObject(toolCallShape)
  .refine(oneIntent, intentRule)
  .register(httpSchemas, { id: "ToolCallRequest" });

/** `POST …/tool-calls/status`: the same call plus the `status_ref` of its unknown outcome. */
export const ToolCallStatusRequest = z
  .strictObject({ ...toolCallShape, status_ref: z.string().regex(/^status_[0-9a-f]{32}$/) })
  .refine(oneIntent, intentRule)
  .register(httpSchemas, { id: "ToolCallStatusRequest" });

/** The answer to a tool call: what the model may see, as a Tool Result v2 model result and as the provider's native item. */
export const ToolCallResponse = z
  .strictObject({
    model_result: ModelResult,
    provider_output: ProviderOutput,
    approval_id: z.string().optional().meta({ description: "Set with APPROVAL_REQUIRED: the pending approval to wait for." }),
    status_ref: z.string().optional().meta({ description: "Set with an unknown outcome: pass it to tool-calls/status." }),
    audit: AuditReference.meta({ description: "The audit entry that recorded this call: its seq and Merkle leaf hash (hex), for an inclusion proof later." }),
  })
  .register(httpSchemas, { id: "ToolCallResponse" });

/** Parsed tool-call request. */
export type ToolCallRequest = z.infer<typeof ToolCallRequest>;
/** Parsed status request. */
export type ToolCallStatusRequest = z.infer<typeof ToolCallStatusRequest>;
