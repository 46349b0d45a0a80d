/**
 * The console's standing approvals routes (docs/console.md): the page, a grant and a revocation,
 * for the approver of the request's console session. Same-origin HTML with forms, outside the
 * OpenAPI document and CORS, under the console's headers (its `/console/*` middleware).
 * @module
 */
import type { Context, Handler } from "hono";
import type { Operation } from "../../../contracts/access";
import { PROBLEM_STATUS, type ProblemCode } from "../../../contracts/problem";
import { Sha256Hex } from "../../../contracts/registry";
import { StandingApprovalGrant, StandingApprovalId } from "../../../contracts/standing-approval";
import * as z from "../../../core/zod";
import type { Env } from "../../env";
import { objectOf } from "../../http/middleware";
import { problem, problemResponse, UNAUTHENTICATED } from "../../http/problem";
import { pathParam, type Route, type RouteModule } from "../../http/route";
import type { Outcome } from "../../result";
import { htmlResponse, seeOther } from "../console/headers";
import { CLEARED_SESSION_COOKIE, originRefusal, readForm, sessionOf } from "../console/session";
import { tokenKeys } from "../credentials/format";
import type { StandingConsoleCall, StandingConsoleReply } from "./console-call";
import { standingPage, type StandingNotice } from "./console-page";

type ConsoleContext = Context<{ Bindings: Env }>;

const APPROVAL_ID = /^apr_[0-9a-f]{32}$/;
/** A whole number as a form field carries it. */
const FormInt = z.deferred(() => z.string().check(z.regex(/^[1-9][0-9]{0,8}$/)));
const GrantForm = z.deferred(() =>
  z.strictObject({
    csrf: z.string().check(z.maxLength(128)),
    tool: z.string().check(z.minLength(1), z.maxLength(1024)),
    subject_id: z.string().check(z.minLength(1), z.maxLength(1024)),
    seconds: FormInt,
    max_calls: FormInt,
    // The form always posts its constraint field; left empty, it gives none.
    constraint: z.optional(z.string().check(z.maxLength(2048))),
    approval_id: z.optional(z.string().check(z.regex(APPROVAL_ID))),
    approval_digest: z.optional(Sha256Hex),
  }),
);
const RevokeForm = z.deferred(() => z.strictObject({ csrf: z.string().check(z.maxLength(128)) }));

/** One call of the request's console session; `null` when it names no session this Worker tagged. */
async function sessionCall(
  c: ConsoleContext,
  call: StandingConsoleCall,
): Promise<Outcome<StandingConsoleReply> | null> {
  const ref = sessionOf(c.req.raw, tokenKeys(c.env));
  const stub = ref === null ? null : objectOf(c.env, ref.consumer);
  if (ref === null || stub === null) return null;
  return stub.standingConsole(ref.consumer, ref.sessionId, call);
}

function noticeOf(query: Record<string, string>): StandingNotice | null {
  for (const kind of ["granted", "revoked"] as const) {
    const id = query[kind];
    if (id !== undefined && StandingApprovalId.safeParse(id).success) return { kind, standingId: id };
  }
  const code = query.problem;
  return code !== undefined && Object.hasOwn(PROBLEM_STATUS, code)
    ? { kind: "problem", code: code as ProblemCode }
    : null;
}

/** After a form post: back to the page, which says what happened (a session gone: sign in again; a wrong CSRF token: 403). */
function afterPost(reply: Outcome<StandingConsoleReply> | null, done: "granted" | "revoked"): Response {
  if (reply === null || (!reply.ok && reply.error.code === "UNAUTHENTICATED"))
    return seeOther("/console?ended", { "set-cookie": CLEARED_SESSION_COOKIE });
  if (!reply.ok)
    return reply.error.code === "CSRF_REFUSED"
      ? problemResponse(reply.error)
      : seeOther(`/console/standing?problem=${reply.error.code}`);
  return reply.value.kind === "done"
    ? seeOther(`/console/standing?${done}=${reply.value.standingId}`)
    : problemResponse(problem("INTERNAL", "The console answered a page to a form."));
}

function page(
  method: "get" | "post",
  path: string,
  summary: string,
  operation: Operation,
  handler: Handler<{ Bindings: Env }>,
): Route {
  return { method, path, summary, operation, documented: false, cors: false, problems: [], handlers: [handler] };
}

/** The console's standing approvals pages (never in the OpenAPI document, never offered to other origins). */
export const standingConsoleRoutes: RouteModule = {
  routes: [
    page("get", "/console/standing", "The standing approvals page.", "listStanding", async (c) => {
      const approval = c.req.query("approval");
      const reply = await sessionCall(c, {
        kind: "page",
        approvalId: approval !== undefined && APPROVAL_ID.test(approval) ? approval : null,
      });
      if (reply === null || (!reply.ok && reply.error.code === "UNAUTHENTICATED"))
        return seeOther("/console?ended", { "set-cookie": CLEARED_SESSION_COOKIE });
      if (!reply.ok) return problemResponse(reply.error);
      return reply.value.kind === "page"
        ? htmlResponse(standingPage(reply.value.page, noticeOf(c.req.query())))
        : problemResponse(UNAUTHENTICATED);
    }),
    page(
      "post",
      "/console/standing",
      "A grant (with Approve and allow: the approval too).",
      "grantStanding",
      async (c) => {
        const refused = originRefusal(c.req.raw);
        if (refused !== null) return problemResponse(refused);
        const form = await readForm(c.req.raw, GrantForm);
        if (!form.ok) return problemResponse(form.error);
        const f = form.value;
        const constraint = f.constraint === undefined || f.constraint === "" ? {} : { constraint: f.constraint };
        const grant = StandingApprovalGrant.safeParse({
          tool: f.tool,
          subject_id: f.subject_id,
          seconds: Number(f.seconds),
          max_calls: Number(f.max_calls),
          ...constraint,
        });
        if (!grant.success) return seeOther("/console/standing?problem=INVALID_REQUEST");
        const approve =
          f.approval_id === undefined || f.approval_digest === undefined
            ? null
            : { approvalId: f.approval_id, digest: f.approval_digest };
        return afterPost(await sessionCall(c, { kind: "grant", csrf: f.csrf, grant: grant.data, approve }), "granted");
      },
    ),
    page("post", "/console/standing/{standing_approval_id}/revoke", "A revocation.", "revokeStanding", async (c) => {
      const refused = originRefusal(c.req.raw);
      if (refused !== null) return problemResponse(refused);
      const id = pathParam(c, "standing_approval_id");
      if (!StandingApprovalId.safeParse(id).success)
        return problemResponse(problem("NOT_FOUND", "No such standing approval."));
      const form = await readForm(c.req.raw, RevokeForm);
      if (!form.ok) return problemResponse(form.error);
      return afterPost(await sessionCall(c, { kind: "revoke", csrf: form.value.csrf, standingId: id }), "revoked");
    }),
  ],
};
