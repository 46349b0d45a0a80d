import { Hono } from "hono";
import "../contracts/problem";
import type { Env } from "./env";
import { operations } from "./openapi/operations";
import { assetResponse } from "./assets";
import { problem, problemResponse } from "./problem";
import { httpConventions } from "./http/conventions";
import { mcpBearer, mcpChallenge, oauthRoutes } from "./oauth/routes";
import { adminRoutes } from "./routes/admin";
import { adminReadRoutes } from "./routes/admin-reads";
import { approvalRoutes } from "./routes/approvals";
import { auditRoutes } from "./routes/audit";
import { capabilityRoutes } from "./routes/capability";
import { consoleRoutes } from "./routes/console";
import { mcpRoutes } from "./routes/mcp";
import { runtimeRoutes } from "./routes/runtime";
import { signingKeyRoutes } from "./routes/signing-keys";
import { toolCallRoutes } from "./routes/tool-calls";
import { toolCallBatchRoutes } from "./routes/tool-call-batch";
import { toolRoutes } from "./routes/tools";
import { mcpServerRoutes } from "./routes/mcp-servers";
import { webhookRoutes } from "./routes/webhooks";

/** The Hono app: each plane mounts its own route module. */
export const app = new Hono<{ Bindings: Env }>();

// CORS and 405 with Allow (docs/http-api.md, "HTTP conventions"): before every route, so it wraps each answer.
app.use("*", httpConventions(app, operations));

app.get("/healthz", (c) => c.json({ ok: true }));
// Built by `npm run build:openapi` from the operations and the contracts (a test keeps it current)
// into assets/openapi.json, a static asset: the document stays out of the Worker's bundle.
app.get("/v1/openapi.json", (c) => assetResponse(c.env.ASSETS, "openapi.json", "application/json"));
// The MCP endpoint as an OAuth protected resource: challenge on 401, OAuth tokens → the grant's credential.
app.use("/v1/consumers/:consumer/mcp", mcpChallenge(), mcpBearer());
app.route("/", oauthRoutes);
app.route("/", adminRoutes);
app.route("/", adminReadRoutes);
app.route("/", toolRoutes);
app.route("/", mcpServerRoutes);
app.route("/", webhookRoutes);
app.route("/", toolCallRoutes);
app.route("/", toolCallBatchRoutes);
app.route("/", mcpRoutes);
app.route("/", approvalRoutes);
app.route("/", auditRoutes);
app.route("/", signingKeyRoutes);
app.route("/", runtimeRoutes);
app.route("/", capabilityRoutes);
// The approver console (docs/console.md): HTML pages with a cookie session, not part of the OpenAPI document.
app.route("/", consoleRoutes);

app.notFound(() => problemResponse(problem("NOT_FOUND", "No such route.")));
app.onError((error) => {
  // Never log request data: only the error's class and message (messages carry no secrets or arguments).
  const name = error instanceof Error ? error.name : "non-error";
  const message = error instanceof Error ? error.message.slice(0, 200) : "";
  console.error(`toolgate: unhandled ${name}: ${message}`);
  return problemResponse(problem("INTERNAL", "An internal error occurred."));
});
