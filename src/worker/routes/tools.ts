import { Hono, type MiddlewareHandler } from "hono";
import { DECLARATION_FORMATS, isDeclarationFormat } from "../../core/adapters/declarations";
import { SecretList, ToolDetails, ToolList } from "../../contracts/tool-views";
import { SecretName, SecretValue, ToolDefinition, ToolName, ToolVersionView } from "../../contracts/tool-definition";
import type { ToolsCall } from "../object/tools/calls";
import type { OperationDoc } from "../openapi/operation";
import { problem, problemResponse, type ProblemCode } from "../problem";
import { consumerGate, jsonBody, type ConsumerVariables, type GateEnv } from "./middleware";
import { forObject, respond } from "./respond";

/** Admin routes of tools as data and consumer secrets; the tool list (in a model's format) for agents too. */
export const toolRoutes = new Hono<GateEnv>();

const admin = { secretOnly: true } as const;
const TOOLS = "/v1/consumers/:consumer/tools";
const SECRETS = "/v1/consumers/:consumer/secrets";

async function call(gate: ConsumerVariables, request: ToolsCall, status: 200 | 201 = 200): Promise<Response> {
  return respond(await gate.stub.toolsCall(gate.consumer, gate.token, request), status);
}

const named = (schema: { safeParse(v: unknown): { success: boolean } }, what: string): MiddlewareHandler =>
  async function named(c, next) {
    if (!schema.safeParse(c.req.param("name")).success) return problemResponse(problem("NOT_FOUND", `No such ${what}.`));
    await next();
  };

toolRoutes.put(`${TOOLS}/:name`, consumerGate("defineTool", admin), named(ToolName, "tool"), jsonBody(ToolDefinition), async (c) => {
  const text = forObject(c.var.body);
  return text instanceof Response ? text : call(c.var, { kind: "defineTool", name: c.req.param("name"), definition: text });
});

toolRoutes.get(TOOLS, consumerGate("listTools"), async (c) => {
  const format = c.req.query("format");
  if (format !== undefined && !isDeclarationFormat(format)) return problemResponse(problem("INVALID_REQUEST", `format is one of ${DECLARATION_FORMATS.join(", ")}.`));
  return call(c.var, { kind: "listTools", format: format ?? null, cursor: c.req.query("cursor") ?? null });
});

toolRoutes.get(`${TOOLS}/:name`, consumerGate("getTool", admin), named(ToolName, "tool"), (c) => call(c.var, { kind: "getTool", name: c.req.param("name") }));

toolRoutes.delete(`${TOOLS}/:name`, consumerGate("disableTool", admin), named(ToolName, "tool"), (c) => call(c.var, { kind: "disableTool", name: c.req.param("name") }));

toolRoutes.put(`${SECRETS}/:name`, consumerGate("putSecret", admin), named(SecretName, "secret"), jsonBody(SecretValue), (c) =>
  call(c.var, { kind: "putSecret", name: c.req.param("name"), value: c.var.body.value }),
);

toolRoutes.delete(`${SECRETS}/:name`, consumerGate("deleteSecret", admin), named(SecretName, "secret"), (c) => call(c.var, { kind: "deleteSecret", name: c.req.param("name") }));

toolRoutes.get(SECRETS, consumerGate("listSecrets", admin), (c) => call(c.var, { kind: "listSecrets", cursor: c.req.query("cursor") ?? null }));

const BODY: readonly ProblemCode[] = ["INVALID_JSON", "INVALID_REQUEST", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];
const P = "/v1/consumers/{consumer}";
const cursor = { description: "The `next_cursor` of the page before (opaque; anything else is 400 INVALID_CURSOR).", schema: { type: "string", maxLength: 400 } };

/** OpenAPI descriptions of the tool and secret routes. */
export const toolOperations: readonly OperationDoc[] = [
  {
    method: "put",
    path: `${P}/tools/{name}`,
    summary: "Define (or redefine) a tool as data: schema subset, CEL rules, HTTP target (docs/tools.md). A changed definition is a new version.",
    operation: "defineTool",
    request: ToolDefinition,
    response: { status: 200, schema: ToolVersionView, description: "The current version." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND", ...BODY, "INVALID_TOOL_DEFINITION", "QUOTA_EXCEEDED"],
  },
  {
    method: "get",
    path: `${P}/tools`,
    summary:
      "The consumer's tools: for the admin, the enabled names and a page of the defined tools (name, current version, enabled; never a secret); with `format` (and for an agent without it, json-schema), a page of the enabled tools as a model's tool declarations (for an agent, only those its credential's tool scope admits). Pages by tool name, at most the consumer's page_items.",
    operation: "listTools",
    query: { format: { description: "openai, anthropic, gemini or json-schema.", schema: { type: "string", enum: [...DECLARATION_FORMATS] } }, cursor },
    response: { status: 200, schema: ToolList, description: "`{enabled, defined, next_cursor}` for the admin without `format`, else `{format, tools, next_cursor}`." },
    problems: ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "INVALID_REQUEST", "INVALID_CURSOR"],
  },
  {
    method: "get",
    path: `${P}/tools/{name}`,
    summary: "A data-defined tool: its current version and its history, newest first.",
    operation: "getTool",
    response: { status: 200, schema: ToolDetails, description: "The tool and its history." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND"],
  },
  {
    method: "delete",
    path: `${P}/tools/{name}`,
    summary: "Disable a data-defined tool (its history stays; defining it again enables it).",
    operation: "disableTool",
    response: { status: 204, description: "Disabled." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND"],
  },
  {
    method: "put",
    path: `${P}/secrets/{name}`,
    summary: "Store a write-only secret for tool targets' secret headers (sealed; never returned).",
    operation: "putSecret",
    request: SecretValue,
    response: { status: 204, description: "Stored." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND", ...BODY, "QUOTA_EXCEEDED"],
  },
  {
    method: "delete",
    path: `${P}/secrets/{name}`,
    summary: "Delete a secret (tools whose headers use it send nothing until it is set again).",
    operation: "deleteSecret",
    response: { status: 204, description: "Deleted." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND"],
  },
  {
    method: "get",
    path: `${P}/secrets`,
    summary: "The names of the consumer's secrets (never their values), in name order, at most the consumer's page_items per page.",
    operation: "listSecrets",
    query: { cursor },
    response: { status: 200, schema: SecretList, description: "One page of names." },
    problems: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_CURSOR"],
  },
];
