import "../contracts/problem";
import type { Env } from "./env";
import { problem, problemResponse } from "./http/problem";
import { httpConventions } from "./http/conventions";
import { mountRoutes, newApp, operations, ROUTE_MODULES, type GateApp } from "./http/registry";

/** The Hono app: every declared route (./routes/registry.ts), in the registry's order. */
function buildApp(): GateApp {
  const app = newApp();

  // CORS and 405 with Allow (docs/http-api.md, "HTTP conventions"): before every route, so it wraps each answer.
  app.use("*", httpConventions(app, operations));

  mountRoutes(app, ROUTE_MODULES);

  app.notFound(() => problemResponse(problem("NOT_FOUND", "No such route.")));
  app.onError((error) => {
    // Never log request data: only the error's class and message (messages carry no secrets or arguments).
    const name = error instanceof Error ? error.name : "non-error";
    const message = error instanceof Error ? error.message.slice(0, 200) : "";
    console.error(`toolgate: unhandled ${name}: ${message}`);
    return problemResponse(problem("INTERNAL", "An internal error occurred."));
  });
  return app;
}

let built: GateApp | undefined;

/**
 * The Worker's fetch handler: the app, built by its first request rather than when the isolate
 * starts (issue #32, cold start: registering every route in Hono's router is a few milliseconds
 * of the isolate's start). Every request is served by the same app, built once.
 */
export const app = {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> {
    built ??= buildApp();
    return built.fetch(request, env, ctx);
  },
};
