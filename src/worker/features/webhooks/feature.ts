import type { Outcome } from "../../result";
import { defineFeature } from "../../kernel/feature";
import { WebhooksCalls, type WebhooksCall } from "./calls";
import { webhookRoutes } from "./routes";
import { publicOrigin, WebhookService } from "./service";
import { WEBHOOK_MIGRATIONS } from "./store";

declare module "../../kernel/feature" {
  interface Services {
    readonly webhooks: WebhookService;
    readonly webhooksCalls: WebhooksCalls;
  }
  interface Operations {
    /** The admin service's webhook operations (the Worker checked the admin secret). */
    webhooksCall(s: Services, consumer: string, call: WebhooksCall): Promise<Outcome<string | null>>;
  }
}

/** Webhook endpoints, messages and deliveries; what is due is delivered from the alarm. */
export const feature = defineFeature({
  name: "webhooks",
  routes: [webhookRoutes],
  services: {
    webhooks: (use) => {
      const kernel = use("kernel");
      const webhooks = new WebhookService(kernel, use("tools").vault, publicOrigin(kernel.env.TOOLGATE_PUBLIC_URL));
      // A durable listener of the events bus: each event is queued in the transaction that raised it.
      kernel.events.durable((event, now) => webhooks.enqueue(event, now));
      return webhooks;
    },
    webhooksCalls: (use) => new WebhooksCalls(use("kernel"), use("gate"), use("webhooks")),
  },
  operations: { webhooksCall: (s, consumer, call) => s.webhooksCalls.call(consumer, call) },
  migrations: WEBHOOK_MIGRATIONS,
  start: (s) => s.webhooks.rearm(),
  alarm: (s) => s.webhooks.deliver(),
});
