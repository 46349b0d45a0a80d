import { WebhookEndpointRequest } from "../../../contracts/webhook";
import type { Outcome } from "../../result";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import type { ObjectKernel } from "../../kernel/kernel";
import { received, type Carried } from "../../kernel/rpc";
import type { WebhookService } from "./service";

/** One call of the webhooks service, as the Worker hands it to the consumer's object; `kind` is its operation (admin only). */
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

/** The webhooks service's calls (admin only: the Worker checked the admin secret). */
export class WebhooksCalls {
  constructor(
    private readonly kernel: Pick<ObjectKernel, "limits">,
    private readonly gate: Gatekeeper,
    private readonly plane: WebhookService,
  ) {}

  /** One call: the consumer it names, for an operation the admin secret may make, then {@link webhooksCall}. */
  async call(consumer: string, call: WebhooksCall): Promise<Outcome<string | null>> {
    const config = this.gate.admin(consumer, call.kind);
    return config.ok ? webhooksCall(this.plane, call, this.kernel.limits().page_items) : config;
  }
}

/** Runs one webhooks call (`pageItems`: the consumer's page size). */
export async function webhooksCall(
  plane: WebhookService,
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
