/**
 * MCP quotas (docs/mcp.md, "Storage and limits"): a credential keeps at most 64 sessions and 64
 * tasks of a consumer's 1,024, so one credential's flood gives up only its own entries (never
 * another credential's, never a `working` task); a table full of other credentials' entries
 * refuses with QUOTA_EXCEEDED; `initialize` and `tasks/*` take tokens of the caller's call rate.
 * Floods go through the Worker's fetch handler directly (the loopback `exports` slows with each
 * request in this pool version).
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { McpStore } from "../../../src/worker/features/mcp/store";
import { ADMIN_TOKEN, credential, pinClock, pinRateClock, send, wipe } from "../../kit";
import { decideAll, MCP, mcpPost, openSession, T0 } from "./mcp-server-support";

const C = "tenant-a";
const stub = () => env.CONSUMER.get(env.CONSUMER.idFromName(C));
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};
const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };

const open = (token: string) => openSession(token, mcpPost);

let nextId = 1;
const rpc = (token: string, headers: Record<string, string>, method: string, params: Record<string, unknown> = {}) =>
  mcpPost(token, { jsonrpc: "2.0", id: nextId++, method, params }, headers);
const asTask = (
  token: string,
  headers: Record<string, string>,
  name: string,
  args: Record<string, unknown>,
  key?: string,
) =>
  rpc(token, headers, "tools/call", {
    name,
    arguments: args,
    task: { ttl: 120_000 },
    ...(key === undefined ? {} : { _meta: { "io.toolgate/idempotency_key": key } }),
  });

async function configure(limits: Record<string, number>): Promise<void> {
  const res = await send("PUT", `/v1/consumers/${C}`, ADMIN_TOKEN, {
    tools: ["get_order", "create_refund_draft"],
    approver_subjects: ["rev-1"],
    limits,
  });
  expect(res.status).toBe(200);
}

/** Sessions stored per credential id. */
async function sessionsBy(): Promise<Record<string, number>> {
  return runInDurableObject(stub(), (_i, state) =>
    Object.fromEntries(
      state.storage.sql
        .exec<{ c: string; n: number }>("SELECT credential_id AS c, COUNT(*) AS n FROM mcp_sessions GROUP BY c")
        .toArray()
        .map((r) => [r.c, r.n]),
    ),
  );
}

/** Stores `count` sessions (or finished tasks) of made-up credentials, 64 each, as other clients would have. */
async function fill(table: "sessions" | "tasks", count: number, at: number): Promise<void> {
  await runInDurableObject(stub(), (_i, state) => {
    const store = new McpStore(state.storage.sql);
    for (let i = 0; i < count; i++) {
      const credentialId = `cred_${Math.floor(i / 64)}`;
      if (table === "sessions")
        store.openSession(
          {
            sessionId: `s${i}`,
            credentialId,
            subjectId: `user-9-${Math.floor(i / 64)}`,
            protocolVersion: "2025-11-25",
            lastSeen: at,
          },
          at,
        );
      else
        state.storage.sql.exec(
          "INSERT INTO mcp_tasks (task_id, credential_id, subject_id, status, status_message, input, approval_id, result, ttl_ms, created_at, updated_at, expires_at) VALUES (?, ?, 'user-9', 'completed', NULL, '{}', NULL, '{}', 300000, ?, ?, ?)",
          `mcpt_${i}`,
          credentialId,
          at,
          at,
          at + 300,
        );
    }
  });
}

let a: { id: string; secret: string };
let b: { id: string; secret: string };
let approver: string;

beforeEach(async () => {
  await wipe(C);
  // The floods below send over a thousand calls through one credential: the rate has its own tests.
  await configure({ calls_per_second: 1_000_000, call_burst: 1_000_000, pending_approvals_per_subject: 100 });
  await pinClock(C, T0);
  // Two people: the quotas below are per credential, and per subject too (mcp-subject-quota.test.ts).
  a = await credential(C, "agent", "user-2", { roles: ["support_admin"] });
  b = await credential(C, "agent", "user-1");
  approver = (await credential(C, "approver", "rev-1")).secret;
});

// The floods send hundreds of calls; on a loaded machine they take longer than the default 30 s.
describe("sessions per credential", { timeout: 90_000 }, () => {
  it("a credential's 200 initialize calls beside 896 other sessions end only its own oldest: another credential's session still answers", async () => {
    const victim = await open(b.secret);
    await pinClock(C, T0 + 1);
    await fill("sessions", 896, T0 + 1);
    const flood: Array<Record<string, string>> = [];
    const statuses = new Map<number, number>();
    for (let i = 0; i < 200; i++) {
      const res = await mcpPost(a.secret, INITIALIZE);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      flood.push({ "mcp-session-id": res.headers.get("mcp-session-id") ?? "", "mcp-protocol-version": "2025-11-25" });
    }
    expect([...statuses]).toEqual([[200, 200]]);
    expect((await rpc(b.secret, victim, "ping")).json).toEqual({ jsonrpc: "2.0", id: nextId - 1, result: {} });
    expect((await sessionsBy())[a.id]).toBe(64);
    // The attacker's own: its newest 64 answer, its older ones ended.
    expect((await rpc(a.secret, flood[199] ?? {}, "ping")).status).toBe(200);
    expect((await rpc(a.secret, flood[136] ?? {}, "ping")).status).toBe(200);
    expect((await rpc(a.secret, flood[135] ?? {}, "ping")).status).toBe(404);
  });

  it("a credential at its cap ends its least recently used session, not the one it keeps using", async () => {
    const kept = await open(a.secret);
    for (let i = 0; i < 63; i++) await open(a.secret);
    await pinClock(C, T0 + 1);
    expect((await rpc(a.secret, kept, "ping")).status).toBe(200);
    await open(a.secret);
    expect((await rpc(a.secret, kept, "ping")).status).toBe(200);
    expect(await sessionsBy()).toEqual({ [a.id]: 64 });
  });

  it("a table full of other credentials' sessions refuses initialize with 429 QUOTA_EXCEEDED until one has been idle a day", async () => {
    const victim = await open(b.secret);
    await fill("sessions", 1023, T0);
    expect(Object.values(await sessionsBy()).reduce((x, y) => x + y, 0)).toBe(1024);
    await pinClock(C, T0 + 10);
    const refused = await mcpPost(a.secret, INITIALIZE);
    const detail =
      "A credential keeps at most 64 MCP sessions, a subject 64 across its credentials and a consumer 1024; the subject's or the consumer's are all other credentials'. Retry when one has ended.";
    expect([
      refused.status,
      refused.headers.get("retry-after"),
      refused.headers.get("mcp-session-id"),
      refused.json,
    ]).toEqual([
      429,
      "86390",
      null,
      {
        type: "https://toolgate.dev/problems/quota-exceeded",
        title: "Quota exceeded",
        status: 429,
        code: "QUOTA_EXCEEDED",
        detail,
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message: detail, data: { code: "QUOTA_EXCEEDED" } },
      },
    ]);
    expect((await rpc(b.secret, victim, "ping")).status).toBe(200);
    // A credential with a session of its own gives that one up for the new one.
    const renewed = await open(b.secret);
    expect([(await rpc(b.secret, victim, "ping")).status, (await rpc(b.secret, renewed, "ping")).status]).toEqual([
      404, 200,
    ]);
    // A day after their last use, the others' sessions have ended and their places are free.
    await pinClock(C, T0 + 86_400);
    expect((await mcpPost(a.secret, INITIALIZE)).status).toBe(200);
    expect(await sessionsBy()).toEqual({ [a.id]: 1, [b.id]: 1 });
  });
});

describe("tasks per credential", { timeout: 90_000 }, () => {
  it("a credential's 200 task calls beside 896 other tasks leave another credential's working task, which the approver then completes", async () => {
    const victim = await open(b.secret);
    const created = await asTask(b.secret, victim, "create_refund_draft", REFUND, "victim-1");
    const taskId = created.json.result.task.taskId as string;
    expect(created.json.result.task.status).toBe("working");
    await fill("tasks", 896, T0);
    const attacker = await open(a.secret);
    const answers = new Map<string, number>();
    for (let i = 0; i < 200; i++) {
      const res = await asTask(a.secret, attacker, "get_order", { order_ref: "ORDER-7" });
      const what = res.json.result?.task?.status ?? res.json.error?.data?.code;
      answers.set(what, (answers.get(what) ?? 0) + 1);
    }
    const kept = (await rpc(b.secret, victim, "tasks/get", { taskId })).json;
    expect([kept.result?.status, kept.error]).toEqual(["working", undefined]);
    expect([...answers]).toEqual([["completed", 200]]);
    expect((await rpc(a.secret, attacker, "tasks/list")).json.result.tasks.length).toBe(64);
    expect(await decideAll(approver)).toEqual([created.json.result._meta["io.toolgate/approval_id"]]);
    expect((await rpc(b.secret, victim, "tasks/get", { taskId })).json.result.status).toBe("completed");
    const result = (await rpc(b.secret, victim, "tasks/result", { taskId })).json.result;
    expect([result.isError, result.structuredContent.data]).toEqual([
      false,
      { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" },
    ]);
  });

  it("never drops a working task: a credential whose 64 tasks all wait is refused before its call runs", async () => {
    const session = await open(a.secret);
    const first = await asTask(a.secret, session, "create_refund_draft", REFUND, "w-0");
    for (let i = 1; i < 64; i++)
      expect((await asTask(a.secret, session, "create_refund_draft", REFUND, `w-${i}`)).json.result.task.status).toBe(
        "working",
      );
    await pinClock(C, T0 + 20);
    const detail =
      "A credential keeps at most 64 MCP tasks, a subject 64 across its credentials and a consumer 1024; the tasks in the way are still working or another credential's. Nothing ran.";
    const refusal = { code: -32000, message: detail, data: { code: "QUOTA_EXCEEDED", retry_after_seconds: 100 } };
    const write = await asTask(a.secret, session, "create_refund_draft", REFUND, "w-64");
    expect([write.status, write.json.error]).toEqual([200, refusal]);
    expect([(await asTask(a.secret, session, "get_order", { order_ref: "ORDER-7" })).json.error]).toEqual([refusal]);
    // Nothing ran: no 65th approval was opened.
    const pending = (await (await send("GET", `/v1/consumers/${C}/approvals?state=pending`, approver)).json()) as {
      approvals: unknown[];
    };
    expect(pending.approvals.length).toBe(64);
    // Once one has finished, it is the one that gives its place.
    const firstId = first.json.result.task.taskId as string;
    expect((await rpc(a.secret, session, "tasks/cancel", { taskId: firstId })).json.result.status).toBe("cancelled");
    expect((await asTask(a.secret, session, "get_order", { order_ref: "ORDER-7" })).json.result.task.status).toBe(
      "completed",
    );
    expect((await rpc(a.secret, session, "tasks/get", { taskId: firstId })).json.error).toEqual({
      code: -32602,
      message: "Task not found.",
    });
    expect(
      (await rpc(a.secret, session, "tasks/list")).json.result.tasks.filter(
        (t: { status: string }) => t.status === "working",
      ).length,
    ).toBe(63);
  });

  it("a table full of other credentials' tasks refuses a task call with QUOTA_EXCEEDED before it runs", async () => {
    await fill("tasks", 1024, T0);
    await pinClock(C, T0 + 60);
    const session = await open(a.secret);
    const refused = await asTask(a.secret, session, "create_refund_draft", REFUND, "full-1");
    const detail =
      "A credential keeps at most 64 MCP tasks, a subject 64 across its credentials and a consumer 1024; the tasks in the way are still working or another credential's. Nothing ran.";
    expect([refused.status, refused.json.error]).toEqual([
      200,
      { code: -32000, message: detail, data: { code: "QUOTA_EXCEEDED", retry_after_seconds: 240 } },
    ]);
    const pending = (await (await send("GET", `/v1/consumers/${C}/approvals?state=pending`, approver)).json()) as {
      approvals: unknown[];
    };
    expect(pending.approvals).toEqual([]);
    // Once the others' tasks expire, their places are free.
    await pinClock(C, T0 + 300);
    expect((await asTask(a.secret, session, "get_order", { order_ref: "ORDER-7" })).json.result.task.status).toBe(
      "completed",
    );
  });
});

describe("the call rate", () => {
  it("initialize takes a token of the caller's bucket: past its burst it is 429 RATE_LIMITED, another credential still opens", async () => {
    await configure({ calls_per_second: 1, call_burst: 3 });
    // The bucket refills by the millisecond: pinned, no token comes back however slow the requests.
    await pinRateClock(C, T0 * 1000);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await mcpPost(a.secret, INITIALIZE)).status);
    const limited = await mcpPost(a.secret, INITIALIZE);
    expect([
      ...statuses,
      limited.status,
      limited.json.code,
      limited.json.error?.data,
      limited.headers.get("retry-after"),
    ]).toEqual([200, 200, 200, 429, "RATE_LIMITED", { code: "RATE_LIMITED" }, "1"]);
    expect((await mcpPost(b.secret, INITIALIZE)).status).toBe(200);
  });

  it("tasks/* take tokens of the caller's bucket: past its burst they are -32000 RATE_LIMITED, another credential's are answered", async () => {
    await configure({ calls_per_second: 1, call_burst: 3 });
    // The bucket refills by the millisecond: pinned, no token comes back however slow the requests.
    await pinRateClock(C, T0 * 1000);
    const mine = await open(a.secret);
    const answers = [];
    for (const method of ["tasks/list", "tasks/get"])
      answers.push((await rpc(a.secret, mine, method, method === "tasks/get" ? { taskId: "mcpt_none" } : {})).json);
    const limited = await rpc(a.secret, mine, "tasks/list");
    expect([answers[0].result, answers[1].error.code, limited.status, limited.json.error]).toEqual([
      { tasks: [] },
      -32602,
      200,
      {
        code: -32000,
        message: "This credential may make 1 calls per second (burst 3).",
        data: { code: "RATE_LIMITED", retry_after_seconds: 1 },
      },
    ]);
    const theirs = await open(b.secret);
    expect((await rpc(b.secret, theirs, "tasks/list")).json.result).toEqual({ tasks: [] });
  });
});
