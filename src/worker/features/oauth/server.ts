/**
 * The gate's OAuth 2.1 authorization server (`@cloudflare/workers-oauth-provider`), built per
 * request: the issuer is the request's origin, and the one declared resource is the MCP endpoint
 * of the consumer the request is about, so every grant and token is bound to one consumer.
 * @module
 */
import type { OAuthAuthorizationServer, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import * as z from "../../../core/zod";
import type { Env } from "../../env";
import { refuseHiddenDisplayText } from "./client-metadata";
import { objectOf } from "../../http/middleware";
import { issuerOrigin, mcpResource } from "./resource";

/** The sign-in and consent page (ours). */
export const AUTHORIZE_PATH = "/oauth/authorize";
/** Token and revocation (the library's). */
export const TOKEN_PATH = "/oauth/token";
/** Dynamic client registration, RFC 7591 (the library's). */
export const REGISTER_PATH = "/oauth/register";

/**
 * How long a grant lives after its code is exchanged (the library's refresh-token lifetime, fixed,
 * not sliding). The credential a grant carries expires with it, so a grant nobody uses leaves no
 * credential behind for longer than this.
 */
export const GRANT_TTL_SECONDS = 30 * 24 * 3600;

/**
 * How long a dynamic registration lives before its client first exchanges a code: an unused one
 * (anyone may register) is gone after an hour. The first token answer renews it for the library's
 * default 90 days ({@link REGISTRATION_TTL_SECONDS}), and later ones keep renewing it.
 */
export const UNUSED_REGISTRATION_TTL_SECONDS = 3600;

/** How long a registration lives once used (renewed by the library's token answers past half of it). */
export const REGISTRATION_TTL_SECONDS = 90 * 24 * 3600;

/** What a grant carries (encrypted by the library with a key only the token unwraps). */
export const GrantProps = z.deferred(() =>
  z.strictObject({
    consumer: z.string(),
    credential: z.string().check(z.startsWith("tg_agent_")),
  }),
);

/** Grant props, as stored by the consent handler. */
export type GrantProps = z.infer<typeof GrantProps>;

/** An authorization server for one origin, and the resource it declares. */
export interface OAuthServer {
  readonly origin: string;
  /** The consumer whose MCP endpoint is the declared resource; `null` for requests about no consumer. */
  readonly consumer: string | null;
  readonly resource: string;
  readonly server: OAuthAuthorizationServer<Env>;
  readonly api: OAuthHelpers;
}

/** The issuer for a request of this URL, or `null` when OAuth is not configured (no `OAUTH_KV`, or an origin that cannot be an issuer). */
export function oauthOrigin(url: URL, env: Env): string | null {
  return env.OAUTH_KV === undefined ? null : issuerOrigin(url);
}

/**
 * The library, loaded on first use: a request that involves no OAuth (every credential call, the
 * challenge, the resource metadata) never evaluates it.
 */
export function oauthLibrary(): Promise<typeof import("./library")> {
  return import("./library");
}

/**
 * The authorization server answering a request of this URL, about a consumer's MCP endpoint
 * (`null`: discovery, registration, consent transactions, which concern no resource). `null` when
 * OAuth is not configured ({@link oauthOrigin}). `registrationTtl`: the lifetime of a client it
 * registers or renews.
 */
export async function oauthServer(
  url: URL,
  env: Env,
  consumer: string | null,
  registrationTtl = REGISTRATION_TTL_SECONDS,
): Promise<OAuthServer | null> {
  const origin = oauthOrigin(url, env);
  if (origin === null) return null;
  const { OAuthAuthorizationServer, OAuthError } = await oauthLibrary();
  // The library needs one declared resource; requests about no consumer get a path no grant can name.
  const resource = consumer === null ? `${origin}/v1/consumers` : mcpResource(origin, consumer);
  const server = new OAuthAuthorizationServer<Env>({
    issuer: origin,
    resources: [resource],
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    refreshTokenTTL: GRANT_TTL_SECONDS,
    // A client's name and other display fields never hold bidi controls or invisible characters.
    clientRegistrationCallback: refuseHiddenDisplayText,
    clientRegistrationTTL: registrationTtl,
    // A code or refresh token is honoured only while the grant's credential works: once the gate
    // revokes it (an administrator, a newer grant, the subject's cap), the grant ends here.
    async tokenExchangeCallback({ props }) {
      const grant = GrantProps.safeParse(props);
      const stub = grant.success ? objectOf(env, grant.data.consumer) : null;
      if (grant.success && stub !== null && (await stub.oauthLive(grant.data.consumer, grant.data.credential))) return;
      throw new OAuthError("invalid_grant", {
        description: "The access this grant carried was revoked or expired; sign in again.",
      });
    },
    onError({ status, code, internal }) {
      // The library's internal reason names the failed check; it never carries a secret.
      console.warn(`toolgate: oauth ${status} ${code} (${internal.category}/${internal.reason})`);
    },
  });
  return { origin, consumer, resource, server, api: server.getOAuthApi(env) };
}
