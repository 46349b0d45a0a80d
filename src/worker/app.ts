import "../contracts/problem";
import { problem, problemResponse } from "./http/problem";
import { httpConventions } from "./http/conventions";
import { mountRoutes, newApp, operations, ROUTE_MODULES } from "./http/registry";

/** The Hono app: every declared route (./routes/registry.ts), in the registry's order. */
export const app = newApp();

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
