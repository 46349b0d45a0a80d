/**
 * OAuth 2.1 sign-in of MCP clients (MCP authorization 2025-06-18 and 2025-11-25): the discovery
 * documents, the library's token and registration endpoints, and the consent page. The MCP
 * endpoint's side is `mcpBearer` and `mcpChallenge` (bearer.ts), which the MCP route module registers on its path.
 * @module
 */
import type { Context } from "hono";
import {
  AuthorizationServerMetadata,
  OAuthClientInformation,
  OAuthClientMetadata,
  OAuthConsentForm,
  OAuthError,
  OAuthTokenRequest,
  OAuthTokenResponse,
  ProtectedResourceMetadata,
} from "../../../contracts/oauth";
import type { Env } from "../../env";
import type { HeaderDoc } from "../../http/openapi/operation";
import type { Route, RouteModule } from "../../http/route";
import { authorizeDecision, authorizePage } from "./authorize";
import {
  authorizationServerMetadata,
  libraryEndpoint,
  protectedResourceMetadata,
  registerEndpoint,
  tokenEndpoint,
  withCors,
} from "./endpoints";
import { PRM_PREFIX } from "./resource";
import { REGISTER_PATH, TOKEN_PATH } from "./server";
import { DOCS } from "../../../contracts/docs";

const PRM_PATH = `${PRM_PREFIX}/v1/consumers/{consumer}/mcp`;

const LOCATION: HeaderDoc = {
  description: DOCS ? "The client's redirect URI with the answer's parameters." : "",
  schema: { type: "string" },
  required: true,
};
const RETRY_AFTER: HeaderDoc = {
  description: DOCS ? "Seconds until this address (or this server) may send another." : "",
  schema: { type: "integer", minimum: 1 },
  required: true,
};
/** The anonymous endpoints' rate limits (per client address, and per server): docs/mcp.md, "Limits". */
const THROTTLED = {
  status: 429,
  schema: OAuthError,
  description: DOCS ? "`temporarily_unavailable`: too many requests from this address or on this server." : "",
  headers: { "Retry-After": RETRY_AFTER },
} as const;

/** A CORS preflight the OAuth library answers itself (browser-based MCP clients): routed, never documented. */
function preflight(path: string, handler: Route["handlers"]): Route {
  return {
    method: "options",
    path,
    summary: DOCS ? "CORS preflight." : "",
    operation: "none",
    documented: false,
    problems: [],
    handlers: handler,
  };
}

/** The OAuth routes (their bodies are OAuth's forms and JSON, RFC 6749 and RFC 7591). */
export const oauthRoutes: RouteModule = {
  routes: [
    {
      method: "get",
      path: "/.well-known/oauth-protected-resource/v1/consumers/{consumer}/mcp",
      summary: DOCS
        ? "Protected resource metadata (RFC 9728) of a consumer's MCP endpoint: the resource and its authorization server (this gate)."
        : "",
      operation: "none",
      response: { status: 200, schema: ProtectedResourceMetadata, description: DOCS ? "The endpoint's metadata." : "" },
      problems: ["NOT_FOUND", "OAUTH_NOT_CONFIGURED"],
      handlers: [protectedResourceMetadata],
    },
    {
      method: "get",
      path: "/.well-known/oauth-authorization-server",
      summary: DOCS
        ? "Authorization server metadata (RFC 8414): authorization code with S256 PKCE, refresh tokens, dynamic registration, revocation."
        : "",
      operation: "none",
      response: { status: 200, schema: AuthorizationServerMetadata, description: DOCS ? "The metadata document." : "" },
      problems: ["OAUTH_NOT_CONFIGURED"],
      handlers: [authorizationServerMetadata],
    },
    {
      method: "get",
      path: "/oauth/authorize",
      summary: DOCS
        ? "The sign-in and consent page of an MCP client: a subject-bound agent credential of the consumer named by `resource`, and the tools to grant."
        : "",
      operation: "none",
      response: {
        status: 200,
        text: "text/html",
        description: DOCS ? "The page; errors of a validated request redirect to the client (RFC 6749 §4.1.2.1)." : "",
      },
      alsoResponses: [
        {
          status: 302,
          description: DOCS ? "An error of a validated request, back to the client's redirect URI." : "",
          headers: { Location: LOCATION },
        },
        THROTTLED,
      ],
      problems: ["INVALID_REQUEST", "OAUTH_NOT_CONFIGURED"],
      handlers: [authorizePage],
    },
    {
      method: "post",
      path: "/oauth/authorize",
      summary: DOCS
        ? "The consent form (application/x-www-form-urlencoded): Allow mints the grant's credential and redirects with the code; Deny redirects with access_denied."
        : "",
      operation: "none",
      request: OAuthConsentForm,
      requestMedia: "application/x-www-form-urlencoded",
      response: {
        status: 302,
        description: DOCS ? "Back to the client's redirect URI, with the code or `access_denied`." : "",
        headers: { Location: LOCATION },
      },
      alsoResponses: [
        {
          status: 200,
          text: "text/html",
          description: DOCS ? "The page again, saying why: the sign-in credential or the tool choice was refused." : "",
        },
        THROTTLED,
      ],
      problems: ["INVALID_REQUEST", "UNSUPPORTED_MEDIA_TYPE", "BODY_TOO_LARGE", "OAUTH_NOT_CONFIGURED"],
      handlers: [authorizeDecision],
    },
    {
      method: "post",
      path: "/oauth/token",
      summary: DOCS
        ? "Token endpoint (authorization_code with PKCE, refresh_token) and revocation (RFC 7009: revoking either token ends the whole grant and its credential); OAuth error bodies (RFC 6749 §5.2)."
        : "",
      operation: "none",
      request: OAuthTokenRequest,
      requestMedia: "application/x-www-form-urlencoded",
      response: {
        status: 200,
        schema: OAuthTokenResponse,
        description: DOCS ? "The tokens (a revocation answers 200 with an empty body)." : "",
      },
      alsoResponses: [
        { status: 400, schema: OAuthError, description: DOCS ? "An OAuth error (RFC 6749 §5.2)." : "" },
        { status: 401, schema: OAuthError, description: DOCS ? "`invalid_client` (RFC 6749 §5.2)." : "" },
      ],
      problems: ["OAUTH_NOT_CONFIGURED"],
      handlers: [tokenEndpoint],
    },
    {
      method: "post",
      path: "/oauth/register",
      summary: DOCS
        ? "Dynamic client registration (RFC 7591); OAuth error bodies. A registration no client exchanged a code for by then expires after an hour."
        : "",
      operation: "none",
      request: OAuthClientMetadata,
      response: { status: 201, schema: OAuthClientInformation, description: DOCS ? "The registered client." : "" },
      alsoResponses: [
        {
          status: 400,
          schema: OAuthError,
          description: DOCS ? "`invalid_client_metadata` or `invalid_redirect_uri` (RFC 7591 §3.2.2)." : "",
        },
        THROTTLED,
      ],
      problems: ["OAUTH_NOT_CONFIGURED"],
      handlers: [registerEndpoint],
    },
    preflight(PRM_PATH, [(c: Context<{ Bindings: Env }>) => withCors(new Response(null, { status: 204 }), c.req.raw)]),
    preflight("/.well-known/oauth-authorization-server", [libraryEndpoint]),
    preflight(REGISTER_PATH, [libraryEndpoint]),
    preflight(TOKEN_PATH, [libraryEndpoint]),
  ],
};
