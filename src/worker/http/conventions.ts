/**
 * The HTTP conventions every route shares, as one middleware in front of the app's routes:
 * CORS (./cors.ts: preflights answered here, the headers of actual answers added after the
 * route), and `405 Method Not Allowed` with `Allow` for a wrong method on a path the app routes
 * (derived from the app's own router, so it never disagrees with what is served).
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { Router } from "hono/router";
import type { RouterRoute } from "hono/types";
import type { Env } from "../env";
import { problem, problemResponse } from "./problem";
import { answerHeaders, CorsRoutes, isPreflight, METHOD_ORDER, preflight, type CorsOperation } from "./cors";

/** What this module reads of the app: its router (every route, with the method it was registered for). */
export interface RoutedApp {
  readonly router: Router<[unknown, RouterRoute]>;
}

/** Methods a route can be registered for (HEAD is served by every GET route). */
const ROUTABLE = METHOD_ORDER.filter((m) => m !== "HEAD");

/** The methods the app routes `path` for (`app.use` middleware and `all` routes aside), in {@link METHOD_ORDER}. */
export function allowedMethods(app: RoutedApp, path: string): string[] {
  const routed = ROUTABLE.filter((method) =>
    app.router.match(method, path)[0].some(([[, route]]) => route.method !== "ALL"),
  );
  return routed.includes("GET") ? ["GET", "HEAD", ...routed.filter((m) => m !== "GET")] : routed;
}

/** `405 METHOD_NOT_ALLOWED` with its `Allow` header. */
export function methodNotAllowed(allow: readonly string[]): Response {
  const res = problemResponse(problem("METHOD_NOT_ALLOWED", `This path answers ${allow.join(", ")} only (see Allow).`));
  res.headers.set("allow", allow.join(", "));
  return res;
}

function setHeaders(headers: Headers, add: Record<string, string>): void {
  for (const [name, value] of Object.entries(add)) {
    const present = headers.get(name);
    if (name === "vary" && present !== null) {
      if (!present.split(",").some((v) => v.trim().toLowerCase() === "origin"))
        headers.set(name, `${present}, ${value}`);
    } else headers.set(name, value);
  }
}

/**
 * The conventions middleware; register it before every route (`app.use("*", …)`).
 * `operations` is the route registry's operations, the CORS offer is read from.
 */
export function httpConventions(
  app: RoutedApp,
  operations: readonly CorsOperation[],
): MiddlewareHandler<{ Bindings: Env }> {
  let cors: CorsRoutes | undefined;
  return async function httpConventions(c, next) {
    cors ??= new CorsRoutes(operations);
    const path = c.req.path;
    const route = cors.route(path);
    const origin = c.req.header("origin") ?? null;
    if (route !== null && origin !== null && isPreflight(c.req.raw)) return preflight(c.env, route, origin);
    await next();
    // The router found no route for this method (only middleware ran): another method's path is a 405.
    if (c.res.status === 404 && !matchedRoutes(c).some((r) => r.method !== "ALL")) {
      const allow = allowedMethods(app, path);
      if (allow.length > 0) c.res = methodNotAllowed(allow);
    }
    // A WebSocket upgrade's answer is the object's own (and browsers apply no CORS to WebSockets).
    if (route === null || c.res.status === 101 || c.res.webSocket !== null) return;
    const add = await answerHeaders(c.env, route, origin);
    if (Object.keys(add).length === 0) return;
    try {
      setHeaders(c.res.headers, add);
    } catch {
      // An answer with immutable headers (forwarded from an object): a copy takes them.
      c.res = new Response(c.res.body, c.res);
      setHeaders(c.res.headers, add);
    }
  };
}
