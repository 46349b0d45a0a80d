/**
 * Live listeners follow the person as well as the credential: the subject-bound agent
 * credentials of one subject (a sign-in credential and its OAuth grants) hold at most 16 waits
 * and streams together, so one person's extra credentials do not multiply its share of the
 * agents' 192 slots; a host credential's cap stays its own 16.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, context, credential, pinClock, send, wipe } from "../../kit";

const T0 = 1_784_419_200;
const CONSUMER = "listeners-per-subject";
const BASE = `/v1/consumers/${CONSUMER}`;
const CONFIG = {
  tools: ["create_note"],
  approver_subjects: ["rev-1"],
  limits: { calls_per_second: 1000, call_burst: 1000, pending_approvals_per_subject: 100 },
};
const NOTE = {
  description: "Create a note.",
  risk: "write",
  input: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
  output: {
    schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
  },
  target: { kind: "http", url: "https://ledger.test/notes" },
};

let calls = 0;
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

async function refusal(
  pending: Promise<Response>,
  ms = 3000,
): Promise<[number, string | null, string] | "still waiting"> {
  const res = await Promise.race([pending, new Promise<null>((r) => setTimeout(() => r(null), ms))]);
  if (res === null) return "still waiting";
  return [res.status, res.headers.get("retry-after"), ((await res.json()) as { code: string }).code];
}

const wait = (token: string, id: string) => send("GET", `${BASE}/approvals/${id}?wait=60`, token);

beforeEach(async () => {
  await wipe(CONSUMER);
  expect((await send("PUT", BASE, ADMIN_TOKEN, { ...CONFIG, tools: [] })).status).toBe(200);
  expect((await send("PUT", `${BASE}/tools/create_note`, ADMIN_TOKEN, NOTE)).status).toBe(200);
  expect((await send("PUT", BASE, ADMIN_TOKEN, CONFIG)).status).toBe(200);
  await pinClock(CONSUMER, T0);
});

describe("live listeners per subject", () => {
  it("two credentials of one subject hold 16 waits together; a host credential still holds its own 16", async () => {
    const first = (await credential(CONSUMER, "agent", "user-1")).secret;
    const second = (await credential(CONSUMER, "agent", "user-1")).secret;
    const host = (await credential(CONSUMER, "agent")).secret;
    const [a, b, h] = [await openApproval(first), await openApproval(second), await openApproval(host)];
    const held = [
      ...Array.from({ length: 10 }, () => wait(first, a)),
      ...Array.from({ length: 6 }, () => wait(second, b)),
    ];
    await until(16);
    expect(await refusal(wait(second, b))).toEqual([429, "5", "QUOTA_EXCEEDED"]);
    expect(await refusal(wait(first, a))).toEqual([429, "5", "QUOTA_EXCEEDED"]);
    held.push(...Array.from({ length: 16 }, () => wait(host, h)));
    await until(32);

    const approver = (await credential(CONSUMER, "approver", "rev-1")).secret;
    const list = (await (await send("GET", `${BASE}/approvals?state=pending`, approver)).json()) as {
      approvals: Array<{ approval_id: string; approval_digest: string }>;
    };
    for (const view of list.approvals)
      expect(
        (
          await send("POST", `${BASE}/approvals/${view.approval_id}`, approver, {
            decision: "deny",
            approval_digest: view.approval_digest,
          })
        ).status,
      ).toBe(200);
    expect(new Set(await Promise.all(held.map(async (res) => (await res).status)))).toEqual(new Set([200]));
    await until(0);
  }, 60_000);
});
