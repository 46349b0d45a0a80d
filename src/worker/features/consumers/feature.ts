import type { Outcome } from "../../result";
import { defineFeature } from "../../kernel/feature";
import { AdminCalls, type AdminCall } from "./admin-call";
import { adminReadRoutes } from "./read-routes";
import { adminRoutes } from "./routes";
import { CONSUMER_MIGRATIONS } from "./store";

declare module "../../kernel/feature" {
  interface Services {
    readonly admin: AdminCalls;
  }
  interface Operations {
    /** An admin operation (the Worker checked the admin secret). */
    admin(s: Services, consumer: string, call: AdminCall): Outcome<string | null>;
  }
}

/** The consumer's configuration (its one row) and the admin service's operations on it. */
export const feature = defineFeature({
  name: "consumers",
  routes: [adminRoutes, adminReadRoutes],
  services: {
    admin: (use) =>
      new AdminCalls(
        use("kernel"),
        use("gate"),
        use("credentials"),
        use("tools"),
        use("toolCalls"),
        use("runtime"),
        use("revocation"),
      ),
  },
  operations: { admin: (s, consumer, call) => s.admin.call(consumer, call) },
  migrations: CONSUMER_MIGRATIONS,
});
