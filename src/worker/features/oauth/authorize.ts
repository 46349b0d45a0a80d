/**
 * `GET/POST /oauth/authorize`: an MCP client's sign-in. The user pastes a subject-bound agent
 * credential of the consumer (given by an administrator) and chooses tools; the consumer's object
 * mints a new credential for the same subject, narrowed to those tools, and the grant carries it.
 * The request is validated and kept server-side by the library's consent transaction, whose
 * handle works once, in the browser that opened the page (CSRF-safe).
 * @module
 */
import type { AuthRequest } from "@cloudflare/workers-oauth-provider";
import type { Context } from "hono";
import { keyedCredential } from "../../http/auth";
import { mediaType, readCappedBytes } from "../../http/body";
import type { Env } from "../../env";
import type { OAuthGrant } from "../credentials/oauth-grant";
import { problem, problemResponse, type Problem } from "../../http/problem";
import { objectOf } from "../../http/middleware";
import { notConfigured } from "./endpoints";
import { grantUserId } from "./grant-user";
import { consentPage, initialChoice, PAGE_HEADERS, type ConsentChoice } from "./page";
import { consumerOfResource } from "./resource";
import { GRANT_TTL_SECONDS, oauthLibrary, oauthServer, type GrantProps, type OAuthServer } from "./server";
import { endGrantsOf } from "./revocation";
import { addressKey, authorizations, throttled } from "./throttle";

type OAuthContext = Context<{ Bindings: Env }>;

/** Largest consent form read. */
const MAX_FORM_BYTES = 16_384;
/** An OAuth scope token (RFC 6749 §3.3), at most 128 characters: the tool names a grant may name. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/;

/**
 * The sign-in page's limits (throttle.ts): each view and each form stores a consent transaction,
 * for anyone. `null`: go on.
 */
function overLimit(c: OAuthContext): Response | null {
  const wait = authorizations.take(addressKey(c.req.header("cf-connecting-ip") ?? null), Date.now());
  return wait === null ? null : throttled(wait, "sign-in requests");
}

/** `GET /oauth/authorize`: validates the authorization request and shows the page. */
export async function authorizePage(c: OAuthContext): Promise<Response> {
  const url = new URL(c.req.url);
  const base = await oauthServer(url, c.env, null);
  if (base === null) return notConfigured();
  const limited = overLimit(c);
  if (limited !== null) return limited;
  const resources = url.searchParams.getAll("resource");
  const consumer = resources.length === 1 ? consumerOfResource(base.origin, resources[0] ?? "") : null;
  const oauth = consumer === null ? base : await oauthServer(url, c.env, consumer);
  if (oauth === null) return notConfigured();
  let request: AuthRequest;
  try {
    request = await oauth.api.parseAuthRequest(c.req.raw);
  } catch (error) {
    return await authorizationFailure(error);
  }
  // Client and redirect URI are validated: a missing resource may go back to the client.
  const { authorizationErrorRedirect } = await oauthLibrary();
  if (consumer === null)
    return redirect(
      authorizationErrorRedirect(
        request,
        "invalid_target",
        "The resource parameter must name one consumer's MCP endpoint.",
      ),
    );
  return showPage(oauth, request, consumer, initialChoice(request.scope), null, null);
}

/** `POST /oauth/authorize`: Deny, or Allow with a sign-in credential and a choice of tools. */
export async function authorizeDecision(c: OAuthContext): Promise<Response> {
  const url = new URL(c.req.url);
  const base = await oauthServer(url, c.env, null);
  if (base === null) return notConfigured();
  const limited = overLimit(c);
  if (limited !== null) return limited;
  const form = await readForm(c.req.raw);
  if (form instanceof Response) return form;
  const handle = form.get("handle") ?? "";
  let approved: { request: AuthRequest; headers: Headers };
  try {
    if (form.get("decision") !== "approve") {
      const denied = await base.api.denyConsent(c.req.raw, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    approved = await base.api.approveConsent(c.req.raw, handle);
  } catch (error) {
    return await authorizationFailure(error);
  }
  const consumer = consumerOfResource(base.origin, approved.request.resource ?? "");
  const oauth = consumer === null ? null : await oauthServer(url, c.env, consumer);
  if (consumer === null || oauth === null) throw new Error("a consent transaction holds a request for no consumer");
  // The transaction is spent: a refusal shows the page again under a new one.
  const choice = choiceOf(form);
  const again = (message: string) => showPage(oauth, approved.request, consumer, choice, message, approved.headers);
  const names = [...choice.tools, ...choice.more.split(/\s+/).filter((name) => name !== "")];
  const invalid = names.find((name) => !SCOPE_TOKEN.test(name));
  if (invalid !== undefined) return again(`"${invalid}" is not a tool name.`);
  if (!choice.all && names.length === 0)
    return again("Choose at least one tool, or every tool your sign-in credential may call.");
  const secret = (form.get("credential") ?? "").trim();
  const stub = objectOf(c.env, consumer);
  // The Worker checks the credential's keyed tag first: a wrong or foreign token never wakes the object.
  if (keyedCredential(secret, consumer, c.env) === null || stub === null)
    return again(refusal(consumer, { code: "UNAUTHENTICATED", detail: "" }));
  const granted = await stub.oauthGrant(consumer, secret, {
    tools: choice.all ? null : names,
    clientId: approved.request.clientId,
    maxLifetimeSeconds: GRANT_TTL_SECONDS,
  });
  if (!granted.ok) return again(refusal(consumer, granted.error));
  const userId = await grantUserId(consumer, granted.value.subjectId, c.env);
  if (userId === null) throw new Error("a credential signed in without a token key");
  const { redirectTo } = await oauth.api.completeAuthorization({
    request: approved.request,
    userId,
    scope: [...granted.value.tools],
    props: { consumer, credential: granted.value.secret } satisfies GrantProps,
    metadata: grantMetadata(consumer, granted.value),
  });
  // The library replaced this client's earlier grant; the grants of credentials beyond the subject's cap end here.
  await endGrantsOf(oauth, userId, granted.value.ended);
  approved.headers.set("location", redirectTo);
  return new Response(null, { status: 302, headers: approved.headers });
}

/** What the grant records in the clear (the library's grant listing): never the secret. */
function grantMetadata(consumer: string, grant: OAuthGrant): Record<string, unknown> {
  return { consumer, subject_id: grant.subjectId, credential_id: grant.credentialId, expires_at: grant.expiresAt };
}

/** What the user is told when the object refuses the sign-in credential or the choice. */
function refusal(consumer: string, error: Pick<Problem, "code" | "detail">): string {
  switch (error.code) {
    case "UNAUTHENTICATED":
      return `That sign-in credential is not valid for ${consumer}: paste all of it, and ask an administrator for a new one if it expired or was revoked.`;
    case "FORBIDDEN":
      return "Sign in with an agent credential bound to you as a subject (an administrator issues it with a subject_id).";
    default:
      return error.detail;
  }
}

/** The page for a request, under a new consent transaction (`spent`: the headers of the one just used). */
async function showPage(
  oauth: OAuthServer,
  request: AuthRequest,
  consumer: string,
  choice: ConsentChoice,
  error: string | null,
  spent: Headers | null,
): Promise<Response> {
  const details = await oauth.api.describeConsent(request);
  const consent = await oauth.api.beginConsent(request);
  const headers = new Headers(PAGE_HEADERS);
  for (const from of [spent, consent.headers])
    for (const cookie of from?.getAll("set-cookie") ?? []) headers.append("set-cookie", cookie);
  headers.set("cache-control", "no-store");
  headers.set("x-frame-options", "DENY");
  const html = consentPage({
    consumer,
    clientName: details.clientName,
    redirectUri: details.redirectUri,
    redirectIsLoopback: details.redirectIsLoopback,
    requested: details.scope,
    handle: consent.handle,
    choice,
    error,
  });
  return new Response(html, { status: 200, headers });
}

function choiceOf(form: URLSearchParams): ConsentChoice {
  return {
    tools: form.getAll("tool"),
    more: (form.get("more_tools") ?? "").slice(0, 4096),
    all: form.get("all_tools") === "1",
  };
}

async function readForm(request: Request): Promise<URLSearchParams | Response> {
  if (mediaType(request.headers.get("content-type")) !== "application/x-www-form-urlencoded")
    return problemResponse(problem("UNSUPPORTED_MEDIA_TYPE", "Send the form as application/x-www-form-urlencoded."));
  const bytes = await readCappedBytes(request, MAX_FORM_BYTES);
  return bytes.ok ? new URLSearchParams(new TextDecoder().decode(bytes.value)) : problemResponse(bytes.error);
}

function redirect(location: string): Response {
  return new Response(null, { status: 302, headers: { location, "cache-control": "no-store" } });
}

/**
 * A failed authorization request: back to the client when the library validated where to
 * (RFC 6749 §4.1.2.1), otherwise answered here and never redirected.
 */
async function authorizationFailure(error: unknown): Promise<Response> {
  const { AuthorizationError, CimdFetchError } = await oauthLibrary();
  if (error instanceof AuthorizationError && error.redirectTo !== undefined) return redirect(error.redirectTo);
  if (error instanceof AuthorizationError) return problemResponse(problem("INVALID_REQUEST", error.description));
  if (error instanceof CimdFetchError)
    return problemResponse(problem("INVALID_REQUEST", "The client's metadata document could not be resolved."));
  throw error;
}
