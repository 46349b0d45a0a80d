import * as z from "../core/zod";
import { httpSchemas, Sha256Hex } from "./registry";
import { DOCS } from "./docs";

/**
 * What the gate tells the people around it: the events webhooks deliver, the approval streams
 * carry and the console shows. An event's `data` never holds a secret; `arguments` (the call's
 * arguments) is present only where the receiver asked for them (a webhook endpoint with
 * `include_arguments`, an approver's own console and stream).
 * @module
 */

/** The event types, in the Standard Webhooks `type` form. */
export const EVENT_TYPES = [
  "approval.requested",
  "approval.decided",
  "call.outcome_unknown",
  "call.reconciled",
] as const;

/** One event type. */
export type EventType = (typeof EVENT_TYPES)[number];

/** An approval's state as the people around it see it (an expired one is `pending` past `expires_at` in storage). */
export const ApprovalState = z.deferred(() =>
  z.enum(["pending", "approved", "denied", "edited", "expired", "withdrawn"]),
);

/** An approval in an event, a wait's answer and the approval streams. */
export const ApprovalEventData = z.deferred(() =>
  z
    .strictObject({
      approval_id: z.string(),
      state: ApprovalState,
      tool: z.string(),
      subject_id: z.string().check(z.describe(DOCS ? "The subject that asked." : "")),
      operation_id: z.string(),
      call_id: z.string(),
      request_sha256: Sha256Hex,
      requested_at: z.int(),
      expires_at: z
        .int()
        .check(z.describe(DOCS ? "Unix seconds; a pending approval may be decided while now < expires_at." : "")),
      approver_id: z.nullable(z.string()),
      decided_at: z.nullable(z.int()),
      valid_until: z
        .nullable(z.int())
        .check(
          z.describe(
            DOCS ? "Unix seconds until which the approved call may be repeated (the tool's approval window)." : "",
          ),
        ),
      arguments: z
        .optional(z.record(z.string(), z.unknown()))
        .check(z.describe(DOCS ? "Only where the receiver asked for arguments." : "")),
      rationale: z
        .optional(z.string())
        .check(z.describe(DOCS ? "The agent's words with the call, present only when it gave some." : "")),
      reason: z
        .optional(z.string())
        .check(z.describe(DOCS ? "The approver's words with the decision, present only when given." : "")),
      confirmed_by: z
        .optional(z.literal("end_user"))
        .check(
          z.describe(
            DOCS
              ? "Present when the requesting end user confirms the call in the agent's chat (its tool's `confirmed_by` and a verified end-user token); absent: the consumer's approvers decide."
              : "",
          ),
        ),
      approval_digest: z
        .optional(Sha256Hex)
        .check(
          z.describe(
            DOCS
              ? "Only in an approver's own read of a pending approval: the approval_digest computed for that approver, which its decision sends back (docs/approvals.md)."
              : "",
          ),
        ),
      decided_by: z
        .optional(z.literal("end_user"))
        .check(
          z.describe(DOCS ? "Present when the requesting end user decided; `approver_id` is then its subject." : ""),
        ),
      edited: z.optional(
        z
          .strictObject({
            request_sha256: Sha256Hex.check(
              z.describe(DOCS ? "The request digest of the edited arguments: the call it admits." : ""),
            ),
            arguments: z
              .optional(z.record(z.string(), z.unknown()))
              .check(z.describe(DOCS ? "Only where the receiver asked for arguments." : "")),
            instruction: z
              .optional(z.string())
              .check(
                z.describe(
                  DOCS
                    ? "What the model is told: call again with exactly these arguments (canonical JSON), then the approver's words, marked as theirs, when given. Only where the receiver asked for arguments."
                    : "",
                ),
              ),
          })
          .check(
            z.describe(
              DOCS
                ? "Only when state is edited: the approver's arguments, approved apart under their own request digest; the original call never runs."
                : "",
            ),
          ),
      ),
    })
    .register(httpSchemas, { id: "ApprovalStatus" }),
);

/** A call whose outcome became unknown, or was reconciled. */
export const CallEventData = z.deferred(() =>
  z
    .strictObject({
      tool: z.string(),
      subject_id: z.string(),
      operation_id: z.string(),
      call_id: z.string(),
      request_sha256: Sha256Hex,
      status_ref: z
        .string()
        .check(z.describe(DOCS ? "The host's reference to reconcile with (POST …/tool-calls/status)." : "")),
      status: z.enum(["unknown", "succeeded"]),
      at: z.int(),
      arguments: z
        .optional(z.record(z.string(), z.unknown()))
        .check(z.describe(DOCS ? "Only where the receiver asked for arguments." : "")),
    })
    .register(httpSchemas, { id: "CallEvent" }),
);

/** An approval's data. */
export type ApprovalEventData = z.infer<typeof ApprovalEventData>;
/** A call's data. */
export type CallEventData = z.infer<typeof CallEventData>;

/**
 * One event of a consumer. `credentialId` (never delivered) is the agent credential whose call
 * caused it, when one did: an agent's own approval stream shows only its own.
 */
export type GateEvent =
  | {
      readonly type: "approval.requested" | "approval.decided";
      readonly data: ApprovalEventData;
      readonly credentialId: string | null;
    }
  | {
      readonly type: "call.outcome_unknown" | "call.reconciled";
      readonly data: CallEventData;
      readonly credentialId: string | null;
    };

/** The data without the arguments, an edit's included (what a receiver that did not ask for them gets). */
export function withoutArguments<T extends { arguments?: unknown; edited?: { request_sha256: string } }>(
  data: T,
): Omit<T, "arguments"> {
  const { arguments: _dropped, ...rest } = data;
  return rest.edited === undefined ? rest : { ...rest, edited: { request_sha256: rest.edited.request_sha256 } };
}
