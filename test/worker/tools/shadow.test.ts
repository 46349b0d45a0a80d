/**
 * Issue #31 item 4, policies in shadow: a data tool's shadow rules are evaluated on every call
 * beside the enforced ones and never decide; each disagreement (allow vs refuse, a human vs none)
 * is counted and kept (`GET …/tools/{name}/shadow`), the call's span says whether they agreed,
 * and a change of the shadow leaves the tool's revisions alone. Then replay: a candidate
 * definition against a recorded call stream, with what it could not replay counted.
 * The expected decisions are worked out by hand from the rules and the arguments.
 */
import { beforeEach, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  adminClient,
  context,
  freshConsumer,
  gate,
  pinClock,
  secretOf,
  send,
  setupConsumer,
} from "../../kit";
import { INVOICE, LOOKUP } from "../../support/ledger-tools";

const T0 = 1_784_419_200;
const SUBJECT = "shadow-user-1";

const SHADOWED_INVOICE = {
  ...INVOICE,
  shadow: { authorize: 'args.customer != "blocked"', approval: "args.amount > 50" },
};
const SHADOWED_LOOKUP = { ...LOOKUP, authorize: '"support" in principal.roles', shadow: { authorize: "true" } };

let C = "";
let agent = "";
let n = 0;

async function setup(config: Record<string, unknown> = {}): Promise<void> {
  C = freshConsumer("shadow");
  await setupConsumer(C, {
    config: { approver_subjects: ["rev-1"], ...config },
    definitions: { create_invoice: SHADOWED_INVOICE, lookup_customer: SHADOWED_LOOKUP },
    tools: ["create_invoice", "lookup_customer"],
    clock: T0,
  });
  agent = await secretOf(C, "agent", undefined, { roles: ["support"] });
}

/** One call (a write takes a fresh idempotency key unless `key` is null); answers its call id and outcome. */
async function callTool(
  name: string,
  args: Record<string, unknown>,
  opts: { roles?: string[]; key?: string | null } = {},
) {
  n += 1;
  const callId = `shadow-call-${n}`;
  const key = opts.key === undefined ? (name === "create_invoice" ? `key-${n}` : null) : opts.key;
  const res = await send("POST", `/v1/consumers/${C}/tool-calls`, agent, {
    principal: { subject_id: SUBJECT, roles: opts.roles ?? ["support"] },
    proposal: { name, arguments: args },
    context: context(callId, { key }),
  });
  const body = (await res.json()) as { model_result: { status: string; error: { code: string } | null } };
  return { callId, outcome: body.model_result.error?.code ?? body.model_result.status };
}

/** The request digest the audit record of `callId` names (its binding), read by an auditor. */
async function digestOf(callId: string): Promise<string> {
  const auditor = await secretOf(C, "auditor");
  const page = (await (await send("GET", `/v1/consumers/${C}/audit`, auditor)).json()) as {
    entries: Array<{
      kind: string;
      record: { provider_context?: { call_id: string }; binding?: { request_sha256: string } };
    }>;
  };
  const entry = page.entries.find((e) => e.kind === "tool_call" && e.record.provider_context?.call_id === callId);
  if (entry?.record.binding === undefined) throw new Error(`no audit record of ${callId}`);
  return entry.record.binding.request_sha256;
}

const shadowOf = async (tool: string) => (await adminClient(C).call("GET", `/tools/${tool}/shadow`)).body;

beforeEach(() => {
  n = 0;
});

describe("policies in shadow", () => {
  it("counts agreement and each kind of disagreement exactly, and keeps the disagreements newest first", async () => {
    await setup();
    // amount 10: enforced runs it (≤ 100), shadow too (≤ 50): agree.
    const a = await callTool("create_invoice", { customer: "c1", amount: 10 });
    // amount 70: enforced runs it, shadow would ask a human (> 50): approval.
    const b = await callTool("create_invoice", { customer: "c2", amount: 70 });
    // amount 200: both ask a human: agree.
    const c = await callTool("create_invoice", { customer: "c3", amount: 200 });
    // customer "blocked": enforced runs it, shadow refuses: authorize.
    const d = await callTool("create_invoice", { customer: "blocked", amount: 10 });
    // amount 0: invalid arguments, the rules are never reached: not evaluated.
    const e = await callTool("create_invoice", { customer: "c4", amount: 0 });
    expect([a.outcome, b.outcome, c.outcome, d.outcome, e.outcome]).toEqual([
      "succeeded",
      "succeeded",
      "APPROVAL_REQUIRED",
      "succeeded",
      "INVALID_ARGUMENTS",
    ]);

    const view = await shadowOf("create_invoice");
    expect(view?.shadow).toEqual(SHADOWED_INVOICE.shadow);
    expect(view?.counts).toEqual({ evaluated: 4, agreed: 2, disagreed: { authorize: 1, approval: 1 } });
    const revision = view?.revision as string;
    expect(revision).toMatch(/^shadow-[0-9a-f]{16}$/);
    expect(view?.disagreements).toEqual([
      {
        tool: "create_invoice",
        revision,
        at: T0,
        kind: "authorize",
        enforced: "allowed",
        shadow: "refused",
        subject_id: SUBJECT,
        call_id: d.callId,
        request_sha256: await digestOf(d.callId),
      },
      {
        tool: "create_invoice",
        revision,
        at: T0,
        kind: "approval",
        enforced: "allowed",
        shadow: "needs_approval",
        subject_id: SUBJECT,
        call_id: b.callId,
        request_sha256: await digestOf(b.callId),
      },
    ]);

    // A read: enforced refuses a caller without the role (NOT_FOUND), the shadow (`true`) would run it.
    const refused = await callTool("lookup_customer", { customer: "c1" }, { roles: [] });
    const allowed = await callTool("lookup_customer", { customer: "c1" });
    expect([refused.outcome, allowed.outcome]).toEqual(["NOT_FOUND", "succeeded"]);
    const lookup = await shadowOf("lookup_customer");
    expect(lookup?.counts).toEqual({ evaluated: 2, agreed: 1, disagreed: { authorize: 1, approval: 0 } });
    expect(
      lookup?.disagreements.map((x: Record<string, unknown>) => [x.kind, x.enforced, x.shadow, x.call_id]),
    ).toEqual([["authorize", "refused", "allowed", refused.callId]]);
  });

  it("keeps the arguments of a disagreement only when the consumer keeps them in its audit records", async () => {
    await setup({ audit_arguments: "full" });
    const b = await callTool("create_invoice", { customer: "c2", amount: 70 });
    const kept = (await shadowOf("create_invoice"))?.disagreements as Array<Record<string, unknown>>;
    expect(kept.map((x) => [x.call_id, x.arguments])).toEqual([[b.callId, { customer: "c2", amount: 70 }]]);
  });

  it("a shadow change is a new version with the same revisions, and starts its own counts", async () => {
    await setup();
    const admin = adminClient(C);
    const before = await admin.call("GET", "/tools/create_invoice");
    await callTool("create_invoice", { customer: "c2", amount: 70 });
    const first = await shadowOf("create_invoice");
    const changed = await admin.call("PUT", "/tools/create_invoice", {
      ...INVOICE,
      shadow: { approval: "args.amount > 60" },
    });
    expect([changed.status, changed.body?.version]).toEqual([200, 2]);
    expect(changed.body?.revisions).toEqual(before.body?.history[0].revisions);
    const second = await shadowOf("create_invoice");
    expect(second?.revision).not.toBe(first?.revision);
    expect(second?.counts).toEqual({ evaluated: 0, agreed: 0, disagreed: { authorize: 0, approval: 0 } });
    // The kept list spans revisions: the one disagreement of the first shadow stays.
    expect(second?.disagreements.map((x: Record<string, unknown>) => x.revision)).toEqual([first?.revision]);
    // Without a shadow: no counts, and the tool without one answers NOT_FOUND only when it does not exist.
    expect((await admin.call("PUT", "/tools/create_invoice", INVOICE)).status).toBe(200);
    const none = await shadowOf("create_invoice");
    expect([none?.shadow, none?.revision, none?.counts]).toEqual([null, null, null]);
    expect((await admin.call("GET", "/tools/no_such_tool/shadow")).status).toBe(404);
  });

  it("refuses a shadow rule that does not type-check against the input, at its pointer", async () => {
    await setup();
    const refused = await adminClient(C).call("PUT", "/tools/create_invoice", {
      ...INVOICE,
      shadow: { approval: 'args.amount > "50"' },
    });
    expect([refused.status, refused.body?.code, refused.body?.path]).toEqual([
      422,
      "INVALID_TOOL_DEFINITION",
      "/shadow/approval",
    ]);
  });
});

type Attribute = { key: string; value: { boolValue?: boolean; stringValue?: string } };
type Exported = { parentSpanId?: string; attributes: Attribute[] };

/** The root span of `callId` once the collector (https://otlp.test) received it: its attributes by key. */
async function rootSpanOf(callId: string): Promise<Record<string, Attribute["value"]>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const state = (await (await fetch("https://otlp.test/_state")).json()) as {
      exports: Array<{ body: { resourceSpans: Array<{ scopeSpans: Array<{ spans: Exported[] }> }> } }>;
    };
    const spans = state.exports.flatMap((e) =>
      e.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((x) => x.spans)),
    );
    const root = spans.find(
      (x) =>
        x.parentSpanId === undefined &&
        x.attributes.some((a) => a.key === "gen_ai.tool.call.id" && a.value.stringValue === callId),
    );
    if (root !== undefined) return Object.fromEntries(root.attributes.map((a) => [a.key, a.value]));
    if (Date.now() > deadline) throw new Error(`no span of ${callId} reached the collector`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("the call's span", () => {
  it("says whether the shadow agreed (toolgate.policy.shadow_agrees); a tool without a shadow does not say", async () => {
    await fetch("https://otlp.test/_control", { method: "POST", body: JSON.stringify({ reset: true, armed: true }) });
    await setup();
    const agreed = await callTool("create_invoice", { customer: "c1", amount: 10 });
    const disagreed = await callTool("create_invoice", { customer: "c2", amount: 70 });
    expect((await rootSpanOf(agreed.callId))["toolgate.policy.shadow_agrees"]).toEqual({ boolValue: true });
    expect((await rootSpanOf(disagreed.callId))["toolgate.policy.shadow_agrees"]).toEqual({ boolValue: false });
    expect((await adminClient(C).call("PUT", "/tools/create_invoice", INVOICE)).status).toBe(200);
    const plain = await callTool("create_invoice", { customer: "c3", amount: 10 });
    expect(Object.keys(await rootSpanOf(plain.callId))).not.toContain("toolgate.policy.shadow_agrees");
  });
});

describe("the console's page", () => {
  it("lists each shadowed tool's counts and disagreements to a signed-in approver, without argument values", async () => {
    await setup({ audit_arguments: "full" });
    // A customer no hex digest or token can spell (only hex and base64url text surround it).
    const b = await callTool("create_invoice", { customer: "zq-wolf", amount: 70 });
    const approver = await secretOf(C, "approver", "rev-1");
    const signIn = await gate("/console/session", {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://gate" },
      body: new URLSearchParams({ consumer: C, credential: approver }).toString(),
    });
    expect(signIn.status).toBe(303);
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const approvals = await (await gate("/console/approvals", { headers: { cookie } })).text();
    expect(approvals).toContain('<a href="/console/shadow">Policies in shadow</a>');
    const res = await gate("/console/shadow", { headers: { cookie } });
    const page = await res.text();
    expect(res.status).toBe(200);
    const revision = (await shadowOf("create_invoice"))?.revision as string;
    expect(page).toContain(
      `<p>Shadow <code>${revision}</code>: 1 calls evaluated, 0 agreed, 0 disagreed on whether to allow, 1 on whether a human decides.</p>`,
    );
    expect(page).toContain(
      `<td>approval</td><td>runs</td><td>a human decides</td><td>${SUBJECT}</td><td><code>${b.callId}</code></td>`,
    );
    expect(page).toContain('<h2 id="shadow-lookup_customer"><code>lookup_customer</code></h2>');
    expect(page).not.toContain("zq-wolf");
    // Without a session: back to sign-in.
    const anonymous = await gate("/console/shadow", { redirect: "manual" });
    expect([anonymous.status, anonymous.headers.get("location")]).toEqual([303, "/console?ended"]);
  });
});

describe("replay", () => {
  it("replays a candidate against the recorded calls: exact figures, the differing calls, what it could not see", async () => {
    await setup();
    // Recorded under audit_arguments: digest, so never replayable.
    await callTool("create_invoice", { customer: "d1", amount: 10 });
    await callTool("create_invoice", { customer: "d2", amount: 300 });
    const patched = await gate(`/v1/consumers/${C}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ audit_arguments: "full" }),
    });
    expect(patched.status).toBe(200);
    await pinClock(C, T0 + 60);
    const s1 = await callTool("create_invoice", { customer: "c1", amount: 10 }); // allowed; candidate allowed
    const s2 = await callTool("create_invoice", { customer: "c2", amount: 70 }); // allowed; candidate: a human
    const s3 = await callTool("create_invoice", { customer: "c3", amount: 200 }); // a human; candidate: a human
    const s4 = await callTool("create_invoice", { customer: "blocked", amount: 10 }); // allowed; candidate refuses
    const s5 = await callTool("create_invoice", { customer: "c5", amount: 0 }); // invalid: before the rules
    const s6 = await callTool("create_invoice", { customer: "c6", amount: 20 }, { key: null }); // no key: before approval
    expect([s1, s2, s3, s4, s5, s6].map((s) => s.outcome)).toEqual([
      "succeeded",
      "succeeded",
      "APPROVAL_REQUIRED",
      "succeeded",
      "INVALID_ARGUMENTS",
      "IDEMPOTENCY_KEY_REQUIRED",
    ]);
    const candidate = { ...INVOICE, authorize: 'args.customer != "blocked"', approval: "args.amount > 50" };
    const replay = await adminClient(C).call("POST", "/tools/create_invoice/replay", { definition: candidate });
    expect(replay.status).toBe(200);
    const auditor = await secretOf(C, "auditor");
    const page = (await (await send("GET", `/v1/consumers/${C}/audit`, auditor)).json()) as {
      entries: Array<{ seq: number; record: { provider_context?: { call_id: string } } }>;
    };
    const seqOf = (callId: string) => page.entries.find((e) => e.record.provider_context?.call_id === callId)?.seq;
    expect(replay.body).toEqual({
      name: "create_invoice",
      since: T0 + 60 - 86_400,
      calls: 8,
      replayed: 4,
      without_arguments: 2,
      before_policy: 2,
      happened: { refused: 0, needs_approval: 1, allowed: 3 },
      candidate: { refused: 1, needs_approval: 2, allowed: 1 },
      differing: 2,
      differences: [
        {
          seq: seqOf(s4.callId),
          at: T0 + 60,
          call_id: s4.callId,
          subject_id: SUBJECT,
          request_sha256: await digestOf(s4.callId),
          happened: "allowed",
          candidate: "refused",
        },
        {
          seq: seqOf(s2.callId),
          at: T0 + 60,
          call_id: s2.callId,
          subject_id: SUBJECT,
          request_sha256: await digestOf(s2.callId),
          happened: "allowed",
          candidate: "needs_approval",
        },
      ],
    });
    // The limit takes the newest calls only: the last two are both before the rules.
    const newest = await adminClient(C).call("POST", "/tools/create_invoice/replay", {
      definition: candidate,
      limit: 2,
    });
    expect([newest.body?.calls, newest.body?.replayed, newest.body?.before_policy]).toEqual([2, 0, 2]);
    // A candidate is checked as a PUT is, at its pointer under /definition; an unknown tool is 404.
    const bad = await adminClient(C).call("POST", "/tools/create_invoice/replay", {
      definition: { ...INVOICE, approval: "args.amount >" },
    });
    expect([bad.status, bad.body?.code, bad.body?.path]).toEqual([
      422,
      "INVALID_TOOL_DEFINITION",
      "/definition/approval",
    ]);
    const unknown = await adminClient(C).call("POST", "/tools/no_such_tool/replay", { definition: candidate });
    expect(unknown.status).toBe(404);
  });
});
