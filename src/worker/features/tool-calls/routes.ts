import { ToolCallRequest, ToolCallResponse, ToolCallStatusRequest } from "../../../contracts/tool-call";
import { keyedJsonBody } from "../../http/idempotency-key";
import { credentialToken } from "../../http/middleware";
import { sendBody } from "../../http/respond";
import { handlers, type RouteModule } from "../../http/route";
import { incomingTrace } from "../../trace/context";
import { DOCS } from "../../../contracts/docs";

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
  "INVALID_IDEMPOTENCY_KEY",
  "IDEMPOTENCY_KEY_MISMATCH",
] as const;

/** The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header), documented on each route that reads it. */
export const IDEMPOTENCY_KEY_HEADER = {
  "Idempotency-Key": {
    description: DOCS
      ? 'The call\'s idempotency key as a structured-field String (`"k-1"`; a bare token `k-1` is accepted too), 1..255 characters: it fills `context.idempotency_key` when the body has none (or null); both given and different is 422 IDEMPOTENCY_KEY_MISMATCH; malformed, or sent more than once, is 400 INVALID_IDEMPOTENCY_KEY.'
      : "",
    schema: { type: "string", maxLength: 1024 },
  },
} as const;

/** Agent routes of the tool-call service (Tool Result v2). */
export const toolCallRoutes: RouteModule = {
  routes: [
    {
      method: "post",
      path: "/v1/consumers/{consumer}/tool-calls",
      summary: DOCS
        ? "Dispatch one model-proposed tool call. Model-level failures are 200 with a failed or unknown model_result."
        : "",
      operation: "toolCall",
      auth: "credential",
      headers: IDEMPOTENCY_KEY_HEADER,
      request: ToolCallRequest,
      response: {
        status: 200,
        schema: ToolCallResponse,
        description: DOCS ? "The model result and the provider-native result item." : "",
      },
      problems,
      handlers: handlers(keyedJsonBody(ToolCallRequest), (c) =>
        sendBody(c.var.body, (body) =>
          c.var.object.toolCall(c.var.consumer, credentialToken(c.var.token), body, incomingTrace(c.req.raw)),
        ),
      ),
    },
    {
      method: "post",
      path: "/v1/consumers/{consumer}/tool-calls/status",
      summary: DOCS
        ? "Query the status of a write whose outcome is unknown (reconciles from the downstream receipt)."
        : "",
      operation: "toolCallStatus",
      auth: "credential",
      headers: IDEMPOTENCY_KEY_HEADER,
      request: ToolCallStatusRequest,
      response: {
        status: 200,
        schema: ToolCallResponse,
        description: DOCS ? "The model result and the provider-native result item." : "",
      },
      problems: problems.filter((p) => p !== "IDEMPOTENCY_IN_PROGRESS"),
      handlers: handlers(keyedJsonBody(ToolCallStatusRequest), (c) =>
        sendBody(c.var.body, (body) => c.var.object.toolCallStatus(c.var.consumer, credentialToken(c.var.token), body)),
      ),
    },
  ],
};
