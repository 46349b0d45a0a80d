import type { MiddlewareHandler } from "hono";
import {
  McpImportResult,
  McpServerList,
  McpServerName,
  McpServerRegistration,
  McpServerRemoved,
  McpServerView,
} from "../../../contracts/mcp-server";
import type { McpServersCall } from "./service";
import { problem, problemResponse } from "../../http/problem";
import { jsonBody, type ConsumerVariables, type GateEnv } from "../../http/middleware";
import { respond, sendBody } from "../../http/respond";
import { adminBodyProblems, handlers, pathParam, type RouteModule } from "../../http/route";
import { DOCS } from "../../../contracts/docs";

async function call(gate: ConsumerVariables, request: McpServersCall): Promise<Response> {
  return respond(await gate.object.toolsCall(gate.consumer, gate.token, request));
}

const named: MiddlewareHandler<GateEnv> = async function named(c, next) {
  if (!McpServerName.safeParse(c.req.param("name")).success)
    return problemResponse(problem("NOT_FOUND", "No such MCP server."));
  await next();
};

const P = "/v1/consumers/{consumer}/mcp-servers";

/** Admin routes of downstream MCP servers: register (and import their tools), list, read, import again, unregister. */
export const mcpServerRoutes: RouteModule = {
  routes: [
    {
      method: "post",
      path: P,
      summary: DOCS
        ? "Register a downstream MCP server and import its tools as tool definitions (stored, not enabled; docs/tools.md, MCP targets)."
        : "",
      operation: "registerMcpServer",
      auth: "admin-secret",
      request: McpServerRegistration,
      response: {
        status: 200,
        schema: McpImportResult,
        description: DOCS ? "The server, the tools imported and the tools refused (with the reason)." : "",
      },
      problems: adminBodyProblems("MCP_SERVER_EXISTS", "MCP_SERVER_UNREACHABLE", "QUOTA_EXCEEDED"),
      handlers: handlers(jsonBody(McpServerRegistration), (c) =>
        sendBody(c.var.body, (registration) =>
          c.var.object.toolsCall(c.var.consumer, c.var.token, { kind: "registerMcpServer", registration }),
        ),
      ),
    },
    {
      method: "get",
      path: P,
      summary: DOCS
        ? "The consumer's registered MCP servers in name order, each with its imported tools and whether it is stale; at most the consumer's page_items per page."
        : "",
      operation: "listMcpServers",
      auth: "admin-secret",
      query: {
        cursor: {
          description: DOCS
            ? "The `next_cursor` of the page before (opaque; anything else is 400 INVALID_CURSOR)."
            : "",
          schema: { type: "string", maxLength: 400 },
        },
      },
      response: { status: 200, schema: McpServerList, description: DOCS ? "One page of servers." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_CURSOR"],
      handlers: handlers((c) => call(c.var, { kind: "listMcpServers", cursor: c.req.query("cursor") ?? null })),
    },
    {
      method: "get",
      path: `${P}/{name}`,
      summary: DOCS ? "One registered MCP server." : "",
      operation: "getMcpServer",
      auth: "admin-secret",
      response: { status: 200, schema: McpServerView, description: DOCS ? "The server." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND"],
      handlers: handlers(named, (c) => call(c.var, { kind: "getMcpServer", name: pathParam(c, "name") })),
    },
    {
      method: "post",
      path: `${P}/{name}/import`,
      summary: DOCS
        ? "Import the server's tools again: a changed tool is a new version of its definition, an unchanged one keeps its version; clears the stale mark."
        : "",
      operation: "importMcpServer",
      auth: "admin-secret",
      response: {
        status: 200,
        schema: McpImportResult,
        description: DOCS ? "What the import did, with the tools the server no longer lists (`gone`)." : "",
      },
      problems: ["UNAUTHENTICATED", "NOT_FOUND", "MCP_SERVER_UNREACHABLE", "INVALID_REQUEST"],
      handlers: handlers(named, (c) => call(c.var, { kind: "importMcpServer", name: pathParam(c, "name") })),
    },
    {
      method: "delete",
      path: `${P}/{name}`,
      summary: DOCS
        ? "Unregister a server; the definitions its last import wrote are disabled (their history stays)."
        : "",
      operation: "deleteMcpServer",
      auth: "admin-secret",
      response: { status: 200, schema: McpServerRemoved, description: DOCS ? "What was disabled." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND"],
      handlers: handlers(named, (c) => call(c.var, { kind: "deleteMcpServer", name: pathParam(c, "name") })),
    },
  ],
};
