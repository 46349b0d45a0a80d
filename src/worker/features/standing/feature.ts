import type { Outcome } from "../../result";
import { defineFeature } from "../../kernel/feature";
import { StandingCalls, type StandingCall } from "./calls";
import { standingConsole, type StandingConsoleCall, type StandingConsoleReply } from "./console-call";
import { standingConsoleRoutes } from "./console-routes";
import { standingRoutes } from "./routes";
import { COMPILED_CONSTRAINTS, StandingService } from "./service";
import { STANDING_EXPIRY, STANDING_MIGRATIONS } from "./store";

declare module "../../kernel/feature" {
  interface Services {
    readonly standing: StandingService;
    readonly standingCalls: StandingCalls;
  }
  interface Operations {
    /** An approver's grant, list or revocation of standing approvals. */
    standingCall(s: Services, consumer: string, token: string, call: StandingCall): Outcome<string>;
    /** The console's standing approvals section, for a console session. */
    standingConsole(
      s: Services,
      consumer: string,
      sessionId: string,
      call: StandingConsoleCall,
    ): Outcome<StandingConsoleReply>;
  }
}

/** Standing approvals: an approver's bounded grant that covers a subject's calls of one tool (docs/approvals.md). */
export const feature = defineFeature({
  name: "standing",
  routes: [standingRoutes, standingConsoleRoutes],
  services: {
    standing: (use) => new StandingService(use("kernel")),
    standingCalls: (use) => new StandingCalls(use("gate"), use("tools"), use("standing")),
  },
  operations: {
    standingCall: (s, consumer, token, call) => s.standingCalls.call(consumer, token, call),
    standingConsole: (s, consumer, sessionId, call) => standingConsole(s, consumer, sessionId, call),
  },
  memory: (s) => [
    {
      structure: "compiled standing constraints",
      entries: s.standing.compiledConstraints,
      cap: COMPILED_CONSTRAINTS,
      bound: "LRU",
    },
  ],
  migrations: STANDING_MIGRATIONS,
  expiry: STANDING_EXPIRY,
});
