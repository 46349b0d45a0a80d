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
  return respond(await c.var.stub.listApprovals(c.var.consumer, credentialToken(c.var.token)));
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
    summary: "Pending approvals, each with the approval_digest computed for the approver who asks.",
    operation: "listApprovals",
    query: { state: { description: "Only `pending` is supported.", schema: { type: "string", enum: ["pending"] } } },
    response: { status: 200, schema: ApprovalList, description: "Pending approvals." },
    problems: ["UNAUTHENTICATED", "FORBIDDEN", "APPROVER_NOT_ALLOWED", "NOT_FOUND", "INVALID_REQUEST"],
  },
  {
    method: "post",
    path: "/v1/consumers/{consumer}/approvals/{approval_id}",
    summary: "Approve or deny, bound to the digest the approver saw. Valid for APPROVAL_TTL_SECONDS; decided once.",
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
      "INVALID_JSON",
      "INVALID_REQUEST",
      "BODY_TOO_LARGE",
      "UNSUPPORTED_MEDIA_TYPE",
    ],
  },
];
