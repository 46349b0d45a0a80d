/**
 * R13 MCP quotas per credential, in-process through the Worker's fetch: one subject-bound agent
 * credential floods its consumer's MCP endpoint while another credential of the same consumer
 * (same subject) works. The consumer's rate is lifted, so the floods meet the quotas and not the
 * rate limit (which also charges initialize and tasks/*; its own tests are in test/worker).
 * R13a: 1,100 initialize in bursts of 10, the victim pinging one of its sessions after every 100
 * and leaving the other idle. Pass: the victim lost 0 sessions and the attacker holds at most 64
 * less the victim's 2 (the two credentials share their subject's 64: 62).
 * R13b: 1,100 task-augmented reads in bursts of 10 while the victim's write waits for its
 * approver as a `working` task. Pass: the victim's task is kept, then approved and completed;
 * the attacker holds at most 64 less the victim's task (their subject's share: 63).
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { wipe } from "../../kit";
import { report } from "../support/figures";
import { ADMIN, fetchGate, send } from "./client";

const FLOOD = 1_100;
const BURST = 10;
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "r13", version: "1" } },
};

interface Agent {
  id: string;
  secret: string;
}

async function consumer(name: string): Promise<{ attacker: Agent; victim: Agent; approver: string }> {
  const put = await send("PUT", `/v1/consumers/${name}`, ADMIN, {
    tools: ["get_order", "create_refund_draft"],
    approver_subjects: ["human-reviewer-1"],
    limits: { calls_per_second: 1_000_000, call_burst: 1_000_000 },
  });
  if (put.status !== 200) throw new Error(`consumer setup failed: ${put.status} ${put.text}`);
  const mint = async (kind: string, subject: string): Promise<Agent> => {
    const r = await send("POST", `/v1/consumers/${name}/credentials`, ADMIN, { kind, subject_id: subject });
    if (r.status !== 201) throw new Error(`credential setup failed: ${r.status}`);
    return { id: r.json.credential_id, secret: r.json.secret };
  };
  return {
    attacker: await mint("agent", "user-1"),
    victim: await mint("agent", "user-1"),
    approver: (await mint("approver", "human-reviewer-1")).secret,
  };
}

/** One MCP message; answers the status, the session header and the JSON body. */
async function mcp(
  name: string,
  token: string,
  body: unknown,
  session: string | null = null,
): Promise<{ status: number; session: string | null; json: any }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  if (session !== null) Object.assign(headers, { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" });
  const res = await fetchGate(
    new Request(`http://gate/v1/consumers/${name}/mcp`, { method: "POST", headers, body: JSON.stringify(body) }),
  );
  const text = await res.text();
  return {
    status: res.status,
    session: res.headers.get("mcp-session-id"),
    json: text === "" ? null : JSON.parse(text),
  };
}

async function open(name: string, token: string): Promise<string> {
  const res = await mcp(name, token, INITIALIZE);
  if (res.status !== 200 || res.session === null) throw new Error(`initialize failed: ${res.status}`);
  return res.session;
}

/** Rows of an MCP table per credential id. */
function rowsBy(name: string, table: "mcp_sessions" | "mcp_tasks"): Promise<Record<string, number>> {
  const stub = env.CONSUMER.get(env.CONSUMER.idFromName(name));
  return runInDurableObject(stub, (_i, state) =>
    Object.fromEntries(
      state.storage.sql
        .exec<{ c: string; n: number }>(`SELECT credential_id AS c, COUNT(*) AS n FROM ${table} GROUP BY c`)
        .toArray()
        .map((r) => [r.c, r.n]),
    ),
  );
}

/** Sends `FLOOD` messages of the attacker in bursts of `BURST`, calling `between` after every 100; tallies what each came to. */
async function flood(one: (i: number) => Promise<string>, between: () => Promise<void>): Promise<Map<string, number>> {
  const tally = new Map<string, number>();
  for (let i = 0; i < FLOOD; i += BURST) {
    const burst = await Promise.all(Array.from({ length: Math.min(BURST, FLOOD - i) }, (_, k) => one(i + k)));
    for (const what of burst) tally.set(what, (tally.get(what) ?? 0) + 1);
    if ((i + BURST) % 100 === 0) await between();
  }
  return tally;
}

const fmt = (n: number) => n.toLocaleString("en-US");

describe("R13 MCP quotas per credential", () => {
  it("R13a: one credential's 1,100 initialize end none of another credential's sessions", async () => {
    const name = "r13-sessions";
    const { attacker, victim } = await consumer(name);
    // One session the victim keeps using, one it leaves idle (as a client between tasks would).
    const session = await open(name, victim.secret);
    const idle = await open(name, victim.secret);
    let pings = 0;
    let lost = 0;
    const tally = await flood(
      async () => {
        const res = await mcp(name, attacker.secret, INITIALIZE);
        return res.status === 200 ? "opened" : `${res.status} ${res.json?.code}`;
      },
      async () => {
        const ping = await mcp(name, victim.secret, { jsonrpc: "2.0", id: "p", method: "ping" }, session);
        if (ping.status === 200) pings++;
        else lost = Math.max(lost, 1);
      },
    );
    if ((await mcp(name, victim.secret, { jsonrpc: "2.0", id: "i", method: "ping" }, idle)).status !== 200) lost++;
    const rows = await rowsBy(name, "mcp_sessions");
    const kept = rows[attacker.id] ?? 0;
    const opened = tally.get("opened") ?? 0;
    const figure = `attacker ${fmt(FLOOD)} initialize → ${fmt(kept)} kept/${fmt(opened - kept)} own ended/${fmt(FLOOD - opened)} refused; victim lost ${lost} of 2 sessions (1 idle; ${pings} of ${FLOOD / 100} pings answered)`;
    const pass = lost === 0 && kept <= 64 - 2;
    report({ id: "R13a", check: "MCP sessions: one credential floods initialize while another works", figure, pass });
    expect([lost, pings, kept, rows[victim.id], [...tally]]).toEqual([0, FLOOD / 100, 62, 2, [["opened", FLOOD]]]);
  });

  it("R13b: one credential's 1,100 task calls drop none of another credential's tasks, a waiting one included", async () => {
    // The reference orders (ORDER-7 of user-1) live in tenant-a.
    const name = "tenant-a";
    await wipe(name);
    const { attacker, victim, approver } = await consumer(name);
    const mine = await open(name, victim.secret);
    const call = (
      token: string,
      session: string,
      id: number | string,
      tool: string,
      args: Record<string, unknown>,
      meta?: Record<string, unknown>,
    ) =>
      mcp(
        name,
        token,
        {
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: {
            name: tool,
            arguments: args,
            task: { ttl: 600_000 },
            ...(meta === undefined ? {} : { _meta: meta }),
          },
        },
        session,
      );
    const created = await call(
      victim.secret,
      mine,
      "w",
      "create_refund_draft",
      { order_ref: "ORDER-7", reason: "duplicate" },
      { "io.toolgate/idempotency_key": "r13-victim" },
    );
    const taskId = created.json?.result?.task?.taskId as string;
    const getTask = (id: string) =>
      mcp(name, victim.secret, { jsonrpc: "2.0", id: "g", method: "tasks/get", params: { taskId: id } }, mine);
    const theirs = await open(name, attacker.secret);
    let seen = 0;
    const tally = await flood(
      async (i) => {
        const res = await call(attacker.secret, theirs, i, "get_order", { order_ref: "ORDER-7" });
        return res.json?.result?.task?.status ?? `${res.status} ${res.json?.error?.data?.code}`;
      },
      async () => {
        if ((await getTask(taskId)).json?.result?.status === "working") seen++;
      },
    );
    const kept = (await rowsBy(name, "mcp_tasks"))[attacker.id] ?? 0;
    const waiting = (await getTask(taskId)).json?.result?.status;
    const pending = await send("GET", `/v1/consumers/${name}/approvals?state=pending`, approver);
    const shown = (pending.json?.approvals ?? []) as Array<{ approval_id: string; approval_digest: string }>;
    for (const a of shown)
      await send("POST", `/v1/consumers/${name}/approvals/${a.approval_id}`, approver, {
        decision: "approve",
        approval_digest: a.approval_digest,
      });
    const after = (await getTask(taskId)).json?.result?.status;
    const result = await mcp(
      name,
      victim.secret,
      { jsonrpc: "2.0", id: "r", method: "tasks/result", params: { taskId } },
      mine,
    );
    const outcome = result.json?.result?.structuredContent?.status;
    const completed = tally.get("completed") ?? 0;
    const figure = `attacker ${fmt(FLOOD)} task calls → ${fmt(kept)} kept/${fmt(completed - kept)} own dropped/${fmt(FLOOD - completed)} refused; victim's waiting task lost ${waiting === "working" ? 0 : 1} of 1: ${waiting} through the flood (${seen} of ${FLOOD / 100} polls), then approved → ${after}, ${outcome}`;
    const pass =
      waiting === "working" &&
      seen === FLOOD / 100 &&
      after === "completed" &&
      outcome === "succeeded" &&
      kept <= 64 - 1;
    report({
      id: "R13b",
      check: "MCP tasks: one credential floods task calls while another's task waits for approval",
      figure,
      pass,
    });
    expect([waiting, seen, shown.length, after, outcome, kept, [...tally]]).toEqual([
      "working",
      FLOOD / 100,
      1,
      "completed",
      "succeeded",
      63,
      [["completed", FLOOD]],
    ]);
  });
});
