import type { MiddlewareHandler } from "hono";
import { DECLARATION_FORMATS, isDeclarationFormat } from "../../../core/adapters/declarations";
import { SecretList, ToolDetails, ToolList, ToolStatePatch, ToolStateView } from "../../../contracts/tool-views";
import {
  SECRET_NAME_PATTERN,
  SecretValue,
  TOOL_NAME_PATTERN,
  ToolDefinition,
  ToolVersionView,
} from "../../../contracts/tool-definition";
import { ToolReplayRequest, ToolReplayView, ToolShadowView } from "../../../contracts/tool-shadow";
import type { ToolsCall } from "./calls";
import { problem, problemResponse } from "../../http/problem";
import { jsonBody, type ConsumerVariables, type GateEnv } from "../../http/middleware";
import { adminCall, respond, sendBody } from "../../http/respond";
import { adminBodyProblems, handlers, pathParam, type RouteModule } from "../../http/route";
import { DOCS } from "../../../contracts/docs";

async function call(gate: ConsumerVariables, request: ToolsCall, status: 200 | 201 = 200): Promise<Response> {
  return respond(await gate.object.toolsCall(gate.consumer, gate.token, request), status);
}

/** A read or delete of a name outside the pattern: there is no such thing. */
const named = (pattern: RegExp, what: string): MiddlewareHandler<GateEnv> =>
  async function named(c, next) {
    if (!pattern.test(c.req.param("name") ?? "")) return problemResponse(problem("NOT_FOUND", `No such ${what}.`));
    await next();
  };

/** A write under a name outside the pattern: the request is wrong, and the answer says which names are right. */
const naming = (pattern: RegExp, what: string): MiddlewareHandler<GateEnv> =>
  async function naming(c, next) {
    if (!pattern.test(c.req.param("name") ?? ""))
      return problemResponse(problem("INVALID_REQUEST", `A ${what} name matches ${pattern.source}.`));
    await next();
  };

const P = "/v1/consumers/{consumer}";
const cursor = {
  description: DOCS ? "The `next_cursor` of the page before (opaque; anything else is 400 INVALID_CURSOR)." : "",
  schema: { type: "string", maxLength: 400 },
};

/** Admin routes of tools as data and consumer secrets; the tool list (in a model's format) for agents too. */
export const toolRoutes: RouteModule = {
  routes: [
    {
      method: "put",
      path: `${P}/tools/{name}`,
      summary: DOCS
        ? "Define (or redefine) a tool as data: schema subset, CEL rules, HTTP target (docs/tools.md). A changed definition is a new version. The name matches `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$` (else 400 INVALID_REQUEST)."
        : "",
      operation: "defineTool",
      auth: "admin-secret",
      request: ToolDefinition,
      response: { status: 200, schema: ToolVersionView, description: DOCS ? "The current version." : "" },
      problems: adminBodyProblems("INVALID_TOOL_DEFINITION", "QUOTA_EXCEEDED"),
      handlers: handlers(naming(TOOL_NAME_PATTERN, "tool"), jsonBody(ToolDefinition), (c) =>
        sendBody(c.var.body, (definition) =>
          c.var.object.toolsCall(c.var.consumer, c.var.token, {
            kind: "defineTool",
            name: pathParam(c, "name"),
            definition,
          }),
        ),
      ),
    },
    {
      method: "get",
      path: `${P}/tools`,
      summary: DOCS
        ? "The consumer's tools: for the admin, the enabled names and a page of the defined tools (name, current version, enabled; never a secret); with `format` (and for an agent without it, json-schema), a page of the enabled tools as a model's tool declarations (for an agent, only those its credential's tool scope admits). Pages by tool name, at most the consumer's page_items."
        : "",
      operation: "listTools",
      auth: "credential",
      query: {
        format: {
          description: DOCS ? "openai, anthropic, gemini or json-schema." : "",
          schema: { type: "string", enum: [...DECLARATION_FORMATS] },
        },
        cursor,
      },
      response: {
        status: 200,
        schema: ToolList,
        description: DOCS
          ? "`{enabled, defined, next_cursor}` for the admin without `format`, else `{format, tools, next_cursor}`."
          : "",
      },
      problems: ["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "INVALID_REQUEST", "INVALID_CURSOR"],
      handlers: handlers(async (c) => {
        const format = c.req.query("format");
        if (format !== undefined && !isDeclarationFormat(format))
          return problemResponse(problem("INVALID_REQUEST", `format is one of ${DECLARATION_FORMATS.join(", ")}.`));
        return call(c.var, { kind: "listTools", format: format ?? null, cursor: c.req.query("cursor") ?? null });
      }),
    },
    {
      method: "get",
      path: `${P}/tools/{name}`,
      summary: DOCS ? "A data-defined tool: its current version and its history, newest first." : "",
      operation: "getTool",
      auth: "admin-secret",
      response: { status: 200, schema: ToolDetails, description: DOCS ? "The tool and its history." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND"],
      handlers: handlers(named(TOOL_NAME_PATTERN, "tool"), (c) =>
        call(c.var, { kind: "getTool", name: pathParam(c, "name") }),
      ),
    },
    {
      method: "patch",
      path: `${P}/tools/{name}`,
      summary: DOCS
        ? "Enable or disable one tool for the consumer (a JSON Merge Patch of its state, `application/merge-patch+json`): `enabled` adds it to the configuration's `tools`, `disabled` takes it out; the rest of the configuration stays. Any tool the consumer may enable (built-in, code or data); an unknown name is 404."
        : "",
      operation: "setToolState",
      auth: "admin-secret",
      request: ToolStatePatch,
      requestMedia: "application/merge-patch+json",
      response: { status: 200, schema: ToolStateView, description: DOCS ? "The tool's state now." : "" },
      problems: adminBodyProblems(),
      handlers: handlers(
        named(TOOL_NAME_PATTERN, "tool"),
        jsonBody(ToolStatePatch, { mediaType: "application/merge-patch+json" }),
        (c) => adminCall(c.var, { kind: "setToolState", name: pathParam(c, "name"), state: c.var.body.state }),
      ),
    },
    {
      method: "delete",
      path: `${P}/tools/{name}`,
      summary: DOCS
        ? "Delete a data-defined tool: its definition is withdrawn (a consumer that enabled it can no longer call it) and its history stays; defining it again restores it."
        : "",
      operation: "deleteTool",
      auth: "admin-secret",
      response: { status: 204, description: DOCS ? "Deleted." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND"],
      handlers: handlers(named(TOOL_NAME_PATTERN, "tool"), (c) =>
        call(c.var, { kind: "deleteTool", name: pathParam(c, "name") }),
      ),
    },
    {
      method: "get",
      path: `${P}/tools/{name}/shadow`,
      summary: DOCS
        ? 'A data tool\'s shadow rules (docs/approvals.md, "Policies in shadow"): the current shadow, its revision, the counts of calls evaluated, agreed and disagreed by kind (authorize: allow vs refuse; approval: a human vs none) under it, and the newest disagreements kept (by digest and subject; arguments only under `audit_arguments: full`).'
        : "",
      operation: "toolShadow",
      auth: "admin-secret",
      response: {
        status: 200,
        schema: ToolShadowView,
        description: DOCS ? "The counts and the kept disagreements." : "",
      },
      problems: ["UNAUTHENTICATED", "NOT_FOUND"],
      handlers: handlers(named(TOOL_NAME_PATTERN, "tool"), (c) =>
        call(c.var, { kind: "toolShadow", name: pathParam(c, "name") }),
      ),
    },
    {
      method: "post",
      path: `${P}/tools/{name}/replay`,
      summary: DOCS
        ? "Replay a candidate definition's rules against the tool's newest calls still held in the audit chain within the retention window (at most `limit`, newest first; never stored, never executed): what it would have refused, sent to a human or allowed against what happened, and the calls that differ. Only calls whose arguments the consumer keeps (`audit_arguments: full`) can be replayed; the others are counted."
        : "",
      operation: "replayTool",
      auth: "admin-secret",
      request: ToolReplayRequest,
      response: {
        status: 200,
        schema: ToolReplayView,
        description: DOCS ? "The figures and the differing calls." : "",
      },
      problems: adminBodyProblems("INVALID_TOOL_DEFINITION"),
      handlers: handlers(named(TOOL_NAME_PATTERN, "tool"), jsonBody(ToolReplayRequest), (c) =>
        sendBody(c.var.body, (request) =>
          c.var.object.toolsCall(c.var.consumer, c.var.token, {
            kind: "replayTool",
            name: pathParam(c, "name"),
            request,
          }),
        ),
      ),
    },
    {
      method: "put",
      path: `${P}/secrets/{name}`,
      summary: DOCS
        ? "Store a write-only secret for tool targets' secret headers (sealed; never returned). The name matches `^[a-z][a-z0-9_]{0,63}$` (else 400 INVALID_REQUEST)."
        : "",
      operation: "putSecret",
      auth: "admin-secret",
      request: SecretValue,
      response: { status: 204, description: DOCS ? "Stored." : "" },
      problems: adminBodyProblems("QUOTA_EXCEEDED"),
      handlers: handlers(naming(SECRET_NAME_PATTERN, "secret"), jsonBody(SecretValue), (c) =>
        call(c.var, { kind: "putSecret", name: pathParam(c, "name"), value: c.var.body.value }),
      ),
    },
    {
      method: "delete",
      path: `${P}/secrets/{name}`,
      summary: DOCS ? "Delete a secret (tools whose headers use it send nothing until it is set again)." : "",
      operation: "deleteSecret",
      auth: "admin-secret",
      response: { status: 204, description: DOCS ? "Deleted." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND"],
      handlers: handlers(named(SECRET_NAME_PATTERN, "secret"), (c) =>
        call(c.var, { kind: "deleteSecret", name: pathParam(c, "name") }),
      ),
    },
    {
      method: "get",
      path: `${P}/secrets`,
      summary: DOCS
        ? "The names of the consumer's secrets (never their values), in name order, at most the consumer's page_items per page."
        : "",
      operation: "listSecrets",
      auth: "admin-secret",
      query: { cursor },
      response: { status: 200, schema: SecretList, description: DOCS ? "One page of names." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_CURSOR"],
      handlers: handlers((c) => call(c.var, { kind: "listSecrets", cursor: c.req.query("cursor") ?? null })),
    },
  ],
};
