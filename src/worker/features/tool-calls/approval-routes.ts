import {
  ApprovalConfirmationRequest,
  ApprovalDecisionRequest,
  ApprovalDecisionView,
  ApprovalList,
  ApprovalQuery,
  ApprovalWaitQuery,
} from "../../../contracts/approval";
import { ApprovalEventData } from "../../../contracts/events";
import { describeIssues } from "../../http/body";
import { problem, problemResponse } from "../../http/problem";
import { credentialToken, jsonBody } from "../../http/middleware";
import { respond, sendBody } from "../../http/respond";
import { handlers, pathParam, type RouteModule } from "../../http/route";
import { DOCS } from "../../../contracts/docs";

const APPROVAL_ID = /^apr_[0-9a-f]{32}$/;

/** Approver routes: approvals as resources. */
export const approvalRoutes: RouteModule = {
  routes: [
    {
      method: "get",
      path: "/v1/consumers/{consumer}/approvals",
      summary: DOCS
        ? "Pending approvals, oldest first, one page (at most the consumer's limits.page_items) at a time; each shows every digest input and the approval_digest computed for the approver who asks (docs/approvals.md)."
        : "",
      operation: "listApprovals",
      auth: "credential",
      query: {
        state: {
          description: DOCS ? "Only `pending` is supported." : "",
          schema: { type: "string", enum: ["pending"] },
        },
        cursor: {
          description: DOCS ? "The `next_cursor` of the previous page (opaque); absent for the first page." : "",
          schema: { type: "string" },
        },
      },
      response: {
        status: 200,
        schema: ApprovalList,
        description: DOCS ? "One page of pending approvals; `next_cursor` is null on the last page." : "",
      },
      problems: [
        "UNAUTHENTICATED",
        "FORBIDDEN",
        "APPROVER_NOT_ALLOWED",
        "NOT_FOUND",
        "INVALID_REQUEST",
        "INVALID_CURSOR",
      ],
      handlers: handlers(async (c) => {
        const query = ApprovalQuery.safeParse(c.req.query());
        if (!query.success) return problemResponse(problem("INVALID_REQUEST", describeIssues(query.error)));
        // The cursor is decoded by the object, after it authenticated the caller (INVALID_CURSOR).
        return respond(
          await c.var.object.approvalsCall(c.var.consumer, credentialToken(c.var.token), {
            kind: "listApprovals",
            cursor: query.data.cursor ?? null,
          }),
        );
      }),
    },
    {
      method: "get",
      path: "/v1/consumers/{consumer}/approvals/events",
      summary: DOCS
        ? "Server-sent events of approvals (text/event-stream): the pending ones first, then `approval.requested` and `approval.decided` as they happen, each `data` an ApprovalStatus. An agent credential sees the approvals its own calls opened; an approver sees all. The stream closes after 300 s (clients reconnect); a keep-alive comment every 15 s (docs/approvals.md)."
        : "",
      operation: "approvalEvents",
      auth: "credential",
      response: {
        status: 200,
        text: "text/event-stream",
        description: DOCS ? "The event stream; each event's `data` is an ApprovalStatus." : "",
      },
      problems: ["UNAUTHENTICATED", "FORBIDDEN", "APPROVER_NOT_ALLOWED", "NOT_FOUND", "QUOTA_EXCEEDED"],
      // Before `…/approvals/:approval_id`: "events" is not an approval id.
      handlers: handlers(async (c) => {
        const stream = await c.var.object.approvalEvents(c.var.consumer, credentialToken(c.var.token));
        if (!stream.ok) return problemResponse(stream.error);
        return new Response(stream.value, {
          headers: { "content-type": "text/event-stream", "cache-control": "no-store", "x-accel-buffering": "no" },
        });
      }),
    },
    {
      method: "get",
      path: "/v1/consumers/{consumer}/approvals/{approval_id}",
      summary: DOCS
        ? "An approval's status. With `wait`, a pending approval's answer waits (long-poll) up to that many seconds (at most 60, and no later than its expiry) for the decision. An agent credential sees the approvals its own calls opened; an approver sees all."
        : "",
      operation: "getApproval",
      auth: "credential",
      query: {
        wait: {
          description: DOCS ? "Seconds to wait for a decision (0–60; 0, the default, answers at once)." : "",
          schema: { type: "integer", minimum: 0, maximum: 60 },
        },
      },
      response: {
        status: 200,
        schema: ApprovalEventData,
        description: DOCS
          ? "The approval's state (`expired`: pending past expires_at); `valid_until` is when an approval stops admitting the repeated call."
          : "",
      },
      problems: [
        "UNAUTHENTICATED",
        "FORBIDDEN",
        "APPROVER_NOT_ALLOWED",
        "NOT_FOUND",
        "INVALID_REQUEST",
        "QUOTA_EXCEEDED",
      ],
      handlers: handlers(async (c) => {
        const id = pathParam(c, "approval_id");
        const query = ApprovalWaitQuery.safeParse(c.req.query());
        if (!query.success) return problemResponse(problem("INVALID_REQUEST", describeIssues(query.error)));
        if (!APPROVAL_ID.test(id)) return problemResponse(problem("NOT_FOUND", "No such approval."));
        return respond(
          await c.var.object.approvalsCall(c.var.consumer, credentialToken(c.var.token), {
            kind: "getApproval",
            approvalId: id,
            waitSeconds: query.data.wait ?? 0,
          }),
        );
      }),
    },
    {
      method: "post",
      path: "/v1/consumers/{consumer}/approvals/{approval_id}",
      summary: DOCS
        ? "Approve or deny, with the approval_digest computed for this call and this approver (another digest is refused, the approval stays pending). Valid for APPROVAL_TTL_SECONDS; decided once."
        : "",
      operation: "decideApproval",
      auth: "credential",
      request: ApprovalDecisionRequest,
      response: { status: 200, schema: ApprovalDecisionView, description: DOCS ? "The recorded decision." : "" },
      problems: [
        "UNAUTHENTICATED",
        "FORBIDDEN",
        "APPROVER_NOT_ALLOWED",
        "SELF_APPROVAL_FORBIDDEN",
        "END_USER_CONFIRMS",
        "NOT_FOUND",
        "APPROVAL_ALREADY_DECIDED",
        "APPROVAL_EXPIRED",
        "APPROVAL_DIGEST_MISMATCH",
        "INVALID_ARGUMENTS",
        "INVALID_JSON",
        "INVALID_REQUEST",
        "BODY_TOO_LARGE",
        "UNSUPPORTED_MEDIA_TYPE",
      ],
      handlers: handlers(jsonBody(ApprovalDecisionRequest), async (c) => {
        const id = pathParam(c, "approval_id");
        if (!APPROVAL_ID.test(id)) return problemResponse(problem("NOT_FOUND", "No such approval."));
        return sendBody(c.var.body, (request) =>
          c.var.object.approvalsCall(c.var.consumer, credentialToken(c.var.token), {
            kind: "decideApproval",
            approvalId: id,
            request,
          }),
        );
      }),
    },
    {
      method: "post",
      path: "/v1/consumers/{consumer}/approvals/{approval_id}/confirmation",
      summary: DOCS
        ? "The requesting end user's answer in the agent's chat, for a tool its end user confirms (`confirmed_by: end_user`): relayed by the agent credential whose call opened the approval, with the end user's token (verified as the call's) and the pending call's request_sha256. Approve lets the same call run once within the window; deny refuses it. An approval the consumer's approvers decide (the tool's default, or a call without a verified end-user token) is END_USER_CONFIRMATION_NOT_OFFERED (docs/approvals.md, \"Who decides\")."
        : "",
      operation: "confirmApproval",
      auth: "credential",
      request: ApprovalConfirmationRequest,
      response: {
        status: 200,
        schema: ApprovalDecisionView,
        description: DOCS ? "The recorded decision (`decided_by: end_user`)." : "",
      },
      problems: [
        "UNAUTHENTICATED",
        "FORBIDDEN",
        "NOT_FOUND",
        "PRINCIPAL_TOKEN_REJECTED",
        "PRINCIPAL_MISMATCH",
        "END_USER_CONFIRMATION_NOT_OFFERED",
        "APPROVAL_ALREADY_DECIDED",
        "APPROVAL_EXPIRED",
        "APPROVAL_DIGEST_MISMATCH",
        "RATE_LIMITED",
        "INVALID_JSON",
        "INVALID_REQUEST",
        "BODY_TOO_LARGE",
        "UNSUPPORTED_MEDIA_TYPE",
      ],
      handlers: handlers(jsonBody(ApprovalConfirmationRequest), async (c) => {
        const id = pathParam(c, "approval_id");
        if (!APPROVAL_ID.test(id)) return problemResponse(problem("NOT_FOUND", "No such approval."));
        return sendBody(c.var.body, (request) =>
          c.var.object.approvalsCall(c.var.consumer, credentialToken(c.var.token), {
            kind: "confirmApproval",
            approvalId: id,
            request,
          }),
        );
      }),
    },
  ],
};
