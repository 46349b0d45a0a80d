import { Hono } from "hono";
import { ToolCallRequest, ToolCallResponse, ToolCallStatusRequest } from "../../contracts/tool-call";
import type { OperationDoc } from "../openapi";
import { consumerGate, credentialToken, jsonBody, type GateEnv } from "./middleware";
import { forObject, respond } from "./respond";

/** Agent routes of the tool-call plane (Tool Result v2). */
export const toolCallRoutes = new Hono<GateEnv>();

toolCallRoutes.post("/v1/consumers/:consumer/tool-calls", consumerGate("toolCall"), jsonBody(ToolCallRequest), async (c) => {
  const text = forObject(c.var.body);
  return text instanceof Response ? text : respond(await c.var.stub.toolCall(c.var.consumer, credentialToken(c.var.token), text));
});

toolCallRoutes.post("/v1/consumers/:consumer/tool-calls/status", consumerGate("toolCallStatus"), jsonBody(ToolCallStatusRequest), async (c) => {
  const text = forObject(c.var.body);
  return text instanceof Response ? text : respond(await c.var.stub.toolCallStatus(c.var.consumer, credentialToken(c.var.token), text));
});

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
  "PRINCIPAL_MISMATCH",
  "ROLE_NOT_ALLOWED",
  "TOOL_NOT_IN_SCOPE",
  "PRINCIPAL_TOKEN_REJECTED",
  "RATE_LIMITED",
  "QUOTA_EXCEEDED",
] as const;

/** OpenAPI descriptions of the tool-call routes. */
export const toolCallOperations: readonly OperationDoc[] = [
  {
    method: "post",
    path: "/v1/consumers/{consumer}/tool-calls",
    summary: "Dispatch one model-proposed tool call. Model-level failures are 200 with a failed or unknown model_result.",
    operation: "toolCall",
    request: ToolCallRequest,
    response: { status: 200, schema: ToolCallResponse, description: "The model result and the provider-native result item." },
    problems,
  },
  {
    method: "post",
    path: "/v1/consumers/{consumer}/tool-calls/status",
    summary: "Query the status of a write whose outcome is unknown (reconciles from the downstream receipt).",
    operation: "toolCallStatus",
    request: ToolCallStatusRequest,
    response: { status: 200, schema: ToolCallResponse, description: "The model result and the provider-native result item." },
    problems: problems.filter((p) => p !== "IDEMPOTENCY_IN_PROGRESS"),
  },
];
