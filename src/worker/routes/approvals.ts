import { Hono } from "hono";
import { credentialOf } from "../auth";
import { describeIssues, readBody } from "../body";
import { ApprovalDecisionRequest, ApprovalDecisionView, ApprovalList, ApprovalQuery } from "../contracts/approval";
import type { Env } from "../env";
import type { OperationDoc } from "../openapi";
import { problem, problemResponse } from "../problem";
import { consumerStub, respond } from "./respond";

/** Approver routes: approvals as resources. */
export const approvalRoutes = new Hono<{ Bindings: Env }>();

const APPROVAL_ID = /^apr_[0-9a-f]{32}$/;

approvalRoutes.get("/v1/consumers/:consumer/approvals", async (c) => {
  const credential = credentialOf(c);
  if (credential instanceof Response) return credential;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  const query = ApprovalQuery.safeParse(c.req.query());
  if (!query.success) return problemResponse(problem("INVALID_REQUEST", describeIssues(query.error)));
  return respond(await stub.listApprovals(c.req.param("consumer"), credential.token));
});

approvalRoutes.post("/v1/consumers/:consumer/approvals/:approval_id", async (c) => {
  const credential = credentialOf(c);
  if (credential instanceof Response) return credential;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  const body = await readBody(c.req.raw, ApprovalDecisionRequest);
  if (!body.ok) return problemResponse(body.problem);
  const id = c.req.param("approval_id");
  if (!APPROVAL_ID.test(id)) return problemResponse(problem("NOT_FOUND", "No such approval."));
  return respond(await stub.decideApproval(c.req.param("consumer"), credential.token, id, body.value));
});

/** OpenAPI descriptions of the approval routes. */
export const approvalOperations: readonly OperationDoc[] = [
  {
    method: "get",
    path: "/v1/consumers/{consumer}/approvals",
    summary: "Pending approvals, each with the approval_digest computed for the approver who asks.",
    auth: "approver",
    query: { state: { description: "Only `pending` is supported.", schema: { type: "string", enum: ["pending"] } } },
    response: { status: 200, schema: ApprovalList, description: "Pending approvals." },
    problems: ["UNAUTHENTICATED", "FORBIDDEN", "APPROVER_NOT_ALLOWED", "NOT_FOUND", "INVALID_REQUEST"],
  },
  {
    method: "post",
    path: "/v1/consumers/{consumer}/approvals/{approval_id}",
    summary: "Approve or deny, bound to the digest the approver saw. Valid for APPROVAL_TTL_SECONDS; decided once.",
    auth: "approver",
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
