import { Hono } from "hono";
import { credentialOf } from "../auth";
import { describeIssues } from "../body";
import { AuditPage, AuditQuery, AuditVerifyView } from "../contracts/audit";
import type { Env } from "../env";
import type { OperationDoc } from "../openapi";
import { problem, problemResponse } from "../problem";
import { consumerStub, respond } from "./respond";

/** Auditor routes: the consumer's hash chain. */
export const auditRoutes = new Hono<{ Bindings: Env }>();

auditRoutes.get("/v1/consumers/:consumer/audit", async (c) => {
  const credential = credentialOf(c);
  if (credential instanceof Response) return credential;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  const query = AuditQuery.safeParse(c.req.query());
  if (!query.success) return problemResponse(problem("INVALID_REQUEST", describeIssues(query.error)));
  return respond(await stub.auditPage(c.req.param("consumer"), credential.token, query.data.after, query.data.limit));
});

auditRoutes.get("/v1/consumers/:consumer/audit/verify", async (c) => {
  const credential = credentialOf(c);
  if (credential instanceof Response) return credential;
  const stub = consumerStub(c.env, c.req.param("consumer"));
  if (stub instanceof Response) return stub;
  return respond(await stub.auditVerify(c.req.param("consumer"), credential.token));
});

/** OpenAPI descriptions of the audit routes. */
export const auditOperations: readonly OperationDoc[] = [
  {
    method: "get",
    path: "/v1/consumers/{consumer}/audit",
    summary: "The consumer's audit chain, page by page (entries with seq > after).",
    auth: "auditor",
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
    auth: "auditor",
    response: { status: 200, schema: AuditVerifyView, description: "`ok`, the entry count and the head digest." },
    problems: ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND"],
  },
];
