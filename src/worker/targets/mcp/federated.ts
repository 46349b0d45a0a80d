/**
 * Requests the MCP endpoint forwards to a registered server for its resources, prompts and
 * completions (docs/mcp.md, "Resources, prompts and completion"): one session per request, the
 * registration's `auth`, its `timeout_ms`, the target rule on every request (the server's fetch).
 * They act for no tool, so they carry no signed identity statement (as the import's listing).
 * @module
 */
import type { JsonObject } from "../../../core/json";
import { describeFailure, requestOnce, type McpEndpoint } from "./client";

/** `notifications/resources/updated`: a resource a client subscribed to changed. */
export const RESOURCE_UPDATED = "notifications/resources/updated";

/** A registered server as the endpoint federates it (mcp-servers/service.ts `federated`). */
export interface FederatedServer {
  readonly name: string;
  readonly url: string;
  /** Put before each of its prompt names, resource URIs and URI templates, as before its tool names. */
  readonly prefix: string;
  readonly timeoutMs: number;
  /** The gate names of the enabled tools its last import defined (who may see the server: their scope). */
  readonly tools: readonly string[];
  /** The fetch of consumer-defined targets (the target rule again before each request). */
  readonly fetch: (request: Request) => Promise<Response>;
  /** `auth`'s `Authorization` for one request; `null` without `auth`; `undefined` if its secret cannot be opened. */
  authorization(): Promise<string | null | undefined>;
}

/** What one forwarded request came to: the server's result, its JSON-RPC error, or why there was no answer. */
export type FederatedReply =
  | { readonly kind: "result"; readonly result: JsonObject }
  | { readonly kind: "error"; readonly code: number; readonly message: string }
  | { readonly kind: "failed"; readonly reason: string };

/**
 * Sends one request (`method`, `params` with the server's own names) to a server, its answer read
 * up to `maxBytes`; `onUpdated` hears each `notifications/resources/updated` it sends meanwhile
 * (the server's URI).
 */
export async function askServer(
  server: FederatedServer,
  method: string,
  params: JsonObject,
  maxBytes: number,
  onUpdated?: (uri: string) => void,
): Promise<FederatedReply> {
  const authorization = await server.authorization();
  if (authorization === undefined) return { kind: "failed", reason: "its auth secret cannot be opened" };
  const endpoint: McpEndpoint = {
    url: server.url,
    headers: authorization === null ? {} : { authorization },
    fetch: server.fetch,
    signal: AbortSignal.timeout(server.timeoutMs),
    onNotification: (notification, notified) => {
      const uri = notified?.["uri"];
      if (notification === RESOURCE_UPDATED && typeof uri === "string") onUpdated?.(uri);
    },
  };
  const reply = await requestOnce(endpoint, method, params, maxBytes);
  switch (reply.kind) {
    case "result":
      return reply;
    case "error":
      return { kind: "error", code: reply.code, message: reply.message };
    case "not_started":
      return { kind: "failed", reason: describeFailure(reply.failure, "initialize") };
    case "rate_limited":
    case "lost":
      return { kind: "failed", reason: describeFailure(reply, method) };
  }
}
