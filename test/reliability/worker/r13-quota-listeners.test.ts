/**
 * R13c live listeners per credential: one agent credential floods a consumer with waiting
 * status requests (`?wait=`) while an approver streams the approval events and another agent
 * waits on its own approval. The flood holds its credential's 16 slots, every request beyond
 * answers 429 QUOTA_EXCEEDED at once, and the approver's stream and the other agent's wait
 * keep their slots and hear the decision.
 * Pass: 16 held, the rest refused with Retry-After, 0 lost, and a new approver stream still opens.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { wipe } from "../../kit";
import { report } from "../support/figures";
import { ADMIN, callBody, gate, pinClock, send, tenant } from "./client";

const NAME = "r13-listeners";
const FLOOD = 300;
const PER_CREDENTIAL = 16;
const T0 = 1_900_000_000;

function listeners(): Promise<number> {
  return runInDurableObject(env.CONSUMER.get(env.CONSUMER.idFromName(NAME)), (instance) => instance.events.listeners);
}

/** Reads a stream until `needle` shows or `ms` pass; answers whether it showed. */
async function hears(reader: ReadableStreamDefaultReader<Uint8Array>, needle: string, ms: number): Promise<boolean> {
  const decoder = new TextDecoder();
  const deadline = Date.now() + ms;
  let text = "";
  while (!text.includes(needle)) {
    const left = deadline - Date.now();
    const next =
      left <= 0 ? null : await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), left))]);
    if (next === null || next.done) return false;
    text += decoder.decode(next.value, { stream: true });
  }
  return true;
}

async function deny(approver: string, id: string): Promise<number> {
  const list = await send("GET", `/v1/consumers/${NAME}/approvals?state=pending`, approver);
  const shown = (list.json.approvals as Array<{ approval_id: string; approval_digest: string }>).find(
    (a) => a.approval_id === id,
  );
  return (
    await send("POST", `/v1/consumers/${NAME}/approvals/${id}`, approver, {
      decision: "deny",
      approval_digest: shown?.approval_digest ?? "",
    })
  ).status;
}

describe("R13c live listeners per credential", () => {
  it("one agent flooding ?wait= holds its 16 slots; the approver's stream and another agent's wait keep theirs", async () => {
    await wipe(NAME);
    const t = await tenant(NAME);
    await pinClock(NAME, T0);
    const victim = (await send("POST", `/v1/consumers/${NAME}/credentials`, ADMIN, { kind: "agent" })).json
      .secret as string;
    const open = async (token: string, callId: string) =>
      (
        await send(
          "POST",
          `/v1/consumers/${NAME}/tool-calls`,
          token,
          callBody({ callId, tool: "submit_refund", args: { order_ref: callId, reason: "duplicate" } }),
        )
      ).json.approval_id as string;
    const attackerApproval = await open(t.agent, "r13c-attacker");
    const victimApproval = await open(victim, "r13c-victim");

    const stream = (
      await gate(`/v1/consumers/${NAME}/approvals/events`, { headers: { authorization: `Bearer ${t.approver}` } })
    ).body!.getReader();
    expect(await hears(stream, victimApproval, 5000)).toBe(true);
    const victimWait = send("GET", `/v1/consumers/${NAME}/approvals/${victimApproval}?wait=60`, victim);

    const answered: Array<{ status: number; retryAfter: string | null; code: string | null }> = [];
    const flood = Array.from({ length: FLOOD }, async () => {
      const res = await gate(`/v1/consumers/${NAME}/approvals/${attackerApproval}?wait=60`, {
        headers: { authorization: `Bearer ${t.agent}` },
      });
      const body = (await res.json()) as { code?: string; state?: string };
      answered.push({
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        code: body.code ?? body.state ?? null,
      });
    });
    for (let i = 0; i < 400 && answered.length < FLOOD - PER_CREDENTIAL; i++)
      await new Promise((r) => setTimeout(r, 25));
    const held = (await listeners()) - 2;
    const refused = answered.filter(
      (a) => a.status === 429 && a.retryAfter === "5" && a.code === "QUOTA_EXCEEDED",
    ).length;
    const fresh = await gate(`/v1/consumers/${NAME}/approvals/events`, {
      headers: { authorization: `Bearer ${t.approver}` },
    });
    const freshStatus = fresh.status;
    await fresh.body?.cancel();

    // The victim's approval is decided: its wait and the approver's stream both hear it.
    expect(await deny(t.approver, victimApproval)).toBe(200);
    const [victimState, streamHeard] = await Promise.all([
      victimWait.then((r) => r.json?.state as string),
      hears(stream, `"approval_id":"${victimApproval}","approver_id":"human-reviewer-1"`, 5000),
    ]);
    const lost = (victimState === "denied" ? 0 : 1) + (streamHeard ? 0 : 1);
    const figure = `attacker ${FLOOD} waits → ${held} held/${refused} refused 429; approver stream and victim's wait kept (${lost} lost); new approver stream ${freshStatus}`;
    const pass = held === PER_CREDENTIAL && refused === FLOOD - PER_CREDENTIAL && lost === 0 && freshStatus === 200;
    report({
      id: "R13c",
      check: "live listeners per credential (?wait= flood vs approver stream, other agent)",
      figure,
      pass,
    });
    expect([held, refused, lost, freshStatus]).toEqual([PER_CREDENTIAL, FLOOD - PER_CREDENTIAL, 0, 200]);

    // The held waits answer the decision once it comes.
    expect(await deny(t.approver, attackerApproval)).toBe(200);
    await Promise.all(flood);
    await stream.cancel();
    expect(answered.filter((a) => a.status === 200 && a.code === "denied").length).toBe(PER_CREDENTIAL);
  }, 60_000);
});
