/**
 * The MCP endpoint as an OAuth protected resource: OAuth access tokens become the gate credential
 * their grant carries, and every `401` points the client at the resource's metadata.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { ConsumerName } from "../../../contracts/consumer";
import { isAdmin } from "../../http/auth";
import { bearerToken } from "../credentials/format";
import type { Env } from "../../env";
import { consumerOfToken } from "./grant-user";
import { metadataUrl } from "./resource";
import { GrantProps, oauthOrigin, oauthServer } from "./server";

type OAuthEnv = { Bindings: Env };

/**
 * An OAuth access token of the gate's authorization server, presented to a consumer's MCP
 * endpoint, becomes `Authorization: Bearer <the credential of its grant>`, so the route
 * authenticates that credential as usual: its revocation or expiry ends the OAuth access at once.
 * Gate credentials and the admin secret pass untouched; a token that does not validate for this
 * consumer's endpoint (unknown, expired, revoked, another consumer's) passes untouched too, and
 * the route answers its one `401`.
 */
export function mcpBearer(): MiddlewareHandler<OAuthEnv> {
  return async function mcpBearer(c, next) {
    const consumer = c.req.param("consumer") ?? "";
    const token = bearerToken(c.req.header("authorization") ?? null);
    // An OAuth token's head seals its grant's consumer; any other token is not one for this endpoint.
    if (
      token !== null &&
      !token.startsWith("tg_") &&
      !isAdmin(c) &&
      (await consumerOfToken(token, c.env)) === consumer
    ) {
      const oauth = await oauthServer(new URL(c.req.url), c.env, consumer);
      const valid = oauth === null ? null : await oauth.server.validateToken(oauth.resource, token, c.env);
      const props = GrantProps.safeParse(valid?.props);
      if (props.success && props.data.consumer === consumer) {
        const headers = new Headers(c.req.raw.headers);
        headers.set("authorization", `Bearer ${props.data.credential}`);
        c.req.raw = new Request(c.req.raw, { headers });
      }
    }
    await next();
  };
}

/**
 * Every `401` of a consumer's MCP endpoint names its protected resource metadata
 * (RFC 9728 §5.1, MCP authorization): `WWW-Authenticate: Bearer resource_metadata="…"`.
 * Without OAuth configured the route's own challenge stays.
 */
export function mcpChallenge(): MiddlewareHandler<OAuthEnv> {
  return async function mcpChallenge(c, next) {
    await next();
    const consumer = c.req.param("consumer") ?? "";
    if (c.res.status !== 401 || !ConsumerName.safeParse(consumer).success) return;
    const origin = oauthOrigin(new URL(c.req.url), c.env);
    if (origin === null) return;
    const res = new Response(c.res.body, c.res);
    res.headers.set("www-authenticate", `Bearer resource_metadata="${metadataUrl(origin, consumer)}"`);
    // Hono's setter copies the previous response's headers onto a new one: clear it first.
    c.res = undefined;
    c.res = res;
  };
}
