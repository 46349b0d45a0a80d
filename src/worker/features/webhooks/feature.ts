import type { Feature } from "../../kernel/feature";
import { WEBHOOK_MIGRATIONS } from "./store";

/** Webhook endpoints, messages and deliveries; what is due is delivered from the alarm. */
export const WEBHOOKS_FEATURE: Feature = {
  name: "webhooks",
  migrations: WEBHOOK_MIGRATIONS,
  alarm: (o) => o.webhooks.deliver(),
};
