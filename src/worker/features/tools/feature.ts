import type { Outcome } from "../../result";
import { defineFeature } from "../../kernel/feature";
import { ToolsCalls, type ToolsCall } from "./calls";
import { ToolsHost } from "./host";
import { toolRoutes } from "./routes";
import { SHADOW_EXPIRY, SHADOW_MIGRATIONS } from "./shadow-store";
import { TOOL_MIGRATIONS } from "./store";

declare module "../../kernel/feature" {
  interface Services {
    readonly tools: ToolsHost;
    readonly toolsCalls: ToolsCalls;
  }
  interface Operations {
    /** Tools, secrets and MCP servers; `token` null: the Worker checked the admin secret. */
    toolsCall(s: Services, consumer: string, token: string | null, call: ToolsCall): Promise<Outcome<string | null>>;
  }
}

/** Tools defined as data and their versions (and their shadow rules' records), with the secrets and MCP servers they use. */
export const feature = defineFeature({
  name: "tools",
  routes: [toolRoutes],
  services: {
    tools: (use) => new ToolsHost(use("kernel"), use("codeTools")),
    toolsCalls: (use) => new ToolsCalls(use("kernel"), use("gate"), use("tools"), use("toolCalls")),
  },
  operations: { toolsCall: (s, consumer, token, call) => s.toolsCalls.call(consumer, token, call) },
  migrations: [...TOOL_MIGRATIONS, ...SHADOW_MIGRATIONS],
  expiry: SHADOW_EXPIRY,
});
