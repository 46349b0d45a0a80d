/**
 * DNS-rebinding protection of the MCP endpoint, checked before the credential (docs/mcp.md,
 * "Origin and Host"). A page on `evil.example` whose name an attacker re-points at 127.0.0.1
 * reaches a gate on this machine with its own name as `Host` and `Origin`; the gate refuses it.
 * @module
 */
import { problem, type Problem } from "../../http/problem";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** A loopback host name: `localhost` (and `*.localhost`), 127.0.0.0/8, `[::1]`. */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return LOOPBACK_NAMES.has(name) || name.endsWith(".localhost") || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** A loopback client address as the runtime reports it in `CF-Connecting-IP`. */
function isLoopbackAddress(address: string): boolean {
  const ip = address.trim().toLowerCase();
  return ip === "::1" || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip);
}

/** The host name of a `Host` header value, or null when it is not one. */
function hostnameOf(host: string): string | null {
  if (host === "" || /[\s/?#@\\]/.test(host)) return null;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}

const refused = (detail: string): Problem => problem("ORIGIN_REFUSED", detail);

/**
 * Why a request to the MCP endpoint is refused for its `Host` or `Origin`, or null:
 * - a client on this machine (the runtime reports a loopback `CF-Connecting-IP`; behind
 *   Cloudflare's edge it is the client's public address) must name a loopback `Host`;
 * - an `Origin`, when present, must be the request's own origin (scheme, host and port), or
 *   any loopback origin when the `Host` is loopback (a local client on another port).
 */
export function mcpOriginRefusal(request: Request): Problem | null {
  // The request's URL is parsed only where it is read: without a Host header, or to compare an Origin.
  const host = request.headers.get("host") ?? new URL(request.url).host;
  const hostname = hostnameOf(host);
  if (hostname === null) return refused("The Host header is not a host name.");
  const client = request.headers.get("cf-connecting-ip");
  const loopbackHost = isLoopbackName(hostname);
  if (client !== null && isLoopbackAddress(client) && !loopbackHost) {
    return refused(
      "A request from this machine must name a loopback host (localhost, 127.0.0.1 or [::1]): DNS rebinding protection.",
    );
  }
  const origin = request.headers.get("origin");
  if (origin === null) return null;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return refused("The Origin header is not an origin this endpoint accepts.");
  }
  if (from.protocol === new URL(request.url).protocol && from.host === host.toLowerCase()) return null;
  if (loopbackHost && (from.protocol === "http:" || from.protocol === "https:") && isLoopbackName(from.hostname))
    return null;
  return refused(
    "The Origin is neither this endpoint's origin nor, on a loopback host, a loopback origin: browsers on other sites may not call it.",
  );
}
