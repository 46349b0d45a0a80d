/**
 * OAuth 2.1 sign-in of MCP clients (MCP authorization 2025-06-18 and 2025-11-25): the discovery
 * documents, the library's token and registration endpoints, and the consent page. The MCP
 * endpoint's side is `mcpBearer` and `mcpChallenge` (bearer.ts), registered before its routes.
 * @module
 */
import { Hono } from "hono";
import type { Env } from "../env";
import type { OperationDoc } from "../openapi";
import { authorizeDecision, authorizePage } from "./authorize";
import { mcpBearer, mcpChallenge } from "./bearer";
import { authorizationServerMetadata, libraryEndpoint, protectedResourceMetadata, tokenEndpoint, withCors } from "./endpoints";
import { PRM_PREFIX } from "./resource";
import { AUTHORIZE_PATH, REGISTER_PATH, TOKEN_PATH } from "./server";

export { mcpBearer, mcpChallenge };

/** The OAuth routes, mounted at `/` by the app. */
export const oauthRoutes = new Hono<{ Bindings: Env }>();

const PRM_PATH = `${PRM_PREFIX}/v1/consumers/:consumer/mcp`;

oauthRoutes.get(PRM_PATH, protectedResourceMetadata);
oauthRoutes.options(PRM_PATH, (c) => withCors(new Response(null, { status: 204 }), c.req.raw));
oauthRoutes.get("/.well-known/oauth-authorization-server", authorizationServerMetadata);
oauthRoutes.options("/.well-known/oauth-authorization-server", libraryEndpoint);
oauthRoutes.post(TOKEN_PATH, tokenEndpoint);
oauthRoutes.on(["POST", "OPTIONS"], REGISTER_PATH, libraryEndpoint);
oauthRoutes.options(TOKEN_PATH, libraryEndpoint);
oauthRoutes.get(AUTHORIZE_PATH, authorizePage);
oauthRoutes.post(AUTHORIZE_PATH, authorizeDecision);

/** OpenAPI descriptions of the OAuth routes (their bodies are OAuth's forms and JSON, RFC 6749 and RFC 7591). */
export const oauthOperations: readonly OperationDoc[] = [
  {
    method: "get",
    path: "/.well-known/oauth-protected-resource/v1/consumers/{consumer}/mcp",
    summary: "Protected resource metadata (RFC 9728) of a consumer's MCP endpoint: the resource and its authorization server (this gate).",
    operation: "none",
    response: { status: 200, description: "`{resource, authorization_servers, bearer_methods_supported, resource_name}`." },
    problems: ["NOT_FOUND", "OAUTH_NOT_CONFIGURED"],
  },
  {
    method: "get",
    path: "/.well-known/oauth-authorization-server",
    summary: "Authorization server metadata (RFC 8414): authorization code with S256 PKCE, refresh tokens, dynamic registration, revocation.",
    operation: "none",
    response: { status: 200, description: "The metadata document." },
    problems: ["OAUTH_NOT_CONFIGURED"],
  },
  {
    method: "get",
    path: "/oauth/authorize",
    summary: "The sign-in and consent page of an MCP client: a subject-bound agent credential of the consumer named by `resource`, and the tools to grant.",
    operation: "none",
    response: { status: 200, description: "HTML; errors of a validated request redirect to the client (RFC 6749 §4.1.2.1)." },
    problems: ["INVALID_REQUEST", "OAUTH_NOT_CONFIGURED"],
  },
  {
    method: "post",
    path: "/oauth/authorize",
    summary: "The consent form (application/x-www-form-urlencoded): Allow mints the grant's credential and redirects with the code; Deny redirects with access_denied.",
    operation: "none",
    response: { status: 302, description: "Back to the client's redirect URI; the page again (200) when the sign-in credential or the tool choice is refused." },
    problems: ["INVALID_REQUEST", "UNSUPPORTED_MEDIA_TYPE", "BODY_TOO_LARGE", "OAUTH_NOT_CONFIGURED"],
  },
  {
    method: "post",
    path: "/oauth/token",
    summary: "Token endpoint (authorization_code with PKCE, refresh_token) and revocation (RFC 7009); OAuth error bodies (RFC 6749 §5.2).",
    operation: "none",
    response: { status: 200, description: "`{access_token, token_type, expires_in, refresh_token, scope, resource}`." },
    problems: ["OAUTH_NOT_CONFIGURED"],
  },
  {
    method: "post",
    path: "/oauth/register",
    summary: "Dynamic client registration (RFC 7591); OAuth error bodies.",
    operation: "none",
    response: { status: 201, description: "The registered client." },
    problems: ["OAUTH_NOT_CONFIGURED"],
  },
];
