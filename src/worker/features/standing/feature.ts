import type { Outcome } from "../../result";
import { defineFeature } from "../../kernel/feature";
import { StandingCalls, type StandingCall } from "./calls";
import { standingRoutes } from "./routes";
import { StandingService } from "./service";
import { STANDING_EXPIRY, STANDING_MIGRATIONS } from "./store";

declare module "../../kernel/feature" {
  interface Services {
    readonly standing: StandingService;
    readonly standingCalls: StandingCalls;
  }
  interface Operations {
    /** An approver's grant, list or revocation of standing approvals. */
    standingCall(s: Services, consumer: string, token: string, call: StandingCall): Outcome<string>;
  }
}

/** Standing approvals: an approver's bounded grant that covers a subject's calls of one tool (docs/approvals.md). */
export const feature = defineFeature({
  name: "standing",
  routes: [standingRoutes],
  services: {
    standing: (use) => new StandingService(use("kernel")),
    standingCalls: (use) => new StandingCalls(use("gate"), use("tools"), use("standing")),
  },
  operations: { standingCall: (s, consumer, token, call) => s.standingCalls.call(consumer, token, call) },
  migrations: STANDING_MIGRATIONS,
  expiry: STANDING_EXPIRY,
});
