import { MAX_BATCH_BODY_BYTES, ToolCallBatchRequest, ToolCallBatchResponse } from "../../../contracts/tool-call-batch";
import { noIdempotencyKeyHeader } from "../../http/idempotency-key";
import { credentialToken, jsonBody } from "../../http/middleware";
import { sendBody } from "../../http/respond";
import { handlers, type RouteModule } from "../../http/route";
import { incomingTrace } from "../../trace/context";
import { DOCS } from "../../../contracts/docs";

/** The agent's batch route: all the tool calls of one model turn, answered as one provider message. */
export const toolCallBatchRoutes: RouteModule = {
  routes: [
    {
      method: "post",
      path: "/v1/consumers/{consumer}/tool-calls/batch",
      summary: DOCS
        ? "Dispatch all the tool calls of one model turn, each as its own tool call (in order; its own approvals, idempotency and audit entry), and answer them as the provider's one message for the turn."
        : "",
      operation: "toolCallBatch",
      auth: "credential",
      request: ToolCallBatchRequest,
      response: {
        status: 200,
        schema: ToolCallBatchResponse,
        description: DOCS
          ? "Each call's answer in call order (or the problem the single route would have answered), and the turn's provider message when every call was answered."
          : "",
      },
      problems: [
        "UNAUTHENTICATED",
        "FORBIDDEN",
        "NOT_FOUND",
        "INVALID_JSON",
        "INVALID_REQUEST",
        "INVALID_HOST_CONTEXT",
        "INVALID_PROVIDER_ITEM",
        "INVALID_IDEMPOTENCY_KEY",
        "BODY_TOO_LARGE",
        "UNSUPPORTED_MEDIA_TYPE",
      ],
      handlers: handlers(
        // Each call carries its own key in the body: one header cannot name them all.
        noIdempotencyKeyHeader(),
        jsonBody(ToolCallBatchRequest, { maxBytes: MAX_BATCH_BODY_BYTES }),
        (c) =>
          sendBody(c.var.body, (body) =>
            c.var.object.toolCallBatch(c.var.consumer, credentialToken(c.var.token), body, incomingTrace(c.req.raw)),
          ),
      ),
    },
  ],
};
