/** The MCP endpoint of a consumer, as an MCP client POSTs to it. */
import { gate } from "./gate";

/** What an MCP client accepts by default: JSON or an event stream. */
export const MCP_ACCEPT = "application/json, text/event-stream";

/** The MCP endpoint of `consumer`. */
export function mcpPath(consumer: string): string {
  return `/v1/consumers/${consumer}/mcp`;
}

/** A parsed answer (`json` is `null` for an empty body). */
export interface McpAnswer {
  status: number;
  headers: Headers;
  // JSON-RPC answers are read member by member in the tests.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** POSTs one message (a value, or raw text) to `consumer`'s MCP endpoint; answers the response as it came. */
export function mcpRequest(
  consumer: string,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
  accept = MCP_ACCEPT,
): Promise<Response> {
  return gate(mcpPath(consumer), {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** POSTs one message to `consumer`'s MCP endpoint; answers its status, headers and parsed body. */
export async function mcpPost(
  consumer: string,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<McpAnswer> {
  const res = await mcpRequest(consumer, token, body, headers);
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text === "" ? null : JSON.parse(text) };
}
