import * as z from "../core/zod";
import { ApprovalWords } from "./approval";
import { AuditReference } from "./audit";
import { ProblemDetails } from "./problem";
import { ModelResult, ProviderMessage, ProviderOutput } from "./provider-output";
import { httpSchemas, Identifier, JsonObjectValue } from "./registry";
import { PrincipalInput, ProposalInput } from "./tool-call";
import { DOCS } from "./docs";

/** At most this many calls in one batch: the tool calls of one model turn. */
export const MAX_BATCH_CALLS = 32;

/** Cap on a batch body, in bytes (a single call's is 64 KiB). */
export const MAX_BATCH_BODY_BYTES = 262_144;

/** One call of the turn: the model's item (or a proposal) and the host's own ids for it. */
export const BatchCallInput = z.deferred(() =>
  z
    .strictObject({
      provider_item: z.optional(JsonObjectValue).check(
        z.meta({
          description: DOCS
            ? "The model's native tool-call item, in the shape of `context.provider`/`api_family` (docs/providers.md)."
            : "",
        }),
      ),
      proposal: z.optional(ProposalInput),
      call_id: z.optional(Identifier).check(
        z.meta({
          description: DOCS
            ? "Required with a proposal, and with an item that has no id (a Gemini FunctionCall without `id`); with an item that has one it may be left out, or must equal it."
            : "",
        }),
      ),
      operation_id: Identifier,
      rationale: z.optional(ApprovalWords).check(
        z.meta({
          description: DOCS
            ? "The agent's words on why it makes this call (1..500 characters, no control characters): shown to approvers beside its arguments as the agent's, never hashed."
            : "",
        }),
      ),
      idempotency_key: z.optional(z.nullable(Identifier)).check(
        z.meta({
          description: DOCS ? "The call's idempotency key; left out, null (a write then fails as it would alone)." : "",
        }),
      ),
    })
    .check(
      z.refine((v) => (v.proposal === undefined) !== (v.provider_item === undefined), {
        error: "send exactly one of proposal and provider_item",
        path: ["proposal"],
      }),
    )
    .register(httpSchemas, { id: "BatchCall" }),
);

/** What the calls of one turn share: the provider profile and the model response that proposed them. */
export const BatchContextInput = z.deferred(() =>
  z
    .strictObject({
      provider: Identifier,
      api_family: Identifier,
      response_id: Identifier,
      adapter_revision: Identifier,
    })
    .register(httpSchemas, { id: "BatchContext" }),
);

/** `POST …/tool-calls/batch`: all the tool calls of one model turn. */
export const ToolCallBatchRequest = z.deferred(() =>
  z
    .strictObject({
      principal: z
        .optional(PrincipalInput)
        .check(z.meta({ description: DOCS ? "Whom every call acts for, as in a single tool call." : "" })),
      principal_token: z
        .optional(z.string().check(z.minLength(1), z.maxLength(8192)))
        .check(z.meta({ description: DOCS ? "The end user's JWT, as in a single tool call." : "" })),
      context: BatchContextInput,
      calls: z.array(BatchCallInput).check(
        z.minLength(1),
        z.maxLength(MAX_BATCH_CALLS),
        z.meta({
          description: DOCS ? `The turn's calls in the model's order, 1 to ${MAX_BATCH_CALLS}; call ids distinct.` : "",
        }),
      ),
    })
    .register(httpSchemas, { id: "ToolCallBatchRequest" }),
);

/** One call's answer inside a batch: the single route's answer, or the problem it would have answered. */
export const BatchCallAnswer = z.deferred(() =>
  z
    .strictObject({
      call_id: z.string(),
      model_result: z.optional(ModelResult),
      provider_output: z.optional(ProviderOutput),
      approval_id: z
        .optional(z.string())
        .check(z.meta({ description: DOCS ? "Set with APPROVAL_REQUIRED: the pending approval to wait for." : "" })),
      status_ref: z
        .optional(z.string())
        .check(z.meta({ description: DOCS ? "Set with an unknown outcome: pass it to tool-calls/status." : "" })),
      audit: z.optional(AuditReference),
      problem: z.optional(ProblemDetails).check(
        z.meta({
          description: DOCS
            ? "The call was refused before it ran (what POST …/tool-calls would have answered); nothing else is set."
            : "",
        }),
      ),
      retry_after: z.optional(z.int()).check(
        z.meta({
          description: DOCS
            ? "With a RATE_LIMITED or IDEMPOTENCY_IN_PROGRESS problem: the seconds the single route's Retry-After would say."
            : "",
        }),
      ),
    })
    .register(httpSchemas, { id: "BatchCallAnswer" }),
);

/** The answer to a batch: the turn's one provider message, and each call's own answer in call order. */
export const ToolCallBatchResponse = z.deferred(() =>
  z
    .strictObject({
      provider_message: z.nullable(ProviderMessage).check(
        z.meta({
          description: DOCS
            ? "Every call's result as the provider's one message for the turn (docs/providers.md); null when a call has a problem."
            : "",
        }),
      ),
      calls: z.array(BatchCallAnswer),
    })
    .register(httpSchemas, { id: "ToolCallBatchResponse" }),
);

/** Parsed batch request. */
export type ToolCallBatchRequest = z.infer<typeof ToolCallBatchRequest>;
