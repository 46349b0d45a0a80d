import type { Outcome } from "../../result";
import { defineFeature } from "../../kernel/feature";
import { CapabilityCalls, type CapabilityCall } from "./calls";
import { capabilityRoutes } from "./routes";
import { CapabilityService } from "./service";
import { CapabilityTools } from "./tool-call";
import { CAPABILITY_MIGRATIONS } from "./store";

declare module "../../kernel/feature" {
  interface Services {
    readonly capability: CapabilityService;
    readonly capabilityCalls: CapabilityCalls;
    /** The capabilities providers offer, as tools of MCP and the tool-call route (./tool-call). */
    readonly capabilityTools: CapabilityTools;
  }
  interface Operations {
    /** `token` null: the Worker checked the admin secret. */
    capabilityCall(s: Services, consumer: string, token: string | null, call: CapabilityCall): Promise<Outcome<string>>;
  }
}

/** The capability engine: its tables, its next deadline from the alarm, the providers' long-polls. */
export const feature = defineFeature({
  name: "capability",
  routes: [capabilityRoutes],
  services: {
    capability: (use) => CapabilityService.of(use("kernel"), use("credentials")),
    capabilityCalls: (use) => new CapabilityCalls(use("kernel"), use("gate"), use("capability")),
    capabilityTools: (use) => new CapabilityTools(use("kernel"), use("capability")),
  },
  operations: { capabilityCall: (s, consumer, token, call) => s.capabilityCalls.call(consumer, token, call) },
  migrations: CAPABILITY_MIGRATIONS,
  alarm: (s) => s.capability.alarm(),
  memory: (s) => [
    { structure: "capability long-polls", entries: s.capability.waiting, cap: null, bound: "polls in flight only" },
  ],
});
