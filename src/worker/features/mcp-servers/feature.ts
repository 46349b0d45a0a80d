import type { Feature } from "../../kernel/feature";
import { MCP_SERVER_MIGRATIONS } from "./store";

/** The downstream MCP servers a consumer registered. */
export const MCP_SERVERS_FEATURE: Feature = { name: "mcp-servers", migrations: MCP_SERVER_MIGRATIONS };
