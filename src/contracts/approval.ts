import * as z from "../core/zod";
import { httpSchemas, JsonObjectValue, Sha256Hex } from "./registry";
import { DOCS } from "./docs";

/** The most characters (UTF-16 code units) of a person's or an agent's words on an approval. */
export const MAX_APPROVAL_WORDS = 500;

/** Words a person or an agent wrote: 1..500 characters, no control characters (shown escaped where invisible). */
export const ApprovalWords = z.deferred(() =>
  z.string().check(z.minLength(1), z.maxLength(MAX_APPROVAL_WORDS), z.regex(/^[^\p{Cc}]*$/u, "no control characters")),
);

/**
 * `POST …/approvals/{approval_id}`: the decision, bound to the digest the approver saw. `edit`
 * answers other `arguments` (docs/approvals.md, "Edit"): the original call never runs.
 */
export const ApprovalDecisionRequest = z.deferred(() =>
  z
    .strictObject({
      decision: z.enum(["approve", "deny", "edit"]),
      approval_digest: Sha256Hex,
      arguments: z.optional(JsonObjectValue).check(
        z.meta({
          description: DOCS
            ? "With edit, and only then: the corrected arguments, checked against the tool's input contract (else 422 INVALID_ARGUMENTS with the pointer in `path`). They are approved under their own request digest: the agent's next call with exactly these arguments runs, once, within the window."
            : "",
        }),
      ),
      reason: z.optional(ApprovalWords).check(
        z.meta({
          description: DOCS
            ? "The approver's words (1..500 characters, no control characters). A denial's or an edit's reach the model with the call's result, marked as the approver's; kept in the audit log."
            : "",
        }),
      ),
    })
    .check(
      z.refine((d) => (d.decision === "edit") === (d.arguments !== undefined), {
        error: "arguments are given with an edit, and only then",
        path: ["arguments"],
      }),
    )
    .register(httpSchemas, { id: "ApprovalDecisionRequest" }),
);

/**
 * `POST …/approvals/{approval_id}/confirmation`: the requesting end user's answer in the agent's
 * chat, relayed by the agent credential whose call opened the approval, with the end user's
 * token (verified as the call's was) and the request digest of the arguments it confirmed
 * (docs/approvals.md, "Who decides").
 */
export const ApprovalConfirmationRequest = z.deferred(() =>
  z
    .strictObject({
      decision: z.enum(["approve", "deny"]),
      principal_token: z.string().check(
        z.minLength(1),
        z.maxLength(8192),
        z.meta({
          description: DOCS
            ? "The end user's JWT: verified against the consumer's principal_tokens issuer; its subject must be the one that requested the call."
            : "",
        }),
      ),
      request_sha256: Sha256Hex.check(
        z.meta({
          description: DOCS
            ? "The pending call's request digest (the approval status's `request_sha256`): the confirmation binds exactly those arguments."
            : "",
        }),
      ),
      reason: z.optional(ApprovalWords).check(
        z.meta({
          description: DOCS
            ? "The end user's words (1..500 characters, no control characters); kept in the audit log."
            : "",
        }),
      ),
    })
    .register(httpSchemas, { id: "ApprovalConfirmationRequest" }),
);

/**
 * A pending approval as an approver sees it: the call, and every input of the digest the
 * approver signs, so the approver can recompute `approval_digest` (and `request_sha256`) from
 * this view alone (docs/approvals.md).
 */
export const ApprovalView = z.deferred(() =>
  z
    .strictObject({
      approval_id: z.string(),
      state: z.enum(["pending", "approved", "denied"]),
      tenant_id: z
        .string()
        .check(z.describe(DOCS ? "The consumer: the principal's tenant, an input of request_sha256." : "")),
      subject_id: z
        .string()
        .check(z.describe(DOCS ? "The requesting subject (an input of request_sha256); it may not decide." : "")),
      tool: z.string(),
      arguments: z.record(z.string(), z.unknown()),
      provider: z.string(),
      api_family: z.string(),
      adapter_revision: z.string(),
      operation_id: z.string(),
      call_id: z.string(),
      response_id: z.string(),
      idempotency_key: z.nullable(z.string()),
      request_sha256: Sha256Hex.check(
        z.describe(
          DOCS
            ? "SHA-256 of canonical {tenant_id, subject_id, tool, arguments, input_schema_revision, output_schema_revision, effect_revision}."
            : "",
        ),
      ),
      input_schema_revision: z.string(),
      output_schema_revision: z.string(),
      effect_revision: z.string(),
      approval_revision: z.string().check(z.describe(DOCS ? "The tool's policy revision." : "")),
      approver_id: z.string().check(z.describe(DOCS ? "The approver this digest was computed for: the caller." : "")),
      approval_digest: Sha256Hex.check(
        z.describe(
          DOCS
            ? "SHA-256 of canonical {provider, api_family, adapter_revision, operation_id, call_id, response_id, idempotency_key, request_sha256, input_schema_revision, output_schema_revision, effect_revision, approval_revision, approver_id}."
            : "",
        ),
      ),
      requested_at: z.int(),
      expires_at: z.int(),
      rationale: z.optional(z.string()).check(
        z.meta({
          description: DOCS
            ? "The agent's words with the call (not hashed into either digest), present only when it gave some: the agent's claim, never the gate's."
            : "",
        }),
      ),
      tool_description: z.optional(z.string()).check(
        z.meta({
          description: DOCS ? "What the tool does, in its author's words; present when it has a description." : "",
        }),
      ),
      approval_rule: z.optional(z.string()).check(
        z.meta({
          description: DOCS
            ? "The rule that asked for a person, as its author wrote it (a data tool's CEL `approval`); absent when every call of the tool asks, or its rule is code."
            : "",
        }),
      ),
      confirmed_by: z.optional(z.literal("end_user")).check(
        z.meta({
          description: DOCS
            ? "Present when the requesting end user confirms this call in the agent's chat: an approver may deny it, not approve or edit it (END_USER_CONFIRMS)."
            : "",
        }),
      ),
    })
    .register(httpSchemas, { id: "Approval" }),
);

/** `GET …/approvals`: one page, oldest first; `next_cursor` (pass back as `?cursor=`) is `null` on the last page. */
export const ApprovalList = z.deferred(() =>
  z
    .strictObject({ approvals: z.array(ApprovalView), next_cursor: z.nullable(z.string()) })
    .register(httpSchemas, { id: "ApprovalList" }),
);

/** The stored decision. */
export const ApprovalDecisionView = z.deferred(() =>
  z
    .strictObject({
      approval_id: z.string(),
      state: z.enum(["approved", "denied", "edited"]),
      approver_id: z.string(),
      decided_at: z.int(),
      valid_until: z.nullable(z.int()),
      reason: z
        .optional(z.string())
        .check(z.meta({ description: DOCS ? "The approver's words, present only when given." : "" })),
      decided_by: z.optional(z.literal("end_user")).check(
        z.meta({
          description: DOCS
            ? "Present when the requesting end user decided (in the agent's chat); `approver_id` is then its subject."
            : "",
        }),
      ),
      edited: z.optional(
        z
          .strictObject({
            approval_id: z.string().check(z.describe(DOCS ? "The edited call's own approval." : "")),
            request_sha256: Sha256Hex.check(z.describe(DOCS ? "The request digest of the edited arguments." : "")),
            arguments: z.record(z.string(), z.unknown()),
          })
          .check(
            z.describe(
              DOCS ? "Only with an edit: the approval of the edited arguments (valid until valid_until)." : "",
            ),
          ),
      ),
      bound_to_request: z
        .literal(true)
        .check(
          z.describe(DOCS ? "Always true: a decision with another digest is refused (APPROVAL_DIGEST_MISMATCH)." : ""),
        ),
    })
    .register(httpSchemas, { id: "ApprovalDecision" }),
);

/** Query of `GET …/approvals`: `cursor` is a `next_cursor` answered before (opaque). */
export const ApprovalQuery = z.deferred(() =>
  z.strictObject({
    state: z._default(z.enum(["pending"]), "pending"),
    cursor: z.optional(z.string()),
  }),
);

/** Query of `GET …/approvals/{approval_id}`: `wait`, seconds to wait for a decision (0–60). */
export const ApprovalWaitQuery = z.deferred(() =>
  z.strictObject({
    wait: z.optional(
      z
        .pipe(z.string().check(z.regex(/^(0|[1-9][0-9]?)$/, "wait is whole seconds, 0 to 60")), z.transform(Number))
        .check(z.refine((n) => n <= 60, "wait is whole seconds, 0 to 60")),
    ),
  }),
);

/** Parsed end user's confirmation. */
export type ApprovalConfirmationRequest = z.infer<typeof ApprovalConfirmationRequest>;
/** Parsed decision. */
export type ApprovalDecisionRequest = z.infer<typeof ApprovalDecisionRequest>;
/** An approval as listed. */
export type ApprovalView = z.infer<typeof ApprovalView>;
/** One page of approvals. */
export type ApprovalList = z.infer<typeof ApprovalList>;
