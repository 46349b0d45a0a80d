/**
 * Sessions and tasks of a revoked or expired credential give their places back: after 16
 * credentials fill the 1,024 places of the consumer's MCP tables, revoking them (the operator's
 * remedy) frees the places at once, and an expired credential's entries count as free as soon
 * as room is needed; before, every other credential was refused for up to 24 hours (sessions:
 * the idle timeout; tasks: their ttl).
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import worker from "../../../src/worker/index";
import { McpStore } from "../../../src/worker/features/mcp/store";
import { ADMIN_TOKEN, credential, pinClock, send, wipe } from "../../kit";
import { MCP, T0 } from "./mcp-server-support";

const C = "tenant-a";
const stub = () => env.CONSUMER.get(env.CONSUMER.idFromName(C));
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

async function post(token: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const init = {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  };
  return worker.fetch(new Request(`http://gate${MCP}`, init), env, createExecutionContext());
}

async function initialize(token: string): Promise<number> {
  const res = await post(token, INITIALIZE);
  await res.text();
  return res.status;
}

/** A task-augmented read in a new session: the JSON-RPC error code of its refusal, or "task" when a task was created. */
async function readAsTask(token: string): Promise<string | number> {
  const opened = await post(token, INITIALIZE);
  await opened.text();
  const headers = {
    "mcp-session-id": opened.headers.get("mcp-session-id") ?? "",
    "mcp-protocol-version": "2025-11-25",
  };
  const res = await post(
    token,
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "get_order", arguments: { order_ref: "ORDER-7" }, task: { ttl: 120_000 } },
    },
    headers,
  );
  const body = (await res.json()) as { result?: { task?: { status: string } }; error?: { data?: { code?: string } } };
  return body.result?.task?.status ?? body.error?.data?.code ?? res.status;
}

/** Rows of each MCP table held by the given credentials. */
async function rowsOf(ids: readonly string[]): Promise<[number, number]> {
  return runInDurableObject(stub(), (_i, state) => {
    const marks = ids.map(() => "?").join(", ");
    const n = (table: string) =>
      Number(
        state.storage.sql.exec(`SELECT COUNT(*) AS n FROM ${table} WHERE credential_id IN (${marks})`, ...ids).one()[
          "n"
        ],
      );
    return [n("mcp_sessions"), n("mcp_tasks")];
  });
}

/** 1,024 working tasks (the longest ttl a client may ask: 24 h), 64 per credential. */
async function fillTasks(owners: readonly string[]): Promise<void> {
  await runInDurableObject(stub(), (_i, state) => {
    for (let i = 0; i < 1024; i++) {
      state.storage.sql.exec(
        "INSERT INTO mcp_tasks (task_id, credential_id, subject_id, status, status_message, input, approval_id, result, ttl_ms, created_at, updated_at, expires_at) VALUES (?, ?, ?, 'working', NULL, '{}', 'apr_x', NULL, 86400000, ?, ?, ?)",
        `mcpt_${i}`,
        owners[Math.floor(i / 64)] ?? "",
        `flooder-${Math.floor(i / 64)}`,
        T0,
        T0,
        T0 + 86_400,
      );
    }
  });
}

beforeEach(async () => {
  await wipe(C);
  const res = await send("PUT", `/v1/consumers/${C}`, ADMIN_TOKEN, {
    tools: ["get_order"],
    approver_subjects: ["rev-1"],
    limits: { calls_per_second: 1000, call_burst: 1000 },
  });
  expect(res.status).toBe(200);
  await pinClock(C, T0);
});

describe("revoking the credentials that filled the MCP tables gives their places back", () => {
  it("a new credential opens a session once the 16 credentials holding all 1,024 sessions are revoked", async () => {
    const flooders: { id: string; secret: string }[] = [];
    // 16 people's credentials (one subject keeps at most 64 sessions across its credentials).
    for (let i = 0; i < 16; i++) flooders.push(await credential(C, "agent", `flooder-${i}`));
    await runInDurableObject(stub(), (_i, state) => {
      const store = new McpStore(state.storage.sql);
      for (let i = 0; i < 1024; i++) {
        const credentialId = flooders[Math.floor(i / 64)]?.id ?? "";
        store.openSession(
          {
            sessionId: `s${i}`,
            credentialId,
            subjectId: `flooder-${Math.floor(i / 64)}`,
            protocolVersion: "2025-11-25",
            lastSeen: T0,
          },
          T0,
        );
      }
    });
    const victim = await credential(C, "agent", "user-1");
    expect(await initialize(victim.secret)).toBe(429);
    for (const f of flooders)
      expect((await send("DELETE", `/v1/consumers/${C}/credentials/${f.id}`, ADMIN_TOKEN)).status).toBe(204);
    expect(await initialize(victim.secret)).toBe(200);
  });

  it("revoking deletes the credential's sessions and tasks at once, before anyone needs the room", async () => {
    const gone = await credential(C, "agent", "user-1");
    const kept = await credential(C, "agent", "user-2");
    for (const who of [gone, kept]) {
      expect(await readAsTask(who.secret)).toBe("completed");
      expect(await initialize(who.secret)).toBe(200);
    }
    expect(await rowsOf([gone.id])).toEqual([2, 1]);
    expect((await send("DELETE", `/v1/consumers/${C}/credentials/${gone.id}`, ADMIN_TOKEN)).status).toBe(204);
    expect(await rowsOf([gone.id])).toEqual([0, 0]);
    expect(await rowsOf([kept.id])).toEqual([2, 1]);
  });

  it("a new credential's task finds its place once the 16 credentials holding 1,024 working tasks are revoked", async () => {
    const flooders: { id: string; secret: string }[] = [];
    for (let i = 0; i < 16; i++) flooders.push(await credential(C, "agent", `flooder-${i}`));
    await fillTasks(flooders.map((f) => f.id));
    const victim = await credential(C, "agent", "user-1");
    expect(await readAsTask(victim.secret)).toBe("QUOTA_EXCEEDED");
    for (const f of flooders)
      expect((await send("DELETE", `/v1/consumers/${C}/credentials/${f.id}`, ADMIN_TOKEN)).status).toBe(204);
    expect(await readAsTask(victim.secret)).toBe("completed");
  });

  it("an expired credential's sessions and tasks count as free when room is needed", async () => {
    const flooders: { id: string; secret: string }[] = [];
    for (let i = 0; i < 16; i++) flooders.push(await credential(C, "agent", `flooder-${i}`, { expires_at: T0 + 100 }));
    await fillTasks(flooders.map((f) => f.id));
    await runInDurableObject(stub(), (_i, state) => {
      for (let i = 0; i < 1024; i++) {
        state.storage.sql.exec(
          "INSERT INTO mcp_sessions (session_id, credential_id, subject_id, protocol_version, created_at, last_seen) VALUES (?, ?, ?, '2025-11-25', ?, ?)",
          `s${i}`,
          flooders[Math.floor(i / 64)]?.id ?? "",
          `flooder-${Math.floor(i / 64)}`,
          T0,
          T0,
        );
      }
    });
    const victim = await credential(C, "agent", "user-1");
    expect(await initialize(victim.secret)).toBe(429);
    await pinClock(C, T0 + 100);
    expect(await readAsTask(victim.secret)).toBe("completed");
    expect(await rowsOf(flooders.map((f) => f.id))).toEqual([0, 0]);
  });
});
