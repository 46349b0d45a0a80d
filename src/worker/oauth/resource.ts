/**
 * The names OAuth uses for the gate's MCP endpoints: each consumer's endpoint is its own
 * protected resource (RFC 8707 audience), the Worker's origin is the one issuer, and a grant's
 * user id says which consumer and subject it acts for.
 * @module
 */
import { ConsumerName } from "../../contracts/consumer";

/** Where the protected resource metadata of every MCP endpoint lives (RFC 9728 §3.1). */
export const PRM_PREFIX = "/.well-known/oauth-protected-resource";

/** The MCP endpoint's path of a consumer. */
export function mcpPath(consumer: string): string {
  return `/v1/consumers/${consumer}/mcp`;
}

/** The canonical resource identifier of a consumer's MCP endpoint: the exact URL clients connect to. */
export function mcpResource(origin: string, consumer: string): string {
  return `${origin}${mcpPath(consumer)}`;
}

/** The protected resource metadata URL of a consumer's MCP endpoint (the path inserted after the well-known prefix). */
export function metadataUrl(origin: string, consumer: string): string {
  return `${origin}${PRM_PREFIX}${mcpPath(consumer)}`;
}

/** The consumer whose MCP endpoint a `resource` indicator names exactly on this origin, or `null`. */
export function consumerOfResource(origin: string, resource: string): string | null {
  const prefix = `${origin}/v1/consumers/`;
  if (!resource.startsWith(prefix) || !resource.endsWith("/mcp")) return null;
  const consumer = resource.slice(prefix.length, -"/mcp".length);
  return ConsumerName.safeParse(consumer).success ? consumer : null;
}

/**
 * The origin as an OAuth issuer, or `null` when it cannot be one: OAuth 2.1 and MCP need
 * `https`, or `http` on a loopback host (`wrangler dev`, `npm start`).
 */
export function issuerOrigin(url: URL): string | null {
  if (url.protocol === "https:") return url.origin;
  const host = url.hostname;
  const loopback = host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  return url.protocol === "http:" && loopback ? url.origin : null;
}

/**
 * A grant's user id: `<consumer>/<subject>`, each part percent-encoded, since the library keeps
 * `:` as the separator of its tokens and storage keys (`<user id>:<grant id>:<secret>`).
 */
export function grantUserId(consumer: string, subject: string): string {
  return `${encodeURIComponent(consumer)}/${encodeURIComponent(subject)}`;
}

/**
 * The consumer named by the user id at the head of an authorization code, refresh or access
 * token, or `null`. Only routes the token to the consumer's resource: the library still checks
 * the token itself, and its grant's audience.
 */
export function consumerOfToken(token: string): string | null {
  const userId = token.split(":", 1)[0] ?? "";
  const slash = userId.indexOf("/");
  if (slash < 1 || token.split(":").length !== 3) return null;
  let consumer: string;
  try {
    consumer = decodeURIComponent(userId.slice(0, slash));
  } catch {
    return null;
  }
  return ConsumerName.safeParse(consumer).success ? consumer : null;
}
