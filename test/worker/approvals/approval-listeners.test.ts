/**
 * The live listeners of approvals (waits, SSE streams, the console's stream) act for their
 * credential: each ends as soon as its credential is revoked or expires or its subject leaves
 * the consumer's approvers, and hears nothing after; one credential holds at most 16, and
 * agents together never take the 64 slots kept for approvers.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, context, credential, gate, pinClock, send, setupConsumer, wipe } from "../../kit";

const T0 = 1_784_419_200;
const CONSUMER = "approval-listeners";
const BASE = `/v1/consumers/${CONSUMER}`;
const CONFIG = {
  tools: ["create_note"],
  approver_subjects: ["rev-1"],
  limits: { calls_per_second: 1000, call_burst: 1000, pending_approvals_per_subject: 100 },
};

/** A data-defined write: every call waits for an approval. */
const NOTE = {
  description: "Create a note.",
  risk: "write",
  input: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
  output: {
    schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
  },
  target: { kind: "http", url: "https://ledger.test/notes" },
};

async function setup(): Promise<void> {
  const { tools, ...config } = CONFIG;
  await setupConsumer(CONSUMER, { config, definitions: { create_note: NOTE }, tools, clock: T0 });
}

let calls = 0;
/** Opens one approval with an agent credential and answers its id. */
async function openApproval(agent: string): Promise<string> {
  calls += 1;
  const body = {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name: "create_note", arguments: { text: `note ${calls}` } },
    context: context(`call-${calls}`, { key: `key-${calls}` }),
  };
  const answer = (await (await send("POST", `${BASE}/tool-calls`, agent, body)).json()) as { approval_id?: string };
  if (answer.approval_id === undefined) throw new Error("no approval opened");
  return answer.approval_id;
}

/** The live listeners the consumer's object holds now. */
function listeners(): Promise<number> {
  return runInDurableObject(
    env.CONSUMER.get(env.CONSUMER.idFromName(CONSUMER)),
    (instance) => instance.events.listeners,
  );
}

async function until(count: number): Promise<void> {
  for (let i = 0; i < 400 && (await listeners()) !== count; i++) await new Promise((r) => setTimeout(r, 25));
  expect(await listeners()).toBe(count);
}

/** The event names a stream carries (comments and `retry:` skipped) until it ends or `ms` pass without an end. */
async function rest(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  ms: number,
): Promise<{ events: string[]; ended: boolean }> {
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    const chunk =
      left <= 0
        ? "timeout"
        : await Promise.race([reader.read(), new Promise<"timeout">((r) => setTimeout(() => r("timeout"), left))]);
    if (chunk === "timeout" || chunk.done) {
      const events = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1] as string);
      if (chunk === "timeout") await reader.cancel();
      return { events, ended: chunk !== "timeout" };
    }
    text += decoder.decode(chunk.value, { stream: true });
  }
}

/** Reads a stream until its first event (the replay or the console's pending ids). */
async function first(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  while (!/^event: /m.test(text)) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`stream ended early: ${text}`);
    text += decoder.decode(chunk.value, { stream: true });
  }
  return /^event: (.+)$/m.exec(text)?.[1] ?? "";
}

function stream(token: string): Promise<Response> {
  return send("GET", `${BASE}/approvals/events`, token);
}

async function consoleStream(secret: string): Promise<Response> {
  const signIn = await gate("/console/session", {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://gate" },
    body: new URLSearchParams({ consumer: CONSUMER, credential: secret }).toString(),
  });
  expect(signIn.status).toBe(303);
  const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
  return gate("/console/events", { headers: { cookie } });
}

/** A request's status, `Retry-After` and problem code, or "still waiting" when it holds past `ms` (a wait that was admitted). */
async function refusal(
  pending: Promise<Response>,
  ms = 5000,
): Promise<[number, string | null, string] | "still waiting"> {
  const res = await Promise.race([pending, new Promise<null>((r) => setTimeout(() => r(null), ms))]);
  if (res === null) return "still waiting";
  if (res.status === 200) await res.body?.cancel();
  return [
    res.status,
    res.headers.get("retry-after"),
    res.status === 200 ? "admitted" : ((await res.json()) as { code: string }).code,
  ];
}

beforeEach(() => wipe(CONSUMER));

describe("a listener ends with its credential", () => {
  it("a revoked approver's stream, console stream and an agent's stream end at the revocation and carry no event after it", async () => {
    await setup();
    const agent = await credential(CONSUMER, "agent");
    const approver = await credential(CONSUMER, "approver", "rev-1");
    await openApproval(agent.secret);
    const approverReader = (await stream(approver.secret)).body!.getReader();
    const consoleReader = (await consoleStream(approver.secret)).body!.getReader();
    const agentReader = (await stream(agent.secret)).body!.getReader();
    expect([await first(approverReader), await first(consoleReader), await first(agentReader)]).toEqual([
      "approval.requested",
      "console.pending",
      "approval.requested",
    ]);
    await until(3);

    expect((await send("DELETE", `${BASE}/credentials/${approver.id}`, ADMIN_TOKEN)).status).toBe(204);
    const other = await credential(CONSUMER, "agent");
    await openApproval(other.secret);
    expect(await rest(approverReader, 10_000)).toEqual({ events: [], ended: true });
    expect(await rest(consoleReader, 10_000)).toEqual({ events: [], ended: true });
    await until(1);

    expect((await send("DELETE", `${BASE}/credentials/${agent.id}`, ADMIN_TOKEN)).status).toBe(204);
    await openApproval(other.secret);
    expect(await rest(agentReader, 10_000)).toEqual({ events: [], ended: true });
    await until(0);
  });

  it("an approver's stream ends when its subject leaves approver_subjects", async () => {
    await setup();
    const agent = await credential(CONSUMER, "agent");
    const approver = await credential(CONSUMER, "approver", "rev-1");
    const kept = await credential(CONSUMER, "approver", "rev-2");
    expect((await send("PUT", BASE, ADMIN_TOKEN, { ...CONFIG, approver_subjects: ["rev-1", "rev-2"] })).status).toBe(
      200,
    );
    await openApproval(agent.secret);
    const leaving = (await stream(approver.secret)).body!.getReader();
    const staying = (await stream(kept.secret)).body!.getReader();
    expect([await first(leaving), await first(staying)]).toEqual(["approval.requested", "approval.requested"]);

    expect((await send("PUT", BASE, ADMIN_TOKEN, { ...CONFIG, approver_subjects: ["rev-2"] })).status).toBe(200);
    await openApproval(agent.secret);
    expect(await rest(leaving, 10_000)).toEqual({ events: [], ended: true });
    expect(await first(staying)).toBe("approval.requested");
    await staying.cancel();
  });

  it("an expired credential hears no event: its stream ends at the first event after expiry, its wait answers 401", async () => {
    await setup();
    const agent = await credential(CONSUMER, "agent", undefined, { expires_at: T0 + 30 });
    const approver = await credential(CONSUMER, "approver", "rev-1", { expires_at: T0 + 30 });
    const id = await openApproval(agent.secret);
    const reader = (await stream(approver.secret)).body!.getReader();
    expect(await first(reader)).toBe("approval.requested");
    const waiting = send("GET", `${BASE}/approvals/${id}?wait=60`, agent.secret);
    await until(2);
    await pinClock(CONSUMER, T0 + 31);
    const other = await credential(CONSUMER, "agent");
    await openApproval(other.secret);
    expect(await rest(reader, 10_000)).toEqual({ events: [], ended: true });
    const answered = await waiting;
    expect([answered.status, ((await answered.json()) as { code: string }).code]).toEqual([401, "UNAUTHENTICATED"]);
    await until(0);
  });
});

describe("live listeners are shared per credential", () => {
  it("an agent flooding waits gets 429 past 16, while another agent's wait and an approver's stream still get a slot", async () => {
    await setup();
    const attacker = await credential(CONSUMER, "agent");
    const victim = await credential(CONSUMER, "agent");
    const approver = await credential(CONSUMER, "approver", "rev-1");
    const own = await openApproval(attacker.secret);
    const theirs = await openApproval(victim.secret);
    const flood = Array.from({ length: 16 }, () => send("GET", `${BASE}/approvals/${own}?wait=60`, attacker.secret));
    await until(16);
    expect(await refusal(send("GET", `${BASE}/approvals/${own}?wait=60`, attacker.secret))).toEqual([
      429,
      "5",
      "QUOTA_EXCEEDED",
    ]);
    expect(await refusal(stream(attacker.secret))).toEqual([429, "5", "QUOTA_EXCEEDED"]);
    const victimWait = send("GET", `${BASE}/approvals/${theirs}?wait=60`, victim.secret);
    const approverReader = (await stream(approver.secret)).body!.getReader();
    expect(await first(approverReader)).toBe("approval.requested");
    await until(18);

    const list = (await (await send("GET", `${BASE}/approvals?state=pending`, approver.secret)).json()) as {
      approvals: Array<{ approval_id: string; approval_digest: string }>;
    };
    for (const view of list.approvals)
      expect(
        (
          await send("POST", `${BASE}/approvals/${view.approval_id}`, approver.secret, {
            decision: "deny",
            approval_digest: view.approval_digest,
          })
        ).status,
      ).toBe(200);
    const states = await Promise.all(
      [...flood, victimWait].map(async (res) => ((await (await res).json()) as { state: string }).state),
    );
    expect(states).toEqual(Array.from({ length: 17 }, () => "denied"));
    await approverReader.cancel();
  });

  it("agents together leave 64 of the 256 slots to approvers", async () => {
    await setup();
    const approver = await credential(CONSUMER, "approver", "rev-1");
    const waits: Array<Promise<Response>> = [];
    for (let i = 0; i < 12; i++) {
      const agent = (await credential(CONSUMER, "agent")).secret;
      const id = await openApproval(agent);
      for (let j = 0; j < 16; j++) waits.push(send("GET", `${BASE}/approvals/${id}?wait=60`, agent));
    }
    await until(192);
    const late = await credential(CONSUMER, "agent");
    const lateId = await openApproval(late.secret);
    expect(await refusal(send("GET", `${BASE}/approvals/${lateId}?wait=60`, late.secret))).toEqual([
      429,
      "1",
      "QUOTA_EXCEEDED",
    ]);
    const approverReader = (await stream(approver.secret)).body!.getReader();
    expect(await first(approverReader)).toBe("approval.requested");
    await until(193);

    const list = (await (await send("GET", `${BASE}/approvals?state=pending`, approver.secret)).json()) as {
      approvals: Array<{ approval_id: string; approval_digest: string }>;
    };
    for (const view of list.approvals)
      expect(
        (
          await send("POST", `${BASE}/approvals/${view.approval_id}`, approver.secret, {
            decision: "deny",
            approval_digest: view.approval_digest,
          })
        ).status,
      ).toBe(200);
    expect(new Set(await Promise.all(waits.map(async (res) => (await res).status)))).toEqual(new Set([200]));
    await approverReader.cancel();
  }, 120_000);
});
