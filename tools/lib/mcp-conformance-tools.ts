/**
 * A real MCP server (the official SDK's `Server` over Streamable HTTP, with sessions) that offers the
 * tools the official conformance suite's server scenarios call (`test_simple_text`,
 * `test_image_content`, …), each answering as the suite's scenario text asks. The gate imports
 * them through an MCP target, so the suite's tool scenarios judge the gate's pipeline end to end:
 * what the suite sees went through contracts, authorization and the audit.
 *
 * The same server offers the resources, prompts and completions the suite reads by name
 * (mcp-conformance-resources.ts), which the gate federates.
 *
 * The tools that need the server to speak to the client in the middle of a call (logging,
 * progress, sampling, elicitation) are offered too; whether they pass through the gate is what
 * the suite reports. The server keeps sessions (one transport per `initialize`, as the SDK's
 * reference server does): a stateless server could never receive the client's answer to its
 * sampling or elicitation request, which arrives as a separate POST of the same session.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { RESOURCE_CAPABILITIES, serveResourcesAndPrompts } from "./mcp-conformance-resources.ts";

/** A 1×1 red PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/** A 44-byte WAV header with no samples (8 kHz, mono, 8-bit). */
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

const EMPTY = { type: "object", properties: {}, additionalProperties: false };
const READ = { readOnlyHint: true };

/** The tools, as `tools/list` answers them. */
export const CONFORMANCE_TOOLS = [
  { name: "test_simple_text", description: "Answers a fixed text.", inputSchema: EMPTY, annotations: READ },
  { name: "test_image_content", description: "Answers a 1x1 PNG image.", inputSchema: EMPTY, annotations: READ },
  { name: "test_audio_content", description: "Answers a tiny WAV clip.", inputSchema: EMPTY, annotations: READ },
  {
    name: "test_embedded_resource",
    description: "Answers an embedded text resource.",
    inputSchema: EMPTY,
    annotations: READ,
  },
  {
    name: "test_multiple_content_types",
    description: "Answers text, an image and a resource.",
    inputSchema: EMPTY,
    annotations: READ,
  },
  { name: "test_error_handling", description: "Always fails.", inputSchema: EMPTY, annotations: READ },
  {
    name: "test_tool_with_logging",
    description: "Logs three messages while it runs.",
    inputSchema: EMPTY,
    annotations: READ,
  },
  {
    name: "test_tool_with_progress",
    description: "Reports progress 0, 50, 100.",
    inputSchema: EMPTY,
    annotations: READ,
  },
  {
    name: "test_sampling",
    description: "Asks the client's model to answer a prompt.",
    inputSchema: {
      type: "object",
      properties: { prompt: { type: "string" } },
      required: ["prompt"],
      additionalProperties: false,
    },
    annotations: READ,
  },
  {
    name: "test_elicitation",
    description: "Asks the user for their details.",
    inputSchema: {
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
      additionalProperties: false,
    },
    annotations: READ,
  },
  {
    name: "test_elicitation_sep1034_defaults",
    description: "Asks the user with a default for every primitive type.",
    inputSchema: EMPTY,
    annotations: READ,
  },
  {
    name: "test_elicitation_sep1330_enums",
    description: "Asks the user with each enum form.",
    inputSchema: EMPTY,
    annotations: READ,
  },
  {
    name: "json_schema_2020_12_tool",
    description: "A tool whose input schema uses $schema, $defs and $ref (JSON Schema 2020-12).",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
      properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
      additionalProperties: false,
    },
    annotations: READ,
  },
];

const text = (value: string): { type: "text"; text: string } => ({ type: "text", text: value });
const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** What a tool call's handler gets besides the request (the SDK's `RequestHandlerExtra`). */
type Extra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1];

/** Asks the client's user for a form of `properties`; answers what came back. */
async function elicited(
  extra: Extra,
  properties: Record<string, unknown>,
): Promise<{ content: Array<{ type: "text"; text: string }> }> {
  const answer = await extra.sendRequest(
    {
      method: "elicitation/create",
      params: {
        message: "Please review the defaults and answer",
        requestedSchema: { type: "object", properties, required: [] },
      },
    },
    ElicitResultSchema,
  );
  return {
    content: [text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)],
  };
}

function mcpServer(): Server {
  const server = new Server(
    { name: "conformance-tools", version: "1.0.0" },
    { capabilities: { tools: {}, logging: {}, ...RESOURCE_CAPABILITIES } },
  );
  serveResourcesAndPrompts(server, PNG);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: CONFORMANCE_TOOLS.map((tool) => ({ ...tool })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case "test_simple_text":
        return { content: [text("This is a simple text response for testing.")] };
      case "test_image_content":
        return { content: [{ type: "image", data: PNG, mimeType: "image/png" }] };
      case "test_audio_content":
        return { content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] };
      case "test_embedded_resource":
        return {
          content: [
            {
              type: "resource",
              resource: {
                uri: "test://embedded-resource",
                mimeType: "text/plain",
                text: "This is an embedded resource content.",
              },
            },
          ],
        };
      case "test_multiple_content_types":
        return {
          content: [
            text("Multiple content types test:"),
            { type: "image", data: PNG, mimeType: "image/png" },
            {
              type: "resource",
              resource: {
                uri: "test://mixed-content-resource",
                mimeType: "application/json",
                text: '{"test":"data","value":123}',
              },
            },
          ],
        };
      case "test_error_handling":
        return { isError: true, content: [text("This tool intentionally returns an error for testing")] };
      case "test_tool_with_logging":
        for (const data of ["Tool execution started", "Tool processing data", "Tool execution completed"]) {
          await extra.sendNotification({ method: "notifications/message", params: { level: "info", data } });
          await sleep(50);
        }
        return { content: [text("Tool with logging executed successfully")] };
      case "test_tool_with_progress": {
        const token = request.params._meta?.progressToken;
        for (const progress of [0, 50, 100]) {
          if (token !== undefined)
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress, total: 100 },
            });
          await sleep(50);
        }
        return { content: [text(String(token ?? "no progress token"))] };
      }
      case "test_sampling": {
        const answer = await extra.sendRequest(
          {
            method: "sampling/createMessage",
            params: { messages: [{ role: "user", content: text(String(args["prompt"])) }], maxTokens: 100 },
          },
          CreateMessageResultSchema,
        );
        return { content: [text(`LLM response: ${JSON.stringify(answer.content)}`)] };
      }
      case "test_elicitation": {
        const answer = await extra.sendRequest(
          {
            method: "elicitation/create",
            params: {
              message: String(args["message"]),
              requestedSchema: {
                type: "object",
                properties: { username: { type: "string" }, email: { type: "string" } },
                required: ["username", "email"],
              },
            },
          },
          ElicitResultSchema,
        );
        return { content: [text(`User response: ${JSON.stringify(answer)}`)] };
      }
      case "test_elicitation_sep1034_defaults":
        return elicited(extra, {
          name: { type: "string", default: "John Doe" },
          age: { type: "integer", default: 30 },
          score: { type: "number", default: 95.5 },
          status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
          verified: { type: "boolean", default: true },
        });
      case "test_elicitation_sep1330_enums":
        return elicited(extra, {
          untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
          titledSingle: {
            type: "string",
            oneOf: [
              { const: "value1", title: "First Option" },
              { const: "value2", title: "Second Option" },
              { const: "value3", title: "Third Option" },
            ],
          },
          legacyEnum: {
            type: "string",
            enum: ["opt1", "opt2", "opt3"],
            enumNames: ["Option One", "Option Two", "Option Three"],
          },
          untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
          titledMulti: {
            type: "array",
            items: {
              anyOf: [
                { const: "value1", title: "First Choice" },
                { const: "value2", title: "Second Choice" },
                { const: "value3", title: "Third Choice" },
              ],
            },
          },
        });
      case "json_schema_2020_12_tool":
        return { content: [text(`Received: ${JSON.stringify(args)}`)] };
      default:
        return { isError: true, content: [text(`Unknown tool: ${request.params.name}`)] };
    }
  });
  return server;
}

/** The open sessions' transports, by `Mcp-Session-Id`. */
const transports = new Map<string, StreamableHTTPServerTransport>();

function rpcError(res: ServerResponse, status: number, message: string): void {
  res
    .writeHead(status, { "content-type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url !== "/mcp") {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  const raw = Buffer.concat(chunks).toString("utf8");
  // A test server for the suite: the SDK transport takes the parsed body.
  const body: unknown = raw === "" ? undefined : JSON.parse(raw);
  const sessionId = req.headers["mcp-session-id"];
  if (typeof sessionId === "string") {
    const transport = transports.get(sessionId);
    if (transport === undefined) return rpcError(res, 404, "Session not found");
    await transport.handleRequest(req, res, body);
    return;
  }
  if (req.method !== "POST") return rpcError(res, 400, "Bad Request: No valid session ID provided");
  const server = mcpServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => void transports.set(id, transport),
    onsessionclosed: (id) => void transports.delete(id),
  });
  transport.onclose = () => {
    if (transport.sessionId !== undefined) transports.delete(transport.sessionId);
    void server.close();
  };
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/** Starts the server on 127.0.0.1 (a free port); answers its MCP URL and how to stop it. */
export async function startConformanceTools(): Promise<{ url: string; close: () => Promise<void> }> {
  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((done) => http.listen(0, "127.0.0.1", done));
  const address: AddressInfo | string | null = http.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((done) => http.close(() => done())),
  };
}
