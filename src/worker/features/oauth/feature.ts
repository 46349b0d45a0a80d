import { defineFeature } from "../../kernel/feature";
import { oauthRoutes } from "./routes";

/** MCP sign-in with OAuth 2.1 (docs/mcp.md): the authorization server's routes; the grants are the credentials feature's. */
export const feature = defineFeature({ name: "oauth", routes: [oauthRoutes] });
