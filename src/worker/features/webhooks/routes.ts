import type { MiddlewareHandler } from "hono";
import {
  WebhookDeliveryId,
  WebhookDeliveryPage,
  WebhookDeliveryView,
  WebhookEndpointCreated,
  WebhookEndpointId,
  WebhookEndpointList,
  WebhookEndpointRequest,
  WebhookEndpointView,
} from "../../../contracts/webhook";
import type { WebhooksCall } from "./calls";
import { problem, problemResponse } from "../../http/problem";
import { jsonBody, type ConsumerVariables, type GateEnv } from "../../http/middleware";
import { respond, sendBody } from "../../http/respond";
import { adminBodyProblems, handlers, pathParam, type RouteModule } from "../../http/route";
import { DOCS } from "../../../contracts/docs";

async function call(gate: ConsumerVariables, request: WebhooksCall, status: 200 | 201 = 200): Promise<Response> {
  return respond(await gate.object.webhooksCall(gate.consumer, request), status);
}

const endpoint: MiddlewareHandler<GateEnv> = async function endpoint(c, next) {
  if (!WebhookEndpointId.safeParse(c.req.param("endpoint_id")).success)
    return problemResponse(problem("NOT_FOUND", "No such webhook endpoint."));
  await next();
};

const P = "/v1/consumers/{consumer}/webhooks";

/** Admin routes of webhook endpoints (docs/webhooks.md): create, list, read, delete; the delivery log and a redelivery. */
export const webhookRoutes: RouteModule = {
  routes: [
    {
      method: "post",
      path: P,
      summary: DOCS
        ? "Create a webhook endpoint for the consumer's events (docs/webhooks.md); its Standard Webhooks signing secret is answered this once."
        : "",
      operation: "createWebhook",
      auth: "admin-secret",
      request: WebhookEndpointRequest,
      response: {
        status: 201,
        schema: WebhookEndpointCreated,
        description: DOCS ? "The endpoint and its `secret`." : "",
      },
      problems: adminBodyProblems("QUOTA_EXCEEDED", "WEBHOOKS_NOT_CONFIGURED"),
      handlers: handlers(jsonBody(WebhookEndpointRequest), (c) =>
        sendBody(
          c.var.body,
          (request) => c.var.object.webhooksCall(c.var.consumer, { kind: "createWebhook", request }),
          201,
        ),
      ),
    },
    {
      method: "get",
      path: P,
      summary: DOCS
        ? "The consumer's webhook endpoints, oldest first (never a secret), at most the consumer's page_items per page."
        : "",
      operation: "listWebhooks",
      auth: "admin-secret",
      query: {
        cursor: {
          description: DOCS
            ? "The `next_cursor` of the page before (opaque; anything else is 400 INVALID_CURSOR)."
            : "",
          schema: { type: "string", maxLength: 400 },
        },
      },
      response: {
        status: 200,
        schema: WebhookEndpointList,
        description: DOCS ? "`{endpoints: [endpoint], next_cursor}`; `next_cursor` is null on the last page." : "",
      },
      problems: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_CURSOR"],
      handlers: handlers((c) => call(c.var, { kind: "listWebhooks", cursor: c.req.query("cursor") ?? null })),
    },
    {
      method: "get",
      path: `${P}/deliveries`,
      summary: DOCS
        ? "The delivery log, newest first: each message to each endpoint, its state and every attempt (status code, duration, error class)."
        : "",
      operation: "listWebhookDeliveries",
      auth: "admin-secret",
      query: {
        endpoint_id: { description: DOCS ? "Only this endpoint's deliveries." : "", schema: { type: "string" } },
        cursor: { description: DOCS ? "The `next_cursor` of the page before." : "", schema: { type: "string" } },
      },
      response: {
        status: 200,
        schema: WebhookDeliveryPage,
        description: DOCS ? "One page; `next_cursor` is null on the last." : "",
      },
      problems: ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_CURSOR"],
      // The delivery log's paths first: `deliveries` is no endpoint id.
      handlers: handlers((c) => {
        const endpointId = c.req.query("endpoint_id") ?? null;
        if (endpointId !== null && !WebhookEndpointId.safeParse(endpointId).success)
          return problemResponse(problem("NOT_FOUND", "No such webhook endpoint."));
        return call(c.var, { kind: "listWebhookDeliveries", endpointId, cursor: c.req.query("cursor") ?? null });
      }),
    },
    {
      method: "post",
      path: `${P}/deliveries/{delivery_id}/redeliver`,
      summary: DOCS
        ? "Send a finished delivery's message again (the same `webhook-id` and body): a new delivery, queued behind the endpoint's earlier ones."
        : "",
      operation: "redeliverWebhook",
      auth: "admin-secret",
      response: { status: 202, schema: WebhookDeliveryView, description: DOCS ? "The new delivery (pending)." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND", "WEBHOOK_DELIVERY_PENDING", "QUOTA_EXCEEDED"],
      handlers: handlers(async (c) => {
        const deliveryId = pathParam(c, "delivery_id");
        if (!WebhookDeliveryId.safeParse(deliveryId).success)
          return problemResponse(problem("NOT_FOUND", "No such webhook delivery."));
        const outcome = await c.var.object.webhooksCall(c.var.consumer, { kind: "redeliverWebhook", deliveryId });
        if (!outcome.ok) return problemResponse(outcome.error);
        // Accepted: the new delivery is queued behind the endpoint's earlier ones and sent from the alarm.
        return new Response(outcome.value, { status: 202, headers: { "content-type": "application/json" } });
      }),
    },
    {
      method: "get",
      path: `${P}/{endpoint_id}`,
      summary: DOCS ? "One webhook endpoint (never its secret)." : "",
      operation: "getWebhook",
      auth: "admin-secret",
      response: { status: 200, schema: WebhookEndpointView, description: DOCS ? "The endpoint." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND"],
      handlers: handlers(endpoint, (c) => call(c.var, { kind: "getWebhook", endpointId: pathParam(c, "endpoint_id") })),
    },
    {
      method: "delete",
      path: `${P}/{endpoint_id}`,
      summary: DOCS ? "Delete an endpoint with its secret and its deliveries (pending ones are never sent)." : "",
      operation: "deleteWebhook",
      auth: "admin-secret",
      response: { status: 204, description: DOCS ? "Deleted." : "" },
      problems: ["UNAUTHENTICATED", "NOT_FOUND"],
      handlers: handlers(endpoint, (c) =>
        call(c.var, { kind: "deleteWebhook", endpointId: pathParam(c, "endpoint_id") }),
      ),
    },
  ],
};
