import { defineFeature } from "../../kernel/feature";
import { mcpServerRoutes } from "./routes";
import { MCP_SERVER_MIGRATIONS } from "./store";

/** The downstream MCP servers a consumer registered (the tools feature's service serves their operations). */
export const feature = defineFeature({
  name: "mcp-servers",
  routes: [mcpServerRoutes],
  migrations: MCP_SERVER_MIGRATIONS,
});
