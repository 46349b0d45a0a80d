/** Test helpers of the MCP endpoint: one JSON-RPC message over `POST …/mcp`, a session. */
import { expect } from "vitest";
import { REFERENCE_TENANT, send } from "../../kit";
import { mcpPost as kitMcpPost, mcpPath, type McpAnswer } from "../../kit/mcp";

/** The pinned clock of the MCP tests (2026-07-19T00:00:00Z). */
export const T0 = 1_784_419_200;

/** The consumer the MCP tests use: the demo orders belong to the reference's `tenant-a`. */
const CONSUMER = REFERENCE_TENANT;

/** Its MCP endpoint. */
export const MCP = mcpPath(CONSUMER);

export type { McpAnswer };

/** POSTs one message (a value, or raw text) to the tests' consumer as an MCP client does. */
export function mcpPost(token: string, body: unknown, headers: Record<string, string> = {}): Promise<McpAnswer> {
  return kitMcpPost(CONSUMER, token, body, headers);
}

/** Opens a session; answers its id and the headers every later message sends. */
export async function initialize(
  token: string,
  protocolVersion = "2025-11-25",
): Promise<{ sessionId: string; headers: Record<string, string> }> {
  const res = await mcpPost(token, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "test", version: "1" } },
  });
  expect(res.status).toBe(200);
  const sessionId = res.headers.get("mcp-session-id") ?? "";
  return { sessionId, headers: { "mcp-session-id": sessionId, "mcp-protocol-version": protocolVersion } };
}

/**
 * Opens a session (through `post`), or answers `{}` when the gate refuses one (a quota): the
 * headers its messages send.
 */
export async function openSession(token: string, post = mcpPost): Promise<Record<string, string>> {
  const res = await post(token, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  const id = res.headers.get("mcp-session-id");
  return id === null ? {} : { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
}

/** Decides every pending approval of `tenant-a` with the digest the approver is shown; answers their ids. */
export async function decideAll(approver: string, decision: "approve" | "deny" = "approve"): Promise<string[]> {
  const list = await send("GET", `/v1/consumers/${CONSUMER}/approvals?state=pending`, approver);
  const { approvals } = (await list.json()) as { approvals: Array<{ approval_id: string; approval_digest: string }> };
  for (const a of approvals) {
    const res = await send("POST", `/v1/consumers/${CONSUMER}/approvals/${a.approval_id}`, approver, {
      decision,
      approval_digest: a.approval_digest,
    });
    expect(res.status).toBe(200);
  }
  return approvals.map((a) => a.approval_id);
}

/**
 * The audit receipt of the latest `tool_call` entry of `tenant-a`, computed here from the audit
 * page: its seq, and SHA-256(0x00 ‖ the entry's line) (RFC 9162 leaf, docs/audit.md) with
 * WebCrypto, independently of the gate's tree code.
 */
export async function lastToolCallReceipt(auditor: string): Promise<{ seq: number; leaf_hash: string }> {
  const page = (await (await send("GET", `/v1/consumers/${CONSUMER}/audit?limit=500`, auditor)).json()) as {
    entries: Array<Record<string, unknown> & { seq: number; kind: string }>;
  };
  const entry = page.entries.filter((e) => e.kind === "tool_call").at(-1);
  if (entry === undefined) throw new Error("no tool_call entry");
  const keys = Object.keys(entry).sort();
  const line = `{${keys.map((k) => `${JSON.stringify(k)}:${k === "record" ? canonical(entry[k]) : JSON.stringify(entry[k])}`).join(",")}}`;
  const bytes = new TextEncoder().encode(line);
  const leaf = new Uint8Array(bytes.length + 1);
  leaf.set(bytes, 1);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", leaf));
  return { seq: entry.seq, leaf_hash: [...digest].map((b) => b.toString(16).padStart(2, "0")).join("") };
}

/** Canonical JSON of a record (keys in code-point order; the records hold no floats). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}
