/**
 * A host credential names any subject, so the per-subject quota of pending approvals does not
 * bound what it opens: spread over many subjects it could bury the approvers' list. Each agent
 * credential also holds at most `limits.pending_approvals_per_credential` pending approvals
 * (default 100), whatever subjects it names; another credential still opens its own.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, context, credential, pinClock, send, wipe, type ToolCallAnswer } from "../../kit";

const T0 = 1_784_419_200;
const CONSUMER = "tenant-a";
const BASE = `/v1/consumers/${CONSUMER}`;
const RATES = { calls_per_second: 1000, call_burst: 1000, page_items: 500 };

async function configure(limits: Record<string, number> = {}): Promise<void> {
  const res = await send("PUT", BASE, ADMIN_TOKEN, {
    tools: ["create_refund_draft"],
    approver_subjects: ["rev-1"],
    limits: { ...RATES, ...limits },
  });
  expect(res.status).toBe(200);
  await pinClock(CONSUMER, T0);
}

async function call(agent: string, n: number, subject: string) {
  const body = {
    principal: { subject_id: subject, roles: ["support_admin"] },
    proposal: { name: "create_refund_draft", arguments: { order_ref: "ORDER-7", reason: "duplicate" } },
    context: context(`call-${n}`, { key: `idem-${n}` }),
  };
  const res = await send("POST", `${BASE}/tool-calls`, agent, body);
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    body: (await res.json()) as ToolCallAnswer & Record<string, unknown>,
  };
}

async function pendingCount(): Promise<number> {
  const stub = env.CONSUMER.get(env.CONSUMER.idFromName(CONSUMER));
  return runInDurableObject(stub, (_i, state) =>
    Number(state.storage.sql.exec("SELECT COUNT(*) AS n FROM approvals WHERE state = 'pending'").one()["n"]),
  );
}

beforeEach(async () => {
  await wipe(CONSUMER);
});

describe("pending approvals per credential", () => {
  it("a host credential spreading calls over subjects stops at 100 pending: 429 QUOTA_EXCEEDED, Retry-After, nothing opened", async () => {
    await configure();
    const host = (await credential(CONSUMER, "agent", undefined, { roles: ["support_admin"] })).secret;
    // 20 per subject (its own quota) over 5 subjects: 100, the credential's default quota.
    for (let n = 0; n < 100; n++) {
      if (n === 1) await pinClock(CONSUMER, T0 + 10);
      const asked = await call(host, n, `user-${Math.floor(n / 20)}`);
      expect([asked.status, asked.body.model_result.error?.code]).toEqual([200, "APPROVAL_REQUIRED"]);
    }
    const refused = await call(host, 100, "user-fresh");
    // The first pending approval (opened at T0) lapses at T0 + 900; the clock reads T0 + 10.
    expect([refused.status, refused.retryAfter, refused.body["code"]]).toEqual([429, "890", "QUOTA_EXCEEDED"]);
    expect(await pendingCount()).toBe(100);
    // Another credential's quota is its own.
    const other = (await credential(CONSUMER, "agent", undefined, { roles: ["support_admin"] })).secret;
    const asked = await call(other, 101, "user-fresh");
    expect([asked.status, asked.body.model_result.error?.code]).toEqual([200, "APPROVAL_REQUIRED"]);
    expect(await pendingCount()).toBe(101);
  });

  it("the consumer's pending_approvals_per_credential overrides the default", async () => {
    await configure({ pending_approvals_per_credential: 3 });
    const host = (await credential(CONSUMER, "agent", undefined, { roles: ["support_admin"] })).secret;
    for (let n = 0; n < 3; n++)
      expect((await call(host, n, `user-${n}`)).body.model_result.error?.code).toBe("APPROVAL_REQUIRED");
    const refused = await call(host, 3, "user-3");
    expect([refused.status, refused.retryAfter, refused.body["code"]]).toEqual([429, "900", "QUOTA_EXCEEDED"]);
    expect(await pendingCount()).toBe(3);
  });
});
