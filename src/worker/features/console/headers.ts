/**
 * The headers every answer of the approver console carries (docs/console.md, "Headers"): a
 * Content-Security-Policy that admits only the console's own script, styles and connections
 * (no inline script or style, no framing, no form posting elsewhere), no MIME sniffing, no
 * referrer, no caching of pages that show arguments and CSRF tokens.
 * @module
 */
import type { MiddlewareHandler } from "hono";

/** The console's Content-Security-Policy. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Every console answer's security headers. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

/** Sets the console's headers on an answer (every route under `/console`, problems and redirects included). */
export function consoleHeaders(): MiddlewareHandler {
  return async function consoleHeaders(c, next) {
    await next();
    for (const [name, value] of Object.entries(CONSOLE_HEADERS)) c.res.headers.set(name, value);
  };
}

/** An HTML answer. */
export function htmlResponse(body: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", ...headers } });
}

/** A `303 See Other` to a console path (after a form post, or to the sign-in page). */
export function seeOther(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, ...headers } });
}
