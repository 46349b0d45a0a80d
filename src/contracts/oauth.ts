import * as z from "../core/zod";
import { httpSchemas } from "./registry";
import { DOCS } from "./docs";

/**
 * The OAuth answers of MCP sign-in, as the document shows them. The authorization server is
 * @cloudflare/workers-oauth-provider: its documents follow RFC 8414, 6749 and 7591 and may carry
 * members beyond the ones listed (open objects); the protected resource metadata is the gate's.
 * @module
 */

/** RFC 9728 metadata of a consumer's MCP endpoint. */
export const ProtectedResourceMetadata = z.deferred(() =>
  z
    .strictObject({
      resource: z.string().check(z.describe(DOCS ? "The consumer's MCP endpoint URL." : "")),
      authorization_servers: z.array(z.string()).check(z.length(1)),
      bearer_methods_supported: z.array(z.literal("header")),
      resource_name: z.string(),
    })
    .register(httpSchemas, { id: "ProtectedResourceMetadata" }),
);

/** RFC 8414 authorization server metadata. */
export const AuthorizationServerMetadata = z.deferred(() =>
  z
    .looseObject({
      issuer: z.string(),
      authorization_endpoint: z.string(),
      token_endpoint: z.string(),
      registration_endpoint: z.optional(z.string()),
      revocation_endpoint: z.optional(z.string()),
      response_types_supported: z.array(z.string()),
      grant_types_supported: z.optional(z.array(z.string())),
      code_challenge_methods_supported: z.optional(z.array(z.string())),
      token_endpoint_auth_methods_supported: z.optional(z.array(z.string())),
    })
    .register(httpSchemas, { id: "AuthorizationServerMetadata" }),
);

/** RFC 6749 §5.1 access token answer. */
export const OAuthTokenResponse = z.deferred(() =>
  z
    .looseObject({
      access_token: z.string(),
      token_type: z.string(),
      expires_in: z.optional(z.int()),
      refresh_token: z.optional(z.string()),
      scope: z.optional(z.string()),
    })
    .register(httpSchemas, { id: "OAuthTokenResponse" }),
);

/** RFC 7591 §3.2.1 client information. */
export const OAuthClientInformation = z.deferred(() =>
  z
    .looseObject({ client_id: z.string(), redirect_uris: z.array(z.string()), client_secret: z.optional(z.string()) })
    .register(httpSchemas, { id: "OAuthClientInformation" }),
);

/** RFC 7591 §2 client metadata, as a client registers itself. */
export const OAuthClientMetadata = z.deferred(() =>
  z
    .looseObject({
      redirect_uris: z.array(z.string()).check(z.minLength(1)),
      client_name: z.optional(z.string()),
      token_endpoint_auth_method: z.optional(z.string()),
    })
    .register(httpSchemas, { id: "OAuthClientMetadata" }),
);

/** RFC 6749 §5.2 (and RFC 7591 §3.2.2) error answer. */
export const OAuthError = z.deferred(() =>
  z
    .looseObject({ error: z.string(), error_description: z.optional(z.string()) })
    .register(httpSchemas, { id: "OAuthError" }),
);

/** RFC 6749 §4.1.3 / §6 token request (a form), or an RFC 7009 revocation (`token`). */
export const OAuthTokenRequest = z.deferred(() =>
  z
    .looseObject({
      grant_type: z
        .optional(z.enum(["authorization_code", "refresh_token"]))
        .check(z.describe(DOCS ? "Absent for a revocation." : "")),
      code: z.optional(z.string()),
      redirect_uri: z.optional(z.string()),
      code_verifier: z.optional(z.string()),
      refresh_token: z.optional(z.string()),
      client_id: z.optional(z.string()),
      resource: z.optional(z.string()),
      token: z.optional(z.string()).check(z.describe(DOCS ? "The token to revoke (RFC 7009)." : "")),
    })
    .register(httpSchemas, { id: "OAuthTokenRequest" }),
);

/** The consent form (`POST /oauth/authorize`), as the page sends it. */
export const OAuthConsentForm = z.deferred(() =>
  z
    .looseObject({
      handle: z.string().check(z.describe(DOCS ? "The pending authorization the page was shown for." : "")),
      decision: z.string().check(z.describe(DOCS ? "`approve` mints the grant; anything else denies it." : "")),
      credential: z
        .optional(z.string())
        .check(z.describe(DOCS ? "With approve: a subject-bound agent credential of the consumer." : "")),
      tool: z.optional(z.string()).check(z.describe(DOCS ? "A tool to grant; repeated for each." : "")),
      more_tools: z.optional(z.string()).check(z.describe(DOCS ? "More tool names, separated by white space." : "")),
      all_tools: z.optional(z.literal("1")).check(z.describe(DOCS ? "Grant every tool the credential may call." : "")),
    })
    .register(httpSchemas, { id: "OAuthConsentForm" }),
);
