import { WebhookEndpointRequest } from "../../../contracts/webhook";
import type { Outcome } from "../../result";
import { received, type Carried } from "../rpc";
import type { WebhookPlane } from "./plane";

/** One call of the webhooks plane, as the Worker hands it to the consumer's object; `kind` is its operation (admin only). */
export type WebhooksCall =
  | {
      kind: "createWebhook";
      /** The request the Worker read and validated, as RPC carries it (../rpc.ts). */
      request: Carried<WebhookEndpointRequest>;
    }
  | { kind: "listWebhooks"; cursor: string | null }
  | { kind: "getWebhook"; endpointId: string }
  | { kind: "deleteWebhook"; endpointId: string }
  | { kind: "listWebhookDeliveries"; endpointId: string | null; cursor: string | null }
  | { kind: "redeliverWebhook"; deliveryId: string };

/** Runs one webhooks call (`pageItems`: the consumer's page size). */
export async function webhooksCall(
  plane: WebhookPlane,
  call: WebhooksCall,
  pageItems: number,
): Promise<Outcome<string | null>> {
  switch (call.kind) {
    case "createWebhook":
      return plane.create(received(call.request, WebhookEndpointRequest));
    case "listWebhooks":
      return plane.list(call.cursor, pageItems);
    case "getWebhook":
      return plane.get(call.endpointId);
    case "deleteWebhook":
      return plane.delete(call.endpointId);
    case "listWebhookDeliveries":
      return plane.deliveries(call.endpointId, call.cursor, pageItems);
    case "redeliverWebhook":
      return plane.redeliver(call.deliveryId);
  }
}
