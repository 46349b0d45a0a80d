import type { Outcome } from "../../result";
import { defineFeature } from "../../kernel/feature";
import { runtimeRoutes } from "./routes";
import { RuntimeTransport, type RuntimeReply } from "./service";
import { RUNTIME_EXPIRY, RUNTIME_MIGRATIONS } from "./store";

declare module "../../kernel/feature" {
  interface Services {
    readonly runtime: RuntimeTransport;
  }
  interface Operations {
    /** One execution envelope posted over HTTP. */
    runtimeEnvelope(s: Services, consumer: string, token: string, body: Uint8Array): Promise<Outcome<RuntimeReply>>;
  }
}

/** The runtime transport: facade actions, the outbox and purges, and the rows of them that expire. */
export const feature = defineFeature({
  name: "runtime",
  routes: [runtimeRoutes],
  services: {
    runtime: (use) => new RuntimeTransport(use("kernel"), use("toolCalls"), use("credentials"), use("gate")),
  },
  operations: { runtimeEnvelope: (s, consumer, token, body) => s.runtime.post(consumer, token, body) },
  migrations: RUNTIME_MIGRATIONS,
  expiry: RUNTIME_EXPIRY,
});
