/**
 * A route, declared once: its method and path, who may call it (the access table's operation
 * and how the gate authenticates), its contracts and OpenAPI text, and its middleware and
 * handler. The registry (./registry.ts) builds the Hono app, the OpenAPI operations, CORS and
 * `405` from these declarations, so none of them can drift from what is served.
 * @module
 */
import type { Context, Env as HonoEnv, Handler, MiddlewareHandler } from "hono";
import type { H } from "hono/types";
import type { CorsOffer } from "./cors";
import type { OperationDoc } from "./openapi/operation";
import type { ProblemCode } from "./problem";
import type { GateEnv } from "./middleware";

/** Methods a route is registered for: an operation's, or a transport's own (`options`, `all`: never documented). */
export type RouteMethod = OperationDoc["method"] | "options" | "all";

/**
 * How the registry authenticates before the route's handlers run (the consumer prologue,
 * `consumerGate`, for the route's `operation`):
 * - `admin-secret`: the admin secret only, checked in the Worker;
 * - `credential`: a consumer credential (checked by the object), or the admin secret where the access table allows it;
 * - absent: a public route, or one that authenticates itself (a WebSocket, a console session, OAuth).
 */
export type RouteAuth = "admin-secret" | "credential";

/** One route of the gate. */
export interface Route extends Omit<OperationDoc, "method"> {
  readonly method: RouteMethod;
  readonly auth?: RouteAuth;
  /**
   * `public`: a public document any origin may read (`*`); `false`: never offered to pages on
   * other origins and left out of the CORS table altogether (the approver console: same-origin
   * pages with their own Origin rule). Absent: the access table decides (../http/cors.ts).
   */
  readonly cors?: CorsOffer;
  /** Middleware, then the handler, run after the gate (typed together by {@link handlers}). */
  readonly handlers: readonly H[];
}

/** Middleware for every request under a path, whatever its method or whether a route matches (its 404s and 405s too). */
export interface PathMiddleware {
  readonly path: string;
  readonly handlers: readonly MiddlewareHandler[];
}

/** A module's routes, and the middleware its paths share. */
export interface RouteModule {
  readonly use?: readonly PathMiddleware[];
  readonly routes: readonly Route[];
}

/**
 * A route's middleware and handler, typed as one chain: the handler sees the gate's variables
 * and those its middleware set (a validated `body`).
 */
export function handlers(handler: Handler<GateEnv>): readonly H[];
export function handlers<A extends HonoEnv>(m1: MiddlewareHandler<A>, handler: Handler<GateEnv & A>): readonly H[];
export function handlers<A extends HonoEnv, B extends HonoEnv>(
  m1: MiddlewareHandler<A>,
  m2: MiddlewareHandler<B>,
  handler: Handler<GateEnv & A & B>,
): readonly H[];
export function handlers<A extends HonoEnv, B extends HonoEnv, C extends HonoEnv>(
  m1: MiddlewareHandler<A>,
  m2: MiddlewareHandler<B>,
  m3: MiddlewareHandler<C>,
  handler: Handler<GateEnv & A & B & C>,
): readonly H[];
export function handlers(...chain: H[]): readonly H[] {
  return chain;
}

/** What reading a JSON body answers when it refuses one (middleware.ts `jsonBody`). */
export const BODY_PROBLEMS: readonly ProblemCode[] = [
  "INVALID_JSON",
  "INVALID_REQUEST",
  "BODY_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
];

/** The problems of an admin route that reads a body: the gate's, the body's, then the route's own. */
export function adminBodyProblems(...own: readonly ProblemCode[]): readonly ProblemCode[] {
  return ["UNAUTHENTICATED", "NOT_FOUND", ...BODY_PROBLEMS, ...own];
}

/** The Hono path of an OpenAPI path template: `{consumer}` → `:consumer`. */
export function honoPath(template: string): string {
  return template.replace(/\{([a-z_]+)\}/g, ":$1");
}

/** Whether a route is an operation of the HTTP API (CORS and `405` read those; the document, the documented ones). */
export function isOperation(route: Route): route is Route & OperationDoc {
  return route.method !== "options" && route.method !== "all" && route.cors !== false;
}

/** A parameter of the route's path (a declared route always has it: its absence is a bug). */
export function pathParam(c: Context, name: string): string {
  const value = c.req.param(name);
  if (value === undefined) throw new Error(`the route's path has no parameter ${name}`);
  return value;
}
