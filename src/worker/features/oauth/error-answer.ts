/**
 * The gate's own OAuth error answers (RFC 6749 §5.2, RFC 7591 §3.2.2) beside the library's: never
 * cached, and readable by a browser client's `Origin` as the library's own answers are.
 * @module
 */

/**
 * An OAuth error answer. `origin`: the request's `Origin` (null: none); `headers`: more of them,
 * each also exposed to that origin.
 */
export function oauthError(
  status: number,
  error: string,
  description: string,
  origin: string | null,
  headers: Readonly<Record<string, string>> = {},
): Response {
  const all = new Headers({ ...headers, "cache-control": "no-store" });
  if (origin !== null) {
    all.set("access-control-allow-origin", origin);
    const exposed = Object.keys(headers);
    if (exposed.length > 0) all.set("access-control-expose-headers", exposed.join(", "));
    all.set("vary", "Origin");
  }
  return Response.json({ error, error_description: description }, { status, headers: all });
}
