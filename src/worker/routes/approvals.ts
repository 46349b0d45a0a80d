import { Hono } from "hono";
import { ApprovalDecisionRequest, ApprovalDecisionView, ApprovalList, ApprovalQuery } from "../../contracts/approval";
import { describeIssues } from "../body";
import type { OperationDoc } from "../openapi";
import { problem, problemResponse } from "../problem";
import { consumerGate, credentialToken, jsonBody, type GateEnv } from "./middleware";
import { respond } from "./respond";

/** Approver routes: approvals as resources. */
export const approvalRoutes = new Hono<GateEnv>();

const APPROVAL_ID = /^apr_[0-9a-f]{32}$/;

approvalRoutes.get("/v1/consumers/:consumer/approvals", consumerGate("listApprovals"), async (c) => {
  const query = ApprovalQuery.safeParse(c.req.query());
  if (!query.success) return problemResponse(problem("INVALID_REQUEST", describeIssues(query.error)));
  // The cursor is decoded by the object, after it authenticated the caller (INVALID_CURSOR).
  return respond(await c.var.stub.listApprovals(c.var.consumer, credentialToken(c.var.token), query.data.cursor ?? null));
});

approvalRoutes.post("/v1/consumers/:consumer/approvals/:approval_id", consumerGate("decideApproval"), jsonBody(ApprovalDecisionRequest), async (c) => {
  const id = c.req.param("approval_id");
  if (!APPROVAL_ID.test(id)) return problemResponse(problem("NOT_FOUND", "No such approval."));
  return respond(await c.var.stub.decideApproval(c.var.consumer, credentialToken(c.var.token), id, c.var.body));
});

/** OpenAPI descriptions of the approval routes. */
export const approvalOperations: readonly OperationDoc[] = [
  {
    method: "get",
    path: "/v1/consumers/{consumer}/approvals",
    summary:
      "Pending approvals, oldest first, one page (at most the consumer's limits.page_items) at a time; each shows every digest input and the approval_digest computed for the approver who asks (docs/approvals.md).",
    operation: "listApprovals",
    query: {
      state: { description: "Only `pending` is supported.", schema: { type: "string", enum: ["pending"] } },
      cursor: { description: "The `next_cursor` of the previous page (opaque); absent for the first page.", schema: { type: "string" } },
    },
    response: { status: 200, schema: ApprovalList, description: "One page of pending approvals; `next_cursor` is null on the last page." },
    problems: ["UNAUTHENTICATED", "FORBIDDEN", "APPROVER_NOT_ALLOWED", "NOT_FOUND", "INVALID_REQUEST", "INVALID_CURSOR"],
  },
  {
    method: "post",
    path: "/v1/consumers/{consumer}/approvals/{approval_id}",
    summary:
      "Approve or deny, with the approval_digest computed for this call and this approver (another digest is refused, the approval stays pending). Valid for APPROVAL_TTL_SECONDS; decided once.",
    operation: "decideApproval",
    request: ApprovalDecisionRequest,
    response: { status: 200, schema: ApprovalDecisionView, description: "The recorded decision." },
    problems: [
      "UNAUTHENTICATED",
      "FORBIDDEN",
      "APPROVER_NOT_ALLOWED",
      "SELF_APPROVAL_FORBIDDEN",
      "NOT_FOUND",
      "APPROVAL_ALREADY_DECIDED",
      "APPROVAL_EXPIRED",
      "APPROVAL_DIGEST_MISMATCH",
      "INVALID_JSON",
      "INVALID_REQUEST",
      "BODY_TOO_LARGE",
      "UNSUPPORTED_MEDIA_TYPE",
    ],
  },
];
