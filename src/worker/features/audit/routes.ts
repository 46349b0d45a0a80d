import { AuditCallRecords, AuditPage, AuditQuery, AuditVerifyQuery, AuditVerifyView } from "../../../contracts/audit";
import { describeIssues } from "../../http/body";
import { problem, problemResponse } from "../../http/problem";
import { auditLogRoutes } from "./export-routes";
import { credentialToken } from "../../http/middleware";
import { respond } from "../../http/respond";
import { handlers, pathParam, type RouteModule } from "../../http/route";
import { DOCS } from "../../../contracts/docs";

const cursorParameter = (what: string) => ({
  description: DOCS ? `The \`next_cursor\` of the previous ${what} (opaque; anything else is 400 INVALID_CURSOR).` : "",
  schema: { type: "string", maxLength: 256 },
});

/** Auditor routes: the consumer's hash chain and its verifiable log; the public verifier keys. */
export const auditRoutes: RouteModule = {
  routes: [
    {
      method: "get",
      path: "/v1/consumers/{consumer}/audit",
      summary: DOCS
        ? "The consumer's audit chain, oldest entry first, page by page (at most the consumer's page_items per page)."
        : "",
      operation: "auditPage",
      auth: "credential",
      query: {
        cursor: cursorParameter("page"),
        after: {
          description: DOCS ? "Start after this sequence number instead (default 0; not together with cursor)." : "",
          schema: { type: "integer", minimum: 0 },
        },
        limit: {
          description: DOCS
            ? "Page size, at least 1; larger than the consumer's page_items (default 100) is served as page_items."
            : "",
          schema: { type: "integer", minimum: 1 },
        },
      },
      response: {
        status: 200,
        schema: AuditPage,
        description: DOCS ? "One page; `next_cursor` is null at the end." : "",
      },
      problems: ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "INVALID_REQUEST", "INVALID_CURSOR"],
      handlers: handlers(async (c) => {
        const query = AuditQuery.safeParse(c.req.query());
        if (!query.success) return problemResponse(problem("INVALID_REQUEST", describeIssues(query.error)));
        return respond(
          await c.var.object.auditCall(c.var.consumer, credentialToken(c.var.token), {
            kind: "page",
            request: query.data,
          }),
        );
      }),
    },
    {
      method: "get",
      path: "/v1/consumers/{consumer}/audit/verify",
      summary: DOCS
        ? "Recompute the chain's links, at most page_items × 10 entries per call; follow next_cursor to the head."
        : "",
      operation: "auditVerify",
      auth: "credential",
      query: { cursor: cursorParameter("verify call") },
      response: {
        status: 200,
        schema: AuditVerifyView,
        description: DOCS
          ? "`ok`, how far the walk got (`count`, `head`), the first broken entry and the cursor to continue."
          : "",
      },
      problems: ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "INVALID_REQUEST", "INVALID_CURSOR"],
      handlers: handlers(async (c) => {
        const query = AuditVerifyQuery.safeParse(c.req.query());
        if (!query.success) return problemResponse(problem("INVALID_REQUEST", describeIssues(query.error)));
        return respond(
          await c.var.object.auditVerify(c.var.consumer, credentialToken(c.var.token), query.data.cursor ?? null),
        );
      }),
    },
    {
      method: "get",
      path: "/v1/consumers/{consumer}/audit/calls/{call_id}",
      summary: DOCS
        ? "One tool call's records in the stored chain, oldest first (at most 20, among the newest 20,000 entries): its outcome, error code and, for a failed run, the operator's `cause` (never shown to the model). An auditor credential or the admin secret."
        : "",
      operation: "auditCallRecords",
      auth: "credential",
      response: { status: 200, schema: AuditCallRecords, description: DOCS ? "The call's records." : "" },
      problems: ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND"],
      handlers: handlers(async (c) =>
        respond(await c.var.object.auditCallRecords(c.var.consumer, c.var.token, pathParam(c, "call_id"))),
      ),
    },
    ...auditLogRoutes,
  ],
};
