import * as z from "../core/zod";
import { ApprovalWords } from "./approval";
import { AuditReference } from "./audit";
import { ModelResult, ProviderOutput } from "./provider-output";
import { httpSchemas, Identifier, JsonObjectValue } from "./registry";
import { DOCS } from "./docs";

/** The subject the agent host acts for; the tenant is always the consumer. */
export const PrincipalInput = z.deferred(() =>
  z
    .strictObject({ subject_id: Identifier, roles: z.array(Identifier).check(z.maxLength(32)) })
    .register(httpSchemas, { id: "Principal" }),
);

/** What the model proposed. */
export const ProposalInput = z.deferred(() =>
  z.strictObject({ name: Identifier, arguments: JsonObjectValue }).register(httpSchemas, { id: "Proposal" }),
);

/** Correlation fields set by the trusted host (`call_id` may come from `provider_item`). */
export const HostContextInput = z.deferred(() =>
  z
    .strictObject({
      call_id: z.optional(Identifier),
      operation_id: Identifier,
      idempotency_key: z._default(z.nullable(Identifier), null),
      provider: Identifier,
      api_family: Identifier,
      response_id: Identifier,
      adapter_revision: Identifier,
    })
    .register(httpSchemas, { id: "HostContext" }),
);

/** The members both requests share (built on first use, as the schemas are). */
const toolCallShape = z.deferredShape(() => ({
  principal: z.optional(PrincipalInput).check(
    z.meta({
      description: DOCS
        ? "Whom the call acts for. Required with a host credential; optional with a subject-bound one (it must name that subject); with a token-verified one it may only narrow the token's roles."
        : "",
    }),
  ),
  principal_token: z.optional(z.string().check(z.minLength(1), z.maxLength(8192))).check(
    z.meta({
      description: DOCS
        ? "The end user's JWT, required with a token-verified credential: the gate verifies it and acts as its subject."
        : "",
    }),
  ),
  proposal: z.optional(ProposalInput),
  provider_item: z.optional(JsonObjectValue).check(
    z.meta({
      description: DOCS
        ? "The model's native tool-call item (OpenAI function_call, Anthropic tool_use, Gemini function_call) instead of `proposal`."
        : "",
    }),
  ),
  context: HostContextInput,
  rationale: z.optional(ApprovalWords).check(
    z.meta({
      description: DOCS
        ? "The agent's words on why it makes this call (1..500 characters, no control characters): shown to approvers beside the arguments as the agent's, never hashed into a digest."
        : "",
    }),
  ),
}));

function oneIntent(v: { proposal?: unknown; provider_item?: unknown }): boolean {
  return (v.proposal === undefined) !== (v.provider_item === undefined);
}

const intentRule = { message: "send exactly one of proposal and provider_item", path: ["proposal"] };

/** `POST …/tool-calls`. */
export const ToolCallRequest = z.deferred(() =>
  z
    .strictObject(toolCallShape())
    .check(z.refine(oneIntent, intentRule))
    .register(httpSchemas, { id: "ToolCallRequest" }),
);

/** `POST …/tool-calls/status`: the same call plus the `status_ref` of its unknown outcome. */
export const ToolCallStatusRequest = z.deferred(() =>
  z
    .strictObject({ ...toolCallShape(), status_ref: z.string().check(z.regex(/^status_[0-9a-f]{32}$/)) })
    .check(z.refine(oneIntent, intentRule))
    .register(httpSchemas, { id: "ToolCallStatusRequest" }),
);

/** The answer to a tool call: what the model may see, as a Tool Result v2 model result and as the provider's native item. */
export const ToolCallResponse = z.deferred(() =>
  z
    .strictObject({
      model_result: ModelResult,
      provider_output: ProviderOutput,
      approval_id: z
        .optional(z.string())
        .check(z.meta({ description: DOCS ? "Set with APPROVAL_REQUIRED: the pending approval to wait for." : "" })),
      status_ref: z
        .optional(z.string())
        .check(z.meta({ description: DOCS ? "Set with an unknown outcome: pass it to tool-calls/status." : "" })),
      audit: AuditReference.check(
        z.meta({
          description: DOCS
            ? "The audit entry that recorded this call: its seq and Merkle leaf hash (hex), for an inclusion proof later."
            : "",
        }),
      ),
      guidance: z.optional(z.string()).check(
        z.meta({
          description: DOCS
            ? "Set when a capability tool's call did not succeed: what happened, in words the model can act on (MCP sends it as the first text block)."
            : "",
        }),
      ),
    })
    .register(httpSchemas, { id: "ToolCallResponse" }),
);

/** Parsed tool-call request. */
export type ToolCallRequest = z.infer<typeof ToolCallRequest>;
/** Parsed status request. */
export type ToolCallStatusRequest = z.infer<typeof ToolCallStatusRequest>;
