/** The gate's version: the OpenAPI document's `info.version` and the MCP server's `serverInfo.version`. */
export const GATE_VERSION = "0.1.0";
