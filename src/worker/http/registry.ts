/**
 * The route modules, from the registry. The app is built by iterating them; the OpenAPI
 * operations, the CORS table and `405`'s allowed methods are read from the same declarations.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { HonoBase } from "hono/hono-base";
import { TrieRouter } from "hono/router/trie-router";
import type { Env } from "../env";
import { FEATURES } from "../kernel/features";
import { signingKeyRoutes } from "../targets/http/routes";
import { consumerGate } from "./middleware";
import type { OperationDoc } from "./openapi/operation";
import { honoPath, isOperation, type Route, type RouteModule } from "./route";
import { serviceRoutes } from "./service-routes";

/**
 * Every route module: the service's own and the request-signing keys of HTTP tools, then each
 * feature's (../kernel/features) in registry order, the order the OpenAPI document lists their
 * operations. Within a module a path whose literal segment could also match another route's
 * parameter (`…/approvals/events` and `…/approvals/{approval_id}`) is declared first: Hono tries
 * routes in registration order.
 */
export const ROUTE_MODULES: readonly RouteModule[] = [
  serviceRoutes,
  signingKeyRoutes,
  ...FEATURES.flatMap((feature) => feature.routes ?? []),
];

/** Every declared route. */
export const routes: readonly Route[] = ROUTE_MODULES.flatMap((m) => m.routes);

/** The routes that are operations of the HTTP API, as the OpenAPI document shows them and CORS and `405` read them. */
export const operations: readonly (Route & OperationDoc)[] = routes.filter(isOperation);

/** A Hono app of the gate's routes. */
export type GateApp = HonoBase<{ Bindings: Env }>;

/**
 * A new app. Its router is Hono's TrieRouter alone: the one `new Hono()` (a SmartRouter over
 * RegExpRouter, then TrieRouter) settles on for the gate's routes, since RegExpRouter refuses a
 * literal segment beside a parameter (`…/approvals/events` and `…/approvals/{approval_id}`). The
 * bundle then leaves out the SmartRouter and the RegExpRouter that was never used.
 */
export function newApp(): GateApp {
  return new HonoBase<{ Bindings: Env }>({ router: new TrieRouter() });
}

/** The gate a route's `auth` asks for, before its own handlers. */
function gateOf(route: Route): MiddlewareHandler[] {
  if (route.auth === undefined) return [];
  if (route.operation === "none") throw new Error(`${route.method} ${route.path} authenticates for no operation`);
  return [consumerGate(route.operation, route.auth === "admin-secret" ? { secretOnly: true } : {})];
}

/** Registers route modules on an app: each module's path middleware, then its routes, in order. */
export function mountRoutes(app: GateApp, modules: readonly RouteModule[]): void {
  for (const module of modules) {
    for (const use of module.use ?? []) app.use(use.path, ...use.handlers);
    for (const route of module.routes) {
      const path = honoPath(route.path);
      const [first, ...rest] = [...gateOf(route), ...route.handlers];
      if (first === undefined) throw new Error(`${route.method} ${route.path} declares no handler`);
      if (route.method === "all") app.all(path, first, ...rest);
      else app.on(route.method.toUpperCase(), path, first, ...rest);
    }
  }
}

/** An app of only some route modules (a test of one module's routes without the rest). */
export function routeApp(modules: readonly RouteModule[]): GateApp {
  const app = newApp();
  mountRoutes(app, modules);
  return app;
}
