import type { Outcome } from "../../result";
import { defineFeature } from "../../kernel/feature";
import { consoleRoutes } from "./routes";
import { ConsoleService, type ConsoleCall, type ConsoleReply, type ConsoleSignedIn } from "./service";
import { CONSOLE_MIGRATIONS } from "./store";

declare module "../../kernel/feature" {
  interface Services {
    /** The approver console's sessions and calls. */
    readonly console: ConsoleService;
  }
  interface Operations {
    consoleSignIn(s: Services, consumer: string, token: string, sessionId: string): Outcome<ConsoleSignedIn>;
    consoleCall(s: Services, consumer: string, sessionId: string, call: ConsoleCall): Outcome<ConsoleReply>;
  }
}

/** The approver console (docs/console.md): its pages and its sessions. */
export const feature = defineFeature({
  name: "console",
  // HTML pages with a cookie session, not part of the OpenAPI document.
  routes: [consoleRoutes],
  services: {
    console: (use) =>
      new ConsoleService(use("kernel"), use("credentials"), use("toolCalls"), use("gate"), use("tools").shadow),
  },
  operations: {
    consoleSignIn: (s, consumer, token, sessionId) => s.console.signIn(consumer, token, sessionId),
    consoleCall: (s, consumer, sessionId, call) => s.console.call(consumer, sessionId, call),
  },
  migrations: CONSOLE_MIGRATIONS,
});
