import { Hono } from "hono";
import "../contracts/problem";
import type { Env } from "./env";
import { GATE_VERSION } from "./version";
import { openApiDocument, type OperationDoc } from "./openapi";
import { problem, problemResponse } from "./problem";
import { httpConventions } from "./http/conventions";
import { mcpBearer, mcpChallenge, oauthOperations, oauthRoutes } from "./oauth/routes";
import { adminOperations, adminRoutes } from "./routes/admin";
import { adminReadOperations, adminReadRoutes } from "./routes/admin-reads";
import { approvalOperations, approvalRoutes } from "./routes/approvals";
import { auditOperations, auditRoutes } from "./routes/audit";
import { capabilityOperations, capabilityRoutes } from "./routes/capability";
import { consoleRoutes } from "./routes/console";
import { mcpOperations, mcpRoutes } from "./routes/mcp";
import { runtimeOperations, runtimeRoutes } from "./routes/runtime";
import { toolCallOperations, toolCallRoutes } from "./routes/tool-calls";
import { toolCallBatchOperations, toolCallBatchRoutes } from "./routes/tool-call-batch";
import { toolOperations, toolRoutes } from "./routes/tools";
import { mcpServerOperations, mcpServerRoutes } from "./routes/mcp-servers";
import { webhookOperations, webhookRoutes } from "./routes/webhooks";

const operations: readonly OperationDoc[] = [
  { method: "get", path: "/healthz", summary: "Liveness.", operation: "none", response: { status: 200, description: "`{\"ok\":true}`" }, problems: [] },
  { method: "get", path: "/v1/openapi.json", summary: "This document.", operation: "none", response: { status: 200, description: "OpenAPI 3.1." }, problems: [] },
  ...adminOperations,
  ...adminReadOperations,
  ...toolOperations,
  ...mcpServerOperations,
  ...webhookOperations,
  ...toolCallOperations,
  ...toolCallBatchOperations,
  ...mcpOperations,
  ...oauthOperations,
  ...approvalOperations,
  ...auditOperations,
  ...runtimeOperations,
  ...capabilityOperations,
];

let openApiText: string | undefined;

/** The Hono app: each plane mounts its own route module. */
export const app = new Hono<{ Bindings: Env }>();

// CORS and 405 with Allow (docs/http-api.md, "HTTP conventions"): before every route, so it wraps each answer.
app.use("*", httpConventions(app, operations));

app.get("/healthz", (c) => c.json({ ok: true }));
app.get("/v1/openapi.json", () => {
  openApiText ??= JSON.stringify(openApiDocument(operations, GATE_VERSION));
  return new Response(openApiText, { headers: { "content-type": "application/json" } });
});
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
