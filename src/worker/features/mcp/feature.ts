import type { Outcome } from "../../result";
import { defineFeature } from "../../kernel/feature";
import { MAX_RELAYED_REQUESTS } from "./requests";
import { MAX_WATCHED_PER_SESSION } from "./elicitations";
import { mcpRoutes } from "./routes";
import { McpService, type McpReply, type McpRequest } from "./service";
import { MCP_EXPIRY, MCP_MIGRATIONS } from "./store";

declare module "../../kernel/feature" {
  interface Services {
    readonly mcp: McpService;
  }
  interface Operations {
    /** One JSON-RPC message of the consumer's MCP endpoint. */
    mcp(s: Services, consumer: string, token: string, request: McpRequest): Promise<Outcome<McpReply>>;
  }
}

/** The MCP server: sessions and tasks, and the sampling and elicitation requests awaiting the client. */
export const feature = defineFeature({
  name: "mcp",
  routes: [mcpRoutes],
  services: {
    mcp: (use) => {
      const tools = use("tools");
      return new McpService(
        use("kernel"),
        use("toolCalls"),
        use("admission"),
        use("gate"),
        use("agentCalls"),
        tools.mcp,
        // A name is one definition: a data tool's name is never a catalog or code tool's.
        (tool) => tools.data.built().some((b) => b.spec.name === tool && b.target.kind === "mcp"),
        use("capabilityTools"),
      );
    },
  },
  operations: { mcp: (s, consumer, token, request) => s.mcp.call(consumer, token, request) },
  migrations: MCP_MIGRATIONS,
  expiry: MCP_EXPIRY,
  memory: (s) => [
    {
      structure: "relayed MCP requests",
      entries: s.mcp.relayed,
      cap: null,
      bound: `${MAX_RELAYED_REQUESTS} per call in flight, dropped when it ends`,
    },
    {
      structure: "approvals awaiting their URL elicitation's completion",
      entries: s.mcp.elicitations,
      cap: null,
      bound: `${MAX_WATCHED_PER_SESSION} per MCP session, each until its approval's decision or expiry`,
    },
  ],
});
