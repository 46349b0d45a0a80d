/**
 * Standing approvals (docs/approvals.md, "Standing approvals"): an approver's grant covers a
 * subject's calls of one tool within its window, its count and its constraint, each covered call
 * recorded with the grant's id; outside any bound the call needs its own approval again; the
 * consumer's setting gates which tools allow it; only another approver grants.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  adminClient,
  context,
  gate,
  pinClock,
  REFERENCE_TENANT,
  secretOf,
  send,
  setupConsumer,
  wipe,
} from "../../kit";

const T0 = 1_784_419_200;
// The demo orders belong to the reference tenant, so the consumer is named after it.
const C = REFERENCE_TENANT;
const BASE = `/v1/consumers/${C}`;
const TOOL = "create_refund_draft";
const SETTING = { tools: [TOOL], max_seconds: 3600, max_calls: 5 };
const RATES = { calls_per_second: 1000, call_burst: 1000 };

interface Actors {
  agent: string;
  rev1: string;
  rev2: string;
  /** An approver whose subject also makes calls (it owns ORDER-8). */
  user2: string;
  outsider: string;
  auditor: string;
}

async function setup(standing: Record<string, unknown> | null = SETTING): Promise<Actors> {
  await setupConsumer(C, {
    config: {
      approver_subjects: ["rev-1", "rev-2", "user-2"],
      limits: RATES,
      ...(standing === null ? {} : { standing_approvals: standing }),
    },
    tools: ["get_order", TOOL],
    clock: T0,
  });
  return {
    agent: await secretOf(C, "agent"),
    rev1: await secretOf(C, "approver", "rev-1"),
    rev2: await secretOf(C, "approver", "rev-2"),
    user2: await secretOf(C, "approver", "user-2"),
    outsider: await secretOf(C, "approver", "someone-else"),
    auditor: await secretOf(C, "auditor"),
  };
}

let keys = 0;

/** One call of the refund tool under a fresh idempotency key (or `key`): its status, error code, approval and data. */
async function refund(
  agent: string,
  subject: string,
  args: Record<string, string> = { order_ref: "ORDER-7", reason: "duplicate" },
  key?: string,
) {
  keys += 1;
  const res = await send("POST", `${BASE}/tool-calls`, agent, {
    principal: { subject_id: subject, roles: [] },
    proposal: { name: TOOL, arguments: args },
    // A call repeated under its key repeats its whole context.
    context: context(key === undefined ? `call-${keys}` : `call-${key}`, { key: key ?? `idem-${keys}` }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    approval_id?: string;
    model_result: {
      status: string;
      error: { code: string } | null;
      data: Record<string, unknown> | null;
      execution: { delivery: string };
    };
  };
  return {
    status: body.model_result.status,
    code: body.model_result.error?.code ?? null,
    delivery: body.model_result.execution.delivery,
    approval: body.approval_id ?? null,
    data: body.model_result.data,
  };
}

async function grant(approver: string, body: Record<string, unknown>) {
  const res = await send("POST", `${BASE}/standing-approvals`, approver, body);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function listed(approver: string) {
  const res = await send("GET", `${BASE}/standing-approvals`, approver);
  expect(res.status).toBe(200);
  return ((await res.json()) as { standing_approvals: Array<Record<string, unknown>> }).standing_approvals;
}

async function revoke(approver: string, id: string) {
  const res = await send("DELETE", `${BASE}/standing-approvals/${id}`, approver);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The audit entries of a kind, oldest first. */
async function entries(auditor: string, kind: string): Promise<Array<Record<string, unknown>>> {
  const page = (await (await send("GET", `${BASE}/audit?limit=100`, auditor)).json()) as {
    entries: Array<{ kind: string; record: Record<string, unknown> }>;
  };
  return page.entries.filter((e) => e.kind === kind).map((e) => e.record);
}

/** A JSON Merge Patch of the consumer's configuration, as the admin sends it. */
async function patch(body: unknown) {
  const res = await gate(BASE, {
    method: "PATCH",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/merge-patch+json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const ORDER_8 = { order_ref: "ORDER-8", reason: "duplicate" };
const GRANT = { tool: TOOL, subject_id: "user-1", seconds: 600, max_calls: 3 };
const APPROVAL_REQUIRED = { status: "failed", code: "APPROVAL_REQUIRED" };

function problemOf(code: string, title: string, status: number, detail: string) {
  return {
    type: `https://toolgate.dev/problems/${code.toLowerCase().replaceAll("_", "-")}`,
    title,
    status,
    code,
    detail,
  };
}

beforeEach(async () => {
  await wipe(C);
});

describe("a standing approval within its bounds", () => {
  it("covers the subject's calls whose exact arguments the constraint admits, without a per-call decision", async () => {
    const { agent, rev1 } = await setup();
    const granted = await grant(rev1, {
      ...GRANT,
      constraint: 'args.order_ref == "ORDER-7" && args.reason != "damaged"',
    });
    expect(granted.status).toBe(201);
    const id = granted.body.standing_approval_id as string;
    expect(id).toMatch(/^sta_[0-9a-f]{32}$/);
    expect(granted.body).toEqual({
      standing_approval_id: id,
      state: "active",
      tool: TOOL,
      subject_id: "user-1",
      approver_id: "rev-1",
      constraint: 'args.order_ref == "ORDER-7" && args.reason != "damaged"',
      granted_at: T0,
      expires_at: T0 + 600,
      max_calls: 3,
      used_calls: 0,
      revoked_at: null,
      revoked_by: null,
    });

    expect(await refund(agent, "user-1")).toEqual({
      status: "succeeded",
      code: null,
      delivery: "fresh",
      approval: null,
      data: { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" },
    });
    // Another subject (the owner of ORDER-8), arguments the constraint refuses: each asks a human.
    expect(await refund(agent, "user-2", ORDER_8)).toMatchObject(APPROVAL_REQUIRED);
    expect(await refund(agent, "user-1", { order_ref: "ORDER-7", reason: "damaged" })).toMatchObject(APPROVAL_REQUIRED);
    expect((await listed(rev1)).map((s) => [s.standing_approval_id, s.state, s.used_calls])).toEqual([
      [id, "active", 1],
    ]);

    // A call that already has a request of its own keeps it: the grant covers only calls never asked.
    const own = { order_ref: "ORDER-7", reason: "damaged" };
    const asked = await refund(agent, "user-1", own, "idem-own");
    await pinClock(C, T0 + 1);
    expect((await grant(rev1, { ...GRANT, constraint: "true" })).status).toBe(201);
    const again = await refund(agent, "user-1", own, "idem-own");
    expect(asked.approval).toMatch(/^apr_/);
    expect([again.code, again.approval]).toEqual(["APPROVAL_REQUIRED", asked.approval]);

    // The window ends at expires_at (exclusive): the older grant covers until then, the newer one a second longer.
    await pinClock(C, T0 + 599);
    expect(await refund(agent, "user-1")).toMatchObject({ status: "succeeded", approval: null });
    await pinClock(C, T0 + 600);
    expect(await refund(agent, "user-1")).toMatchObject({ status: "succeeded", approval: null });
    await pinClock(C, T0 + 601);
    expect(await refund(agent, "user-1")).toMatchObject(APPROVAL_REQUIRED);
    expect((await listed(rev1)).map((s) => [s.state, s.used_calls])).toEqual([
      ["expired", 1],
      ["expired", 2],
    ]);
  });

  it("counts each covered call exactly once, atomically: concurrent calls never exceed max_calls; a replay uses none", async () => {
    const { agent, rev1 } = await setup();
    const id = (await grant(rev1, { ...GRANT, max_calls: 2 })).body.standing_approval_id as string;
    const first = await refund(agent, "user-1", undefined, "idem-replayed");
    expect(first).toMatchObject({ status: "succeeded", delivery: "fresh" });
    // The same call again is a replay of its record: it takes no second use.
    expect(await refund(agent, "user-1", undefined, "idem-replayed")).toMatchObject({
      status: "succeeded",
      delivery: "local_replay",
    });
    const burst = await Promise.all(Array.from({ length: 6 }, () => refund(agent, "user-1")));
    expect(burst.filter((r) => r.status === "succeeded").length).toBe(1);
    expect(burst.filter((r) => r.code === "APPROVAL_REQUIRED").length).toBe(5);
    expect((await listed(rev1)).map((s) => [s.standing_approval_id, s.state, s.used_calls])).toEqual([
      [id, "exhausted", 2],
    ]);
    const stub = env.CONSUMER.get(env.CONSUMER.idFromName(C));
    const stored = await runInDurableObject(stub, (_o, state) =>
      state.storage.sql.exec("SELECT used_calls, max_calls FROM standing_approvals").toArray(),
    );
    expect(stored).toEqual([{ used_calls: 2, max_calls: 2 }]);
    expect(await refund(agent, "user-1")).toMatchObject(APPROVAL_REQUIRED);
  });
});

describe("revocation", () => {
  it("takes effect at the next call; revoking again answers it unchanged; an unknown id is 404", async () => {
    const { agent, rev1, rev2 } = await setup();
    const id = (await grant(rev1, GRANT)).body.standing_approval_id as string;
    expect(await refund(agent, "user-1")).toMatchObject({ status: "succeeded", approval: null });
    await pinClock(C, T0 + 5);
    const revoked = await revoke(rev2, id);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ state: "revoked", used_calls: 1, revoked_at: T0 + 5, revoked_by: "rev-2" });
    expect(await refund(agent, "user-1")).toMatchObject(APPROVAL_REQUIRED);
    await pinClock(C, T0 + 9);
    expect(await revoke(rev1, id)).toEqual(revoked);
    expect(await revoke(rev1, `sta_${"0".repeat(32)}`)).toEqual({
      status: 404,
      body: problemOf("NOT_FOUND", "Not found", 404, "No such standing approval."),
    });
    expect((await revoke(rev1, "not-an-id")).status).toBe(404);
  });
});

describe("the audit", () => {
  it("records each covered call with the standing approval's id, and the grant and its revocation", async () => {
    const { agent, rev1, auditor } = await setup();
    const id = (await grant(rev1, GRANT)).body.standing_approval_id as string;
    await refund(agent, "user-1");
    await refund(agent, "user-2", ORDER_8);
    await revoke(rev1, id);
    const calls = await entries(auditor, "tool_call");
    expect(calls.map((r) => [r.subject_id, r.outcome, r.approval_id === null, r.standing_approval_id])).toEqual([
      ["user-1", "succeeded", true, id],
      ["user-2", "failed", false, undefined],
    ]);
    expect("standing_approval_id" in (calls[1] ?? {})).toBe(false);
    expect(await entries(auditor, "standing_approval.granted")).toEqual([
      {
        standing_approval_id: id,
        state: "active",
        tool: TOOL,
        subject_id: "user-1",
        approver_id: "rev-1",
        constraint: null,
        granted_at: T0,
        expires_at: T0 + 600,
        max_calls: 3,
        used_calls: 0,
        revoked_at: null,
        revoked_by: null,
      },
    ]);
    expect(await entries(auditor, "standing_approval.revoked")).toEqual([
      { standing_approval_id: id, revoked_by: "rev-1" },
    ]);
  });
});

describe("who may grant", () => {
  it("only an approver of the consumer, never for its own subject, with a constraint that type-checks", async () => {
    const { agent, rev1, user2, outsider } = await setup();
    const notApprover = await grant(outsider, GRANT);
    expect(notApprover).toEqual({
      status: 403,
      body: problemOf(
        "APPROVER_NOT_ALLOWED",
        "Subject may not approve",
        403,
        "This subject is not an approver of the consumer.",
      ),
    });
    expect((await grant(agent, GRANT)).status).toBe(403);
    expect(await grant(user2, { ...GRANT, subject_id: "user-2" })).toEqual({
      status: 403,
      body: problemOf(
        "SELF_APPROVAL_FORBIDDEN",
        "The requesting subject may not approve its own call",
        403,
        "An approver may not grant a standing approval to itself.",
      ),
    });
    const typo = await grant(rev1, { ...GRANT, constraint: "args.amout <= 100" });
    expect([typo.status, typo.body.code, typo.body.path]).toEqual([400, "INVALID_REQUEST", "/constraint"]);
    const mistyped = await grant(rev1, { ...GRANT, constraint: "args.reason <= 100" });
    expect([mistyped.status, mistyped.body.code, mistyped.body.path]).toEqual([400, "INVALID_REQUEST", "/constraint"]);
    expect((await grant(rev1, { ...GRANT, constraint: "size(" })).body.path).toBe("/constraint");
    expect(await listed(rev1)).toEqual([]);
    // A grant by another approver for user-2 stands.
    expect((await grant(rev1, { ...GRANT, subject_id: "user-2" })).status).toBe(201);
    expect(await refund(agent, "user-2", ORDER_8)).toMatchObject({ status: "succeeded" });
  });
});

describe("the consumer's setting", () => {
  it("gates which tools, how long and how many calls; withdrawing it ends every grant's cover", async () => {
    const { agent, rev1 } = await setup(null);
    const notAllowed = (detail: string) => ({
      status: 403,
      body: problemOf(
        "STANDING_APPROVAL_NOT_ALLOWED",
        "The consumer does not allow this standing approval",
        403,
        detail,
      ),
    });
    expect(await grant(rev1, GRANT)).toEqual(notAllowed("The consumer allows no standing approval of this tool."));
    const admin = adminClient(C);
    const patched = await patch({ standing_approvals: { ...SETTING, max_seconds: 600 } });
    expect([patched.status, patched.body.standing_approvals]).toEqual([200, { ...SETTING, max_seconds: 600 }]);
    expect((await admin.call("GET", "")).body?.standing_approvals).toEqual({ ...SETTING, max_seconds: 600 });
    expect(await grant(rev1, { ...GRANT, tool: "get_order" })).toEqual(
      notAllowed("The consumer allows no standing approval of this tool."),
    );
    expect(await grant(rev1, { ...GRANT, seconds: 601 })).toEqual(
      notAllowed("The consumer allows a standing approval of at most 600 seconds."),
    );
    expect(await grant(rev1, { ...GRANT, max_calls: 6 })).toEqual(
      notAllowed("The consumer allows a standing approval of at most 5 calls."),
    );
    expect((await grant(rev1, { ...GRANT, seconds: 600, max_calls: 5 })).status).toBe(201);
    expect(await refund(agent, "user-1")).toMatchObject({ status: "succeeded" });
    expect((await patch({ standing_approvals: null })).status).toBe(200);
    expect((await admin.call("GET", "")).body?.standing_approvals).toBe(undefined);
    expect(await refund(agent, "user-1")).toMatchObject(APPROVAL_REQUIRED);
    // An invalid setting is refused with its pointer.
    const refused = await patch({ standing_approvals: { ...SETTING, max_calls: 0 } });
    expect([refused.status, refused.body.path]).toEqual([400, "/standing_approvals/max_calls"]);
  });
});
