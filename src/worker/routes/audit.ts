import { Hono } from "hono";
import { AuditPage, AuditQuery, AuditVerifyView } from "../../contracts/audit";
import { describeIssues } from "../body";
import type { OperationDoc } from "../openapi";
import { problem, problemResponse } from "../problem";
import { consumerGate, credentialToken, type GateEnv } from "./middleware";
import { respond } from "./respond";

/** Auditor routes: the consumer's hash chain. */
export const auditRoutes = new Hono<GateEnv>();

auditRoutes.get("/v1/consumers/:consumer/audit", consumerGate("auditPage"), async (c) => {
  const query = AuditQuery.safeParse(c.req.query());
  if (!query.success) return problemResponse(problem("INVALID_REQUEST", describeIssues(query.error)));
  return respond(await c.var.stub.auditPage(c.var.consumer, credentialToken(c.var.token), query.data.after, query.data.limit));
});

auditRoutes.get("/v1/consumers/:consumer/audit/verify", consumerGate("auditVerify"), async (c) =>
  respond(await c.var.stub.auditVerify(c.var.consumer, credentialToken(c.var.token))),
);

/** OpenAPI descriptions of the audit routes. */
export const auditOperations: readonly OperationDoc[] = [
  {
    method: "get",
    path: "/v1/consumers/{consumer}/audit",
    summary: "The consumer's audit chain, page by page (entries with seq > after).",
    operation: "auditPage",
    query: {
      after: { description: "Sequence number to start after (default 0).", schema: { type: "integer", minimum: 0 } },
      limit: { description: "Page size, 1..500 (default 100).", schema: { type: "integer", minimum: 1, maximum: 500 } },
    },
    response: { status: 200, schema: AuditPage, description: "One page." },
    problems: ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "INVALID_REQUEST"],
  },
  {
    method: "get",
    path: "/v1/consumers/{consumer}/audit/verify",
    summary: "Recompute every link of the chain.",
    operation: "auditVerify",
    response: { status: 200, schema: AuditVerifyView, description: "`ok`, the entry count and the head digest." },
    problems: ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND"],
  },
];
