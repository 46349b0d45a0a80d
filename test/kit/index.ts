/**
 * The worker tests' kit: requests to the gate as a client sends them, the operator's admin
 * client, credentials, consumers and their setup, the MCP endpoint.
 */
export * from "./admin";
export * from "./consumers";
export * from "./gate";
export * from "./mcp";
