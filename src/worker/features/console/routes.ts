/**
 * The approver console's routes (docs/console.md): the sign-in form and the session it opens,
 * the approvals page, one approval's page, the live stream, decisions and sign-out, and the
 * page's script and styles. Every answer carries the console's headers (CSP, nosniff,
 * no-referrer, no-store); every state-changing request must come from the console's own origin
 * and carry the session's CSRF token.
 * @module
 */
import type { Context, Handler } from "hono";
import type { Operation } from "../../../contracts/access";
import { ApprovalDecisionRequest, ApprovalWords } from "../../../contracts/approval";
import { ConsumerName } from "../../../contracts/consumer";
import { PROBLEM_STATUS } from "../../../contracts/problem";
import { Sha256Hex } from "../../../contracts/registry";
import * as z from "../../../core/zod";
import { assetResponse } from "../../assets";
import { keyedCredential } from "../../http/auth";
import { isJsonMediaType, readBody } from "../../http/body";
import { approvalPage, approvalsPage, signInPage, type ConsoleNotice } from "./pages";
import { consoleHeaders, htmlResponse, seeOther } from "./headers";
import { shadowPage } from "./shadow-page";
import {
  CLEARED_SESSION_COOKIE,
  MAX_EDITED_JSON,
  MAX_FORM_BYTES,
  mintSessionId,
  originRefusal,
  readForm,
  sessionCookie,
  sessionOf,
  type ConsoleSessionRef,
} from "./session";
import { tokenKeys } from "../credentials/format";
import type { Env } from "../../env";
import { CONSOLE_SESSION_SECONDS, type ConsoleCall, type ConsoleReply } from "./service";
import { problem, problemResponse, UNAUTHENTICATED, type ProblemCode } from "../../http/problem";
import { ok, type Outcome } from "../../result";
import { canonicalJson } from "../../../core/json";
import { objectOf } from "../../http/middleware";
import { pathParam, type Route, type RouteModule } from "../../http/route";

type ConsoleContext = Context<{ Bindings: Env }>;

const APPROVAL_ID = /^apr_[0-9a-f]{32}$/;
const SIGN_IN_FAILED = "Sign-in failed: this consumer has no approver with this credential. Check both and try again.";
const SignInForm = z.deferred(() =>
  z.strictObject({
    consumer: z.string().check(z.maxLength(64)),
    credential: z.string().check(z.maxLength(512)),
  }),
);
const SignOutForm = z.deferred(() => z.strictObject({ csrf: z.string().check(z.maxLength(128)) }));
const DecisionForm = z.deferred(() =>
  z.strictObject({
    csrf: z.string().check(z.maxLength(128)),
    decision: z.enum(["approve", "deny", "edit"]),
    approval_digest: Sha256Hex,
    // The form always posts its reason field; left empty, it gives none.
    reason: z.optional(z.union([z.literal(""), ApprovalWords])),
    // The edit's arguments as JSON text, posted with every decision of the form; read (strictly) only with an edit.
    arguments: z.optional(z.string().check(z.maxLength(MAX_EDITED_JSON))),
  }),
);

/** A decision as the console reads it, from the script's JSON or the form; an edit's arguments as JSON text. */
interface ConsoleDecision {
  readonly decision: "approve" | "deny" | "edit";
  readonly approval_digest: string;
  readonly reason?: string;
  readonly argumentsJson?: string;
  readonly csrf: string;
}

/** One call of the request's session; `null` when the request names no session this Worker tagged. */
async function sessionCall(
  c: ConsoleContext,
  call: ConsoleCall,
): Promise<{ ref: ConsoleSessionRef; reply: Outcome<ConsoleReply> } | null> {
  const ref = sessionOf(c.req.raw, tokenKeys(c.env));
  const stub = ref === null ? null : objectOf(c.env, ref.consumer);
  if (ref === null || stub === null) return null;
  return { ref, reply: await stub.consoleCall(ref.consumer, ref.sessionId, call) };
}

/** A page read without a live session: back to sign-in (the script's own reads get 401). */
function signInAgain(c: ConsoleContext): Response {
  if (c.req.header("x-console-live") !== undefined) return problemResponse(UNAUTHENTICATED);
  return seeOther("/console?ended", { "set-cookie": CLEARED_SESSION_COOKIE });
}

function unexpected(kind: string): never {
  throw new Error(`a console call answered ${kind}`);
}

function noticeOf(query: Record<string, string>): ConsoleNotice | null {
  const approvalId = query.approval !== undefined && APPROVAL_ID.test(query.approval) ? query.approval : null;
  if (approvalId !== null && (query.decided === "approved" || query.decided === "denied" || query.decided === "edited"))
    return { kind: "decided", approvalId, state: query.decided };
  const code = query.problem;
  if (code !== undefined && Object.hasOwn(PROBLEM_STATUS, code))
    return { kind: "problem", approvalId, code: code as ProblemCode };
  return null;
}

/** A decision and its CSRF token: the script's JSON with the token in `X-CSRF-Token`, or a form (without the script) with a `csrf` field. */
async function decisionBody(c: ConsoleContext, script: boolean): Promise<Outcome<ConsoleDecision>> {
  if (!script) {
    const form = await readForm(c.req.raw, DecisionForm);
    if (!form.ok) return form;
    const { reason, arguments: edited, ...rest } = form.value;
    const words = reason === undefined || reason === "" ? {} : { reason };
    return ok({ ...rest, ...words, ...(rest.decision === "edit" ? { argumentsJson: edited ?? "" } : {}) });
  }
  // A reason of 500 characters each written as `\uXXXX` fits, and an edit's arguments.
  const body = await readBody(c.req.raw, ApprovalDecisionRequest, { maxBytes: MAX_FORM_BYTES });
  if (!body.ok) return body;
  const { arguments: edited, ...rest } = body.value;
  // The strict reader's value written back as canonical JSON: the object reads it again, floats intact.
  const text = edited === undefined ? {} : { argumentsJson: canonicalJson(edited) };
  return ok({ ...rest, ...text, csrf: c.req.header("x-csrf-token") ?? "" });
}

/** A console route: an HTML page or the page's own call, outside the OpenAPI document and CORS. */
function page(
  method: "get" | "post",
  path: string,
  summary: string,
  operation: Operation | "none",
  handler: Handler<{ Bindings: Env }>,
): Route {
  return { method, path, summary, operation, documented: false, cors: false, problems: [], handlers: [handler] };
}

/**
 * The console's routes: same-origin HTML pages with a cookie session (never in the OpenAPI
 * document, never offered to other origins). Every answer under /console carries the console's
 * headers, its 404s and 405s included; static assets (assets/console/) stay outside the bundle.
 */
export const consoleRoutes: RouteModule = {
  use: [
    { path: "/console", handlers: [consoleHeaders()] },
    { path: "/console/*", handlers: [consoleHeaders()] },
  ],
  routes: [
    page("get", "/console/script.js", "The console page's script.", "none", (c) =>
      assetResponse(c.env.ASSETS, "console/script.js", "text/javascript; charset=utf-8"),
    ),
    page("get", "/console/styles.css", "The console page's styles.", "none", (c) =>
      assetResponse(c.env.ASSETS, "console/styles.css", "text/css; charset=utf-8"),
    ),
    page("get", "/console", "The sign-in page.", "none", (c) => {
      const query = c.req.query();
      const info =
        "signed-out" in query
          ? "You are signed out."
          : "ended" in query
            ? "Your session has ended: sign in again."
            : null;
      return htmlResponse(signInPage(null, "", info));
    }),
    page(
      "post",
      "/console/session",
      "Sign in: an approver credential opens a session (cookie).",
      "consoleSignIn",
      async (c) => {
        const refused = originRefusal(c.req.raw);
        if (refused !== null) return problemResponse(refused);
        const form = await readForm(c.req.raw, SignInForm);
        if (!form.ok) return problemResponse(form.error);
        const { consumer, credential } = form.value;
        // The Worker checks the credential's shape, kind and keyed tag first: a forged or foreign one never wakes an object.
        const parsed = ConsumerName.safeParse(consumer).success ? keyedCredential(credential, consumer, c.env) : null;
        const sessionId = parsed?.kind === "approver" ? mintSessionId(consumer, tokenKeys(c.env)) : null;
        const stub = sessionId === null ? null : objectOf(c.env, consumer);
        const signed =
          stub === null || sessionId === null ? null : await stub.consoleSignIn(consumer, credential, sessionId);
        if (signed === null || !signed.ok || sessionId === null)
          return htmlResponse(
            signInPage(SIGN_IN_FAILED, ConsumerName.safeParse(consumer).success ? consumer : "", null),
            401,
          );
        return seeOther("/console/approvals", {
          "set-cookie": sessionCookie(consumer, sessionId, CONSOLE_SESSION_SECONDS),
        });
      },
    ),
    page(
      "get",
      "/console/approvals",
      "The pending approvals and the audit part of the page.",
      "consoleAudit",
      async (c) => {
        const done = await sessionCall(c, { kind: "page" });
        if (done === null || (!done.reply.ok && done.reply.error.code === "UNAUTHENTICATED")) return signInAgain(c);
        if (!done.reply.ok) return problemResponse(done.reply.error);
        const reply = done.reply.value;
        return reply.kind === "page"
          ? htmlResponse(approvalsPage(reply.page, noticeOf(c.req.query())))
          : unexpected(reply.kind);
      },
    ),
    page(
      "get",
      "/console/shadow",
      "The data tools' shadow rules and their disagreements.",
      "consoleShadow",
      async (c) => {
        const done = await sessionCall(c, { kind: "shadow" });
        if (done === null || (!done.reply.ok && done.reply.error.code === "UNAUTHENTICATED")) return signInAgain(c);
        if (!done.reply.ok) return problemResponse(done.reply.error);
        const reply = done.reply.value;
        return reply.kind === "shadow" ? htmlResponse(shadowPage(reply.identity, reply.tools)) : unexpected(reply.kind);
      },
    ),
    page("get", "/console/approvals/{approval_id}", "One approval's page.", "listApprovals", async (c) => {
      const id = pathParam(c, "approval_id");
      if (!APPROVAL_ID.test(id)) return problemResponse(problem("NOT_FOUND", "No such approval."));
      const done = await sessionCall(c, {
        kind: "approval",
        approvalId: id,
        touch: c.req.header("x-console-live") === undefined,
      });
      if (done === null || (!done.reply.ok && done.reply.error.code === "UNAUTHENTICATED")) return signInAgain(c);
      if (!done.reply.ok) return problemResponse(done.reply.error);
      const reply = done.reply.value;
      return reply.kind === "approval"
        ? htmlResponse(approvalPage(reply.identity, id, reply.pending, reply.settled))
        : unexpected(reply.kind);
    }),
    page("get", "/console/events", "The live stream of the page.", "listApprovals", async (c) => {
      const done = await sessionCall(c, { kind: "events" });
      if (done === null) return problemResponse(UNAUTHENTICATED);
      if (!done.reply.ok) return problemResponse(done.reply.error);
      const reply = done.reply.value;
      if (reply.kind !== "stream") return unexpected(reply.kind);
      return new Response(reply.body, {
        headers: { "content-type": "text/event-stream; charset=utf-8", "x-accel-buffering": "no" },
      });
    }),
    page(
      "post",
      "/console/approvals/{approval_id}",
      "A decision (the script's JSON, or the form without it).",
      "decideApproval",
      async (c) => {
        const refused = originRefusal(c.req.raw);
        if (refused !== null) return problemResponse(refused);
        const id = pathParam(c, "approval_id");
        if (!APPROVAL_ID.test(id)) return problemResponse(problem("NOT_FOUND", "No such approval."));
        const script = isJsonMediaType(c.req.header("content-type"));
        const body = await decisionBody(c, script);
        if (!body.ok) return problemResponse(body.error);
        const csrf = body.value.csrf;
        if (csrf === "")
          return problemResponse(problem("CSRF_REFUSED", "The request carries no CSRF token; nothing was changed."));
        const done = await sessionCall(c, {
          kind: "decide",
          csrf,
          approvalId: id,
          decision: body.value.decision,
          approvalDigest: body.value.approval_digest,
          ...(body.value.reason === undefined ? {} : { reason: body.value.reason }),
          ...(body.value.argumentsJson === undefined ? {} : { argumentsJson: body.value.argumentsJson }),
        });
        if (done === null) return problemResponse(UNAUTHENTICATED);
        if (script) {
          if (!done.reply.ok) return problemResponse(done.reply.error);
          return done.reply.value.kind === "decided"
            ? new Response(done.reply.value.json, { headers: { "content-type": "application/json" } })
            : unexpected(done.reply.value.kind);
        }
        // Without the script: back to the list, which says what happened (a refused CSRF token stays a 403).
        if (!done.reply.ok)
          return ["CSRF_REFUSED", "UNAUTHENTICATED"].includes(done.reply.error.code)
            ? problemResponse(done.reply.error)
            : seeOther(`/console/approvals?problem=${done.reply.error.code}&approval=${id}`);
        const state = { approve: "approved", deny: "denied", edit: "edited" }[body.value.decision];
        return seeOther(`/console/approvals?decided=${state}&approval=${id}`);
      },
    ),
    page("post", "/console/sign-out", "Sign out: the session ends.", "consoleSignIn", async (c) => {
      const refused = originRefusal(c.req.raw);
      if (refused !== null) return problemResponse(refused);
      const form = await readForm(c.req.raw, SignOutForm);
      if (!form.ok) return problemResponse(form.error);
      const done = await sessionCall(c, { kind: "signOut", csrf: form.value.csrf });
      if (done !== null && !done.reply.ok && done.reply.error.code !== "UNAUTHENTICATED")
        return problemResponse(done.reply.error);
      return seeOther("/console?signed-out", { "set-cookie": CLEARED_SESSION_COOKIE });
    }),
  ],
};
