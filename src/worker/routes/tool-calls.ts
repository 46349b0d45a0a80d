import { type Context, Hono } from "hono";
import { credentialOf } from "../auth";
import { readBody } from "../body";
import { ToolCallRequest, ToolCallResponse, ToolCallStatusRequest } from "../contracts/tool-call";
import type { Env } from "../env";
import type { OperationDoc } from "../openapi";
import { problem, problemResponse } from "../problem";
import { canonicalJson, JsonDomainError } from "../../core/json";
import { consumerStub, respond } from "./respond";

/**
 * The validated body as canonical JSON text for the object: RPC cannot carry the reader's
 * `PyFloat` (an integral float such as `1.0`), and text keeps it exact.
 */
function forObject(value: unknown): string | Response {
  try {
    return canonicalJson(value);
  } catch (error) {
    if (error instanceof JsonDomainError) return problemResponse(problem("INVALID_REQUEST", error.message));
    throw error;
  }
}

/** Agent routes of the tool-call plane (Tool Result v2). */
export const toolCallRoutes = new Hono<{ Bindings: Env }>();

/**
 * The two agent routes differ only in their body contract and the object method: authenticate the
 * shape, read the body once, hand the object canonical text.
 */
function agentRoute(schema: typeof ToolCallRequest | typeof ToolCallStatusRequest, method: "toolCall" | "toolCallStatus") {
  return async (c: Context<{ Bindings: Env }>): Promise<Response> => {
    const credential = credentialOf(c);
    if (credential instanceof Response) return credential;
    const stub = consumerStub(c.env, c.req.param("consumer") ?? "");
    if (stub instanceof Response) return stub;
    const body = await readBody(c.req.raw, schema);
    if (!body.ok) return problemResponse(body.problem);
    const text = forObject(body.value);
    if (text instanceof Response) return text;
    return respond(await stub[method](c.req.param("consumer") ?? "", credential.token, text));
  };
}

toolCallRoutes.post("/v1/consumers/:consumer/tool-calls", agentRoute(ToolCallRequest, "toolCall"));
toolCallRoutes.post("/v1/consumers/:consumer/tool-calls/status", agentRoute(ToolCallStatusRequest, "toolCallStatus"));

const problems = [
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "NOT_FOUND",
  "INVALID_JSON",
  "INVALID_REQUEST",
  "INVALID_HOST_CONTEXT",
  "INVALID_PROVIDER_ITEM",
  "BODY_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "IDEMPOTENCY_IN_PROGRESS",
] as const;

/** OpenAPI descriptions of the tool-call routes. */
export const toolCallOperations: readonly OperationDoc[] = [
  {
    method: "post",
    path: "/v1/consumers/{consumer}/tool-calls",
    summary: "Dispatch one model-proposed tool call. Model-level failures are 200 with a failed or unknown model_result.",
    auth: "agent",
    request: ToolCallRequest,
    response: { status: 200, schema: ToolCallResponse, description: "The model result and the provider-native result item." },
    problems,
  },
  {
    method: "post",
    path: "/v1/consumers/{consumer}/tool-calls/status",
    summary: "Query the status of a write whose outcome is unknown (reconciles from the downstream receipt).",
    auth: "agent",
    request: ToolCallStatusRequest,
    response: { status: 200, schema: ToolCallResponse, description: "The model result and the provider-native result item." },
    problems: problems.filter((p) => p !== "IDEMPOTENCY_IN_PROGRESS"),
  },
];
