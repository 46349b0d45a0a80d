/** Test helpers of the MCP endpoint: one JSON-RPC message over `POST …/mcp`, a session. */
import { expect } from "vitest";
import { gate, send } from "./gate-client";

/** The pinned clock of the MCP tests (2026-07-19T00:00:00Z). */
export const T0 = 1_784_419_200;

/** The MCP endpoint of the consumer the tests use (the demo orders belong to `tenant-a`). */
export const MCP = "/v1/consumers/tenant-a/mcp";

/** A parsed answer (`json` is `null` for an empty body). */
export interface McpAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** POSTs one message (a value, or raw text) as an MCP client does. */
export async function mcpPost(token: string, body: unknown, headers: Record<string, string> = {}): Promise<McpAnswer> {
  const res = await gate(MCP, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text === "" ? null : JSON.parse(text) };
}

/** Opens a session; answers its id and the headers every later message sends. */
export async function initialize(token: string, protocolVersion = "2025-11-25"): Promise<{ sessionId: string; headers: Record<string, string> }> {
  const res = await mcpPost(token, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "test", version: "1" } } });
  expect(res.status).toBe(200);
  const sessionId = res.headers.get("mcp-session-id") ?? "";
  return { sessionId, headers: { "mcp-session-id": sessionId, "mcp-protocol-version": protocolVersion } };
}

/** Decides every pending approval of `tenant-a` with the digest the approver is shown; answers their ids. */
export async function decideAll(approver: string, decision: "approve" | "deny" = "approve"): Promise<string[]> {
  const list = await send("GET", "/v1/consumers/tenant-a/approvals?state=pending", approver);
  const { approvals } = (await list.json()) as { approvals: Array<{ approval_id: string; approval_digest: string }> };
  for (const a of approvals) {
    const res = await send("POST", `/v1/consumers/tenant-a/approvals/${a.approval_id}`, approver, { decision, approval_digest: a.approval_digest });
    expect(res.status).toBe(200);
  }
  return approvals.map((a) => a.approval_id);
}
