/**
 * The names OAuth uses for the gate's MCP endpoints: each consumer's endpoint is its own
 * protected resource (RFC 8707 audience), and the Worker's origin is the one issuer (a grant's
 * user id: grant-user.ts).
 * @module
 */
import { ConsumerName } from "../../../contracts/consumer";

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
