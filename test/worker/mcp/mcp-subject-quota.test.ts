/**
 * MCP quotas follow the person, not only the credential: one subject's credentials (a sign-in
 * credential and its OAuth grants) keep at most 64 sessions and 64 tasks together, so minting
 * more credentials for one subject does not multiply its share of the consumer's 1,024. A new
 * entry only ever takes the requesting credential's own place, never a sibling credential's:
 * with the subject's share full of the others', it is refused with QUOTA_EXCEEDED.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, credential, pinClock, send, wipe } from "../../kit";
import { MCP, mcpPost, openSession, T0 } from "./mcp-server-support";

const C = "tenant-a";
const stub = () => env.CONSUMER.get(env.CONSUMER.idFromName(C));
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

const open = (token: string) => openSession(token, mcpPost);

let nextId = 1;
const readTask = (token: string, headers: Record<string, string>) =>
  mcpPost(
    token,
    {
      jsonrpc: "2.0",
      id: nextId++,
      method: "tools/call",
      params: { name: "get_order", arguments: { order_ref: "ORDER-7" }, task: { ttl: 120_000 } },
    },
    headers,
  );

/** Rows of an MCP table per credential id. */
async function rowsBy(table: "mcp_sessions" | "mcp_tasks"): Promise<Record<string, number>> {
  return runInDurableObject(stub(), (_i, state) =>
    Object.fromEntries(
      state.storage.sql
        .exec<{ c: string; n: number }>(`SELECT credential_id AS c, COUNT(*) AS n FROM ${table} GROUP BY c`)
        .toArray()
        .map((r) => [r.c, r.n]),
    ),
  );
}

let first: { id: string; secret: string };
let second: { id: string; secret: string };

beforeEach(async () => {
  await wipe(C);
  const res = await send("PUT", `/v1/consumers/${C}`, ADMIN_TOKEN, {
    tools: ["get_order"],
    approver_subjects: ["rev-1"],
    limits: { calls_per_second: 1_000_000, call_burst: 1_000_000 },
  });
  expect(res.status).toBe(200);
  await pinClock(C, T0);
  // Two credentials of one person (as a sign-in credential and an OAuth grant are).
  first = await credential(C, "agent", "user-1");
  second = await credential(C, "agent", "user-1");
});

describe("MCP quotas per subject", () => {
  it("one subject's credentials keep 64 sessions together: a sibling credential is refused, never takes the other's", async () => {
    for (let i = 0; i < 64; i++) expect((await mcpPost(first.secret, INITIALIZE)).status).toBe(200);
    await pinClock(C, T0 + 10);
    const refused = await mcpPost(second.secret, INITIALIZE);
    expect([refused.status, refused.headers.get("retry-after"), refused.json.code]).toEqual([
      429,
      "86390",
      "QUOTA_EXCEEDED",
    ]);
    expect(await rowsBy("mcp_sessions")).toEqual({ [first.id]: 64 });
    // The first credential, at the share, gives up its own least recently used.
    expect((await mcpPost(first.secret, INITIALIZE)).status).toBe(200);
    expect(await rowsBy("mcp_sessions")).toEqual({ [first.id]: 64 });
    // Another person's credential is not affected.
    const other = await credential(C, "agent", "user-2");
    expect((await mcpPost(other.secret, INITIALIZE)).status).toBe(200);
  });

  it("one subject's credentials keep 64 tasks together: a sibling's task call is refused before it runs", async () => {
    const mine = await open(first.secret);
    const sibling = await open(second.secret);
    for (let i = 0; i < 64; i++) expect((await readTask(first.secret, mine)).json.result.task.status).toBe("completed");
    const refused = await readTask(second.secret, sibling);
    expect([refused.status, refused.json.error.data]).toEqual([
      200,
      { code: "QUOTA_EXCEEDED", retry_after_seconds: 120 },
    ]);
    expect(await rowsBy("mcp_tasks")).toEqual({ [first.id]: 64 });
    // The first credential's next task drops its own oldest finished one.
    expect((await readTask(first.secret, mine)).json.result.task.status).toBe("completed");
    expect(await rowsBy("mcp_tasks")).toEqual({ [first.id]: 64 });
  });
});
