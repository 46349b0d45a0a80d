import type { Feature } from "../../kernel/feature";
import { MAX_RELAYED_REQUESTS } from "./requests";
import { MCP_EXPIRY, MCP_MIGRATIONS } from "./store";

/** The MCP server: sessions and tasks, and the sampling and elicitation requests awaiting the client. */
export const MCP_FEATURE: Feature = {
  name: "mcp",
  migrations: MCP_MIGRATIONS,
  expiry: MCP_EXPIRY,
  memory: (o) => [
    {
      structure: "relayed MCP requests",
      entries: o.mcp.relayed,
      cap: null,
      bound: `${MAX_RELAYED_REQUESTS} per call in flight, dropped when it ends`,
    },
  ],
};
