/**
 * The discovery documents and the library's protocol endpoints: protected resource metadata
 * (RFC 9728) per consumer, authorization server metadata (RFC 8414), token and revocation,
 * dynamic client registration (RFC 7591).
 * @module
 */
import type { Context } from "hono";
import { ConsumerName } from "../../../contracts/consumer";
import { readJson } from "../../../core/json";
import { isJsonObject } from "../../../core/tool-schema/scalars";
import { readCappedBytes } from "../../http/body";
import type { Env } from "../../env";
import { problem, problemResponse } from "../../http/problem";
import { consumerOfToken } from "./grant-user";
import { mcpResource } from "./resource";
import { oauthError } from "./error-answer";
import { revokeGrant } from "./revocation";
import { oauthOrigin, oauthServer, UNUSED_REGISTRATION_TTL_SECONDS } from "./server";
import { addressKey, registrations, throttled } from "./throttle";

type OAuthContext = Context<{ Bindings: Env }>;

/** Largest token request read (codes, refresh tokens and client credentials are far below it). */
const MAX_TOKEN_REQUEST_BYTES = 16_384;

/**
 * Largest client registration read (RFC 7591 metadata: a few URIs and names; a `jwks` of several
 * RSA keys stays well below it). The library itself would read up to 1 MiB.
 */
export const MAX_REGISTRATION_BYTES = 65_536;

/** The answer when this deployment or origin has no OAuth. */
export function notConfigured(): Response {
  return problemResponse(
    problem(
      "OAUTH_NOT_CONFIGURED",
      "OAuth sign-in is not configured on this gate (no OAUTH_KV binding, or an origin that is neither https nor loopback).",
    ),
  );
}

/**
 * Browser MCP clients (the Inspector) read the metadata cross-origin: it is public, and bearer
 * tokens are no ambient credential, so any origin may read it (as the library does for its own).
 */
export function withCors(response: Response, request: Request): Response {
  const origin = request.headers.get("origin");
  if (origin === null) return response;
  const res = new Response(response.body, response);
  res.headers.set("access-control-allow-origin", origin);
  res.headers.set("access-control-allow-methods", "GET, HEAD, OPTIONS");
  res.headers.set("access-control-allow-headers", "Authorization, MCP-Protocol-Version, *");
  res.headers.set("access-control-expose-headers", "WWW-Authenticate");
  res.headers.append("vary", "Origin");
  return res;
}

/** `GET /.well-known/oauth-protected-resource/v1/consumers/{consumer}/mcp` (RFC 9728 §3). */
export function protectedResourceMetadata(c: OAuthContext): Response {
  const consumer = c.req.param("consumer") ?? "";
  if (!ConsumerName.safeParse(consumer).success) return problemResponse(problem("NOT_FOUND", "No such consumer."));
  const origin = oauthOrigin(new URL(c.req.url), c.env);
  if (origin === null) return notConfigured();
  // No `scopes_supported`: the scopes are the consumer's tool names, and an anonymous reader must
  // not learn them (nor wake the consumer's object). Clients then ask for no scope, and the user
  // picks the tools on the consent page.
  const metadata = {
    resource: mcpResource(origin, consumer),
    authorization_servers: [origin],
    bearer_methods_supported: ["header"],
    resource_name: `toolgate MCP endpoint of ${consumer}`,
  };
  return withCors(Response.json(metadata), c.req.raw);
}

/**
 * `GET /.well-known/oauth-authorization-server` (RFC 8414), the library's document without
 * `protected_resources`: every consumer's MCP endpoint is a resource, and they are not listed to
 * anyone (each endpoint's own metadata names this issuer).
 */
export async function authorizationServerMetadata(c: OAuthContext): Promise<Response> {
  const oauth = await oauthServer(new URL(c.req.url), c.env, null);
  if (oauth === null) return notConfigured();
  const answer = await oauth.server.fetch(c.req.raw, c.env, c.executionCtx);
  if (answer.status !== 200) return answer;
  const read = readJson(await answer.text());
  if (!read.ok || !isJsonObject(read.value)) {
    throw new Error("the OAuth library answered metadata that is not a JSON object");
  }
  const { protected_resources: _unlisted, ...metadata } = read.value;
  return new Response(JSON.stringify(metadata), { status: 200, headers: answer.headers });
}

/**
 * `POST /oauth/token` (and its revocation requests): the library answers, with the authorization
 * server of the consumer named at the head of the presented code or token (its grant's user id),
 * so the grant's audience is that consumer's endpoint. The body is read once, capped.
 */
export async function tokenEndpoint(c: OAuthContext): Promise<Response> {
  const url = new URL(c.req.url);
  if (oauthOrigin(url, c.env) === null) return notConfigured();
  const raw = c.req.raw;
  const bytes = await readCappedBytes(raw, MAX_TOKEN_REQUEST_BYTES);
  if (!bytes.ok) return oauthError(413, "invalid_request", bytes.error.detail, c.req.header("origin") ?? null);
  const form = new URLSearchParams(new TextDecoder().decode(bytes.value));
  const presented = form.get("code") ?? form.get("refresh_token") ?? form.get("token") ?? "";
  const consumer = await consumerOfToken(presented, c.env);
  const oauth = await oauthServer(url, c.env, consumer);
  if (oauth === null) return notConfigured();
  const request = new Request(raw.url, {
    method: raw.method,
    headers: raw.headers,
    body: raw.method === "POST" ? bytes.value : null,
  });
  // A revocation (RFC 7009: a token and no grant type) of a token of ours ends its whole grant.
  const revocation = form.get("grant_type") === null && form.get("token") !== null;
  if (revocation && consumer !== null) return revokeGrant(oauth, consumer, presented, request, c.env, c.executionCtx);
  return oauth.server.fetch(request, c.env, c.executionCtx);
}

/**
 * `POST /oauth/register`: the library registers, within the registration limits
 * (throttle.ts); a client stays registered for an hour unless it exchanges a code by then. The
 * body is untrusted text like any other: read once, capped at {@link MAX_REGISTRATION_BYTES},
 * and it must be strict JSON (no member named twice, well-formed strings, bounded nesting)
 * holding an object before the library, which reads it with `JSON.parse`, sees those same bytes.
 */
export async function registerEndpoint(c: OAuthContext): Promise<Response> {
  const oauth = await oauthServer(new URL(c.req.url), c.env, null, UNUSED_REGISTRATION_TTL_SECONDS);
  if (oauth === null) return notConfigured();
  const origin = c.req.header("origin") ?? null;
  const wait = registrations.take(addressKey(c.req.header("cf-connecting-ip") ?? null), Date.now());
  if (wait !== null) return throttled(wait, "client registrations", origin);
  const raw = c.req.raw;
  const bytes = await readCappedBytes(raw, MAX_REGISTRATION_BYTES);
  if (!bytes.ok) return oauthError(413, "invalid_request", bytes.error.detail, origin);
  const read = readJson(bytes.value, { maxBytes: MAX_REGISTRATION_BYTES });
  if (!read.ok) return oauthError(400, "invalid_client_metadata", `${read.error.code}: ${read.error.message}`, origin);
  if (!isJsonObject(read.value))
    return oauthError(400, "invalid_client_metadata", "The registration is not a JSON object.", origin);
  const request = new Request(raw.url, { method: raw.method, headers: raw.headers, body: bytes.value });
  return oauth.server.fetch(request, c.env, c.executionCtx);
}

/** The protocol endpoints' preflights and metadata variants: the library answers as it is. */
export async function libraryEndpoint(c: OAuthContext): Promise<Response> {
  const oauth = await oauthServer(new URL(c.req.url), c.env, null);
  return oauth === null ? notConfigured() : oauth.server.fetch(c.req.raw, c.env, c.executionCtx);
}
