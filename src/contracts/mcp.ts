/**
 * The JSON-RPC messages a consumer's MCP endpoint (`…/mcp`, Streamable HTTP) accepts, and the
 * params of each method it serves. Shapes follow the MCP schema of protocol versions 2025-11-25
 * and 2025-06-18; params objects are open (unknown members are ignored), envelopes are closed.
 * docs/mcp.md describes the endpoint.
 * @module
 */
import * as z from "../core/zod";
import { ApprovalWords } from "./approval";
import { httpSchemas, Identifier, JsonObjectValue } from "./registry";
import { PROBLEM_MEMBERS, ProblemCodeSchema } from "./problem";
import { DOCS } from "./docs";

/** Protocol versions the endpoint speaks, newest first (the first is answered to any other request). */
export const MCP_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18"] as const;

/** A negotiated protocol version. */
export type McpProtocolVersion = (typeof MCP_PROTOCOL_VERSIONS)[number];

/** The version answered to a client that asks for one the endpoint does not speak. */
export const MCP_LATEST_VERSION: McpProtocolVersion = "2025-11-25";

/** Whether a text names a version the endpoint speaks. */
export function isMcpVersion(version: string): version is McpProtocolVersion {
  return (MCP_PROTOCOL_VERSIONS as readonly string[]).includes(version);
}

/** `_meta` keys the gate reads on a `tools/call` request and writes on its result. */
export const MCP_META = {
  idempotencyKey: "io.toolgate/idempotency_key",
  operationId: "io.toolgate/operation_id",
  callId: "io.toolgate/call_id",
  approvalId: "io.toolgate/approval_id",
  statusRef: "io.toolgate/status_ref",
  rationale: "io.toolgate/rationale",
  audit: "io.toolgate/audit",
  /** On the result of a tool whose target is an MCP server: what the gate's answer carries beside the downstream's. */
  receipt: "io.toolgate/receipt",
  relatedTask: "io.modelcontextprotocol/related-task",
} as const;

/** The JSON-RPC error codes the endpoint answers (docs/mcp.md, "Errors"). */
export const RPC_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  /** A refusal of the gate (its problem code in `error.data.code`). */
  refused: -32000,
  /** The session is unknown, ended, or another credential's. */
  sessionNotFound: -32001,
} as const;

/** A JSON-RPC request id as MCP allows it: a string or an integer (never null). */
export const JsonRpcId = z.deferred(() => z.union([z.string(), z.int()]));

/** A JSON-RPC request id. */
export type JsonRpcId = z.infer<typeof JsonRpcId>;

const Jsonrpc = z.deferred(() => z.literal("2.0"));

/** A request: answered with a result or an error. */
export const JsonRpcRequest = z.deferred(() =>
  z.strictObject({
    jsonrpc: Jsonrpc,
    id: JsonRpcId,
    method: z.string().check(z.minLength(1)),
    params: z.optional(JsonObjectValue),
  }),
);

/** A notification: no id, never answered. */
export const JsonRpcNotification = z.deferred(() =>
  z.strictObject({
    jsonrpc: Jsonrpc,
    method: z.string().check(z.minLength(1)),
    params: z.optional(JsonObjectValue),
  }),
);

/** A response: the endpoint's answer to a request, or a client's answer to a relayed request (acknowledged with 202). */
export const JsonRpcResponse = z.deferred(() =>
  z
    .union([
      z.strictObject({ jsonrpc: Jsonrpc, id: JsonRpcId, result: JsonObjectValue }),
      z.strictObject({
        jsonrpc: Jsonrpc,
        id: z.nullable(JsonRpcId),
        error: z.strictObject({ code: z.int(), message: z.string(), data: z.optional(z.unknown()) }),
      }),
    ])
    .register(httpSchemas, {
      id: "McpResponse",
      description: DOCS ? "A JSON-RPC 2.0 response: `result` or `error`." : "",
    }),
);

/** One JSON-RPC message: the body of a `POST …/mcp` (batches are refused: MCP 2025-06-18 removed them). */
export const JsonRpcMessage = z.deferred(() =>
  z
    .union([JsonRpcRequest, JsonRpcNotification, JsonRpcResponse])
    .check(z.meta({ description: DOCS ? "One JSON-RPC 2.0 message of the Model Context Protocol (docs/mcp.md)." : "" }))
    .register(httpSchemas, { id: "McpMessage" }),
);

/** A parsed JSON-RPC message. */
export type JsonRpcMessage = z.infer<typeof JsonRpcMessage>;

/** `initialize`. */
export const InitializeParams = z.deferred(() =>
  z.looseObject({
    protocolVersion: z.string(),
    capabilities: JsonObjectValue,
    clientInfo: z.looseObject({ name: z.string(), version: z.string() }),
  }),
);

/** The `_meta` of a `tools/call`: the gate's keys are checked, any other key is ignored. */
export const CallToolMeta = z.deferred(() =>
  z.looseObject({
    [MCP_META.idempotencyKey]: z.optional(Identifier),
    [MCP_META.operationId]: z.optional(Identifier),
    [MCP_META.callId]: z.optional(Identifier),
    [MCP_META.statusRef]: z.optional(z.string().check(z.regex(/^status_[0-9a-f]{32}$/))),
    [MCP_META.rationale]: z.optional(ApprovalWords),
  }),
);

/** `tools/call` (with `task` under 2025-11-25: run as a task). */
export const CallToolParams = z.deferred(() =>
  z.looseObject({
    name: z.string(),
    arguments: z.optional(JsonObjectValue),
    task: z.optional(z.looseObject({ ttl: z.optional(z.int().check(z.gte(0))) })),
    _meta: z.optional(CallToolMeta),
  }),
);

/** A parsed `tools/call`. */
export type CallToolParams = z.infer<typeof CallToolParams>;

/** `tasks/get`, `tasks/result`, `tasks/cancel`. */
export const TaskParams = z.deferred(() => z.looseObject({ taskId: z.string() }));

/** `tools/list`, `tasks/list`: an optional cursor the endpoint answered before. */
export const ListParams = z.deferred(() => z.looseObject({ cursor: z.optional(z.string()) }));

/** `logging/setLevel`. */
export const SetLevelParams = z.deferred(() =>
  z.looseObject({
    level: z.enum(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]),
  }),
);

const textBlock = z.deferred(() => z.looseObject({ type: z.literal("text"), text: z.string() }));
const mediaBlock = z.deferred(() =>
  z.looseObject({ type: z.enum(["image", "audio"]), data: z.string(), mimeType: z.string() }),
);
const resourceBlock = z.deferred(() =>
  z.looseObject({
    type: z.literal("resource"),
    resource: z.union([
      z.looseObject({ uri: z.string(), text: z.string() }),
      z.looseObject({ uri: z.string(), blob: z.string() }),
    ]),
  }),
);
const linkBlock = z.deferred(() =>
  z.looseObject({ type: z.literal("resource_link"), uri: z.string(), name: z.string() }),
);

/** One MCP content block with its required members (text, image, audio, embedded resource, resource link). */
export const ContentBlock = z.deferred(() => z.union([textBlock, mediaBlock, resourceBlock, linkBlock]));

/** A block of a sampling message: text, image, audio, or (2025-11-25) a tool use or tool result. */
const SamplingBlock = z.deferred(() =>
  z.looseObject({ type: z.enum(["text", "image", "audio", "tool_use", "tool_result"]) }),
);

/**
 * `sampling/createMessage` of a downstream server that the gate may relay to its MCP client
 * (docs/mcp.md, "Sampling and elicitation (opt-in)"). `includeContext` other than `none` is
 * refused: it would ask the client to send what other servers told its model to the downstream.
 */
export const CreateMessageParams = z.deferred(() =>
  z.looseObject({
    messages: z
      .array(
        z.looseObject({
          role: z.enum(["user", "assistant"]),
          content: z.union([SamplingBlock, z.array(SamplingBlock).check(z.minLength(1), z.maxLength(64))]),
        }),
      )
      .check(z.minLength(1), z.maxLength(256)),
    maxTokens: z.int().check(z.gte(1)),
    systemPrompt: z.optional(z.string()),
    includeContext: z.optional(z.literal("none")),
    temperature: z.optional(z.number()),
    stopSequences: z.optional(z.array(z.string()).check(z.maxLength(64))),
    modelPreferences: z.optional(JsonObjectValue),
    metadata: z.optional(JsonObjectValue),
  }),
);

/** `elicitation/create` of a downstream server that the gate may relay: a form (a flat object schema) or a URL. */
export const ElicitParams = z.deferred(() =>
  z.union([
    z.looseObject({
      mode: z.optional(z.literal("form")),
      message: z.string(),
      requestedSchema: z.looseObject({
        type: z.literal("object"),
        properties: z.record(z.string(), JsonObjectValue),
        required: z.optional(z.array(z.string())),
      }),
    }),
    z.looseObject({ mode: z.literal("url"), message: z.string(), url: z.url(), elicitationId: z.string() }),
  ]),
);

/**
 * A refusal of the MCP endpoint: RFC 9457 problem details that are also a JSON-RPC error
 * response, so an MCP client reads it either way (the 401 before the endpoint's own checks is
 * a plain problem).
 */
export const McpProblem = z.deferred(() =>
  z
    .strictObject({
      ...PROBLEM_MEMBERS(),
      jsonrpc: z.optional(Jsonrpc),
      id: z
        .optional(z.nullable(JsonRpcId))
        .check(z.describe(DOCS ? "The refused request's id, when it was read." : "")),
      error: z.optional(
        z.strictObject({
          code: z.int(),
          message: z.string(),
          data: z.strictObject({ code: ProblemCodeSchema, retry_after_seconds: z.optional(z.int()) }),
        }),
      ),
    })
    .register(httpSchemas, { id: "McpProblem" }),
);
