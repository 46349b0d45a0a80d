import * as z from "../core/zod";
import { ApprovalEventData, CallEventData, type EventType } from "./events";
import { httpSchemas } from "./registry";
import { DOCS } from "./docs";

/**
 * The body of a webhook delivery (docs/webhooks.md): the event's type, the UTC second it was
 * queued and its data, as canonical JSON. `arguments` is in `data` only for an endpoint created
 * with `include_arguments`.
 * @module
 */

const Timestamp = z.deferred(() =>
  z
    .string()
    .check(
      z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      z.describe(DOCS ? "When the event was queued, an RFC 3339 UTC second." : ""),
    ),
);

/** An approval as a webhook delivers it: with its console page where the gate knows its public origin. */
const ApprovalWebhookData = z.deferred(() =>
  z.extend(ApprovalEventData, {
    console_url: z
      .optional(z.string())
      .check(
        z.describe(
          DOCS
            ? "The approver console's page of this approval (`<TOOLGATE_PUBLIC_URL origin>/console/approvals/<approval_id>`); absent when the gate has no TOOLGATE_PUBLIC_URL."
            : "",
        ),
      ),
  }),
);

const approvalPayload = (type: "approval.requested" | "approval.decided", id: string) =>
  z
    .strictObject({ type: z.literal(type), timestamp: Timestamp, data: ApprovalWebhookData })
    .register(httpSchemas, { id });

const callPayload = (type: "call.outcome_unknown" | "call.reconciled", id: string) =>
  z.strictObject({ type: z.literal(type), timestamp: Timestamp, data: CallEventData }).register(httpSchemas, { id });

/** Each event type's delivery body. */
export const WEBHOOK_PAYLOADS: Readonly<Record<EventType, z.ZodMiniType>> = {
  "approval.requested": approvalPayload("approval.requested", "ApprovalRequestedWebhook"),
  "approval.decided": approvalPayload("approval.decided", "ApprovalDecidedWebhook"),
  "call.outcome_unknown": callPayload("call.outcome_unknown", "CallOutcomeUnknownWebhook"),
  "call.reconciled": callPayload("call.reconciled", "CallReconciledWebhook"),
};
