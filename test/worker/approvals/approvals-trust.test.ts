/**
 * Issue #11 ("Trust"), the approvals part: a decision is taken only with the digest of the
 * pending call, the view shows every digest input (recomputed here independently, as
 * docs/approvals.md describes), the list is paged with an opaque cursor, and a subject's
 * pending approvals are bounded by a quota.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { ApprovalList } from "../../../src/contracts/approval";
import { DEFAULT_LIMITS } from "../../../src/worker/kernel/limits";
import {
  context,
  credential,
  gate,
  pinClock,
  REFERENCE_TENANT,
  secretOf,
  send,
  setupConsumer,
  type ToolCallAnswer,
  wipe,
} from "../../kit";

const T0 = 1_784_419_200;
// The reference tenant: approval digests cover the principal's tenant (the consumer name).
const CONSUMER = REFERENCE_TENANT;
const BASE = `/v1/consumers/${CONSUMER}`;
const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };
/** Generous call rates: these tests make many calls at one pinned second. */
const RATES = { calls_per_second: 1000, call_burst: 1000 };

interface Actors {
  agent: string;
  approver: string;
  approver2: string;
}

async function setup(limits: Record<string, number> = {}): Promise<Actors> {
  await setupConsumer(CONSUMER, {
    config: { approver_subjects: ["rev-1", "rev-2"], limits: { ...RATES, ...limits } },
    tools: ["create_refund_draft"],
    clock: T0,
  });
  return {
    agent: await secretOf(CONSUMER, "agent"),
    approver: await secretOf(CONSUMER, "approver", "rev-1"),
    approver2: await secretOf(CONSUMER, "approver", "rev-2"),
  };
}

async function call(
  agent: string,
  ctx: ReturnType<typeof context>,
  subject = "user-1",
  args: Record<string, string> = REFUND,
) {
  const res = await send("POST", `${BASE}/tool-calls`, agent, {
    principal: { subject_id: subject, roles: [] },
    proposal: { name: "create_refund_draft", arguments: args },
    context: ctx,
  });
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    body: (await res.json()) as ToolCallAnswer & Record<string, unknown>,
  };
}

type View = Record<string, unknown> & { approval_id: string; approval_digest: string };

async function list(
  approver: string,
  cursor?: string,
): Promise<{ status: number; body: { approvals: View[]; next_cursor: string | null } & Record<string, unknown> }> {
  const res = await send(
    "GET",
    `${BASE}/approvals?state=pending${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
    approver,
  );
  return { status: res.status, body: (await res.json()) as { approvals: View[]; next_cursor: string | null } };
}

async function decide(approver: string, id: string, decision: "approve" | "deny", digest: string) {
  const res = await send("POST", `${BASE}/approvals/${id}`, approver, { decision, approval_digest: digest });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function problemBody(code: string, title: string, status: number, detail: string) {
  return {
    type: `https://toolgate.dev/problems/${code.toLowerCase().replaceAll("_", "-")}`,
    title,
    status,
    code,
    detail,
  };
}

/** The approval rows as stored (state and decision columns). */
async function storedApprovals(): Promise<unknown[]> {
  const stub = env.CONSUMER.get(env.CONSUMER.idFromName(CONSUMER));
  return runInDurableObject(stub, (_instance, state) =>
    state.storage.sql
      .exec("SELECT approval_id, state, approver_id, decision_digest, decided_at FROM approvals ORDER BY seq")
      .toArray(),
  );
}

// An implementation independent of src/core: canonical JSON of strings, integers, null, arrays
// and objects (keys sorted, no spaces), and SHA-256 through WebCrypto, as docs/approvals.md says.
function canonical(value: unknown): string {
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const object = value as Record<string, unknown>;
  return `{${Object.keys(object)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonical(object[key])}`)
    .join(",")}}`;
}

async function sha256Hex(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const APPROVAL_DIGEST_FIELDS = [
  "provider",
  "api_family",
  "adapter_revision",
  "operation_id",
  "call_id",
  "response_id",
  "idempotency_key",
  "request_sha256",
  "input_schema_revision",
  "output_schema_revision",
  "effect_revision",
  "approval_revision",
  "approver_id",
];
const REQUEST_DIGEST_FIELDS = [
  "tenant_id",
  "subject_id",
  "tool",
  "arguments",
  "input_schema_revision",
  "output_schema_revision",
  "effect_revision",
];

function pick(view: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field, view[field]]));
}

beforeEach(async () => {
  await wipe(CONSUMER);
});

describe("approval decisions", () => {
  it("hole: a decision whose digest is not the pending call's is refused (409), nothing stored, and the approval is then decided with the right one", async () => {
    const { agent, approver, approver2 } = await setup();
    const ctx = context("call-1", { key: "idem-1" });
    const asked = await call(agent, ctx);
    expect(asked.body.model_result.error?.code).toBe("APPROVAL_REQUIRED");
    const id = asked.body.approval_id as string;
    const other = await call(agent, context("call-2", { key: "idem-2" }), "user-1", {
      order_ref: "ORDER-7",
      reason: "damaged",
    });
    const mine = (await list(approver)).body.approvals;
    const forRev2 = (await list(approver2)).body.approvals;
    const view = mine.find((a) => a.approval_id === id) as View;
    const otherDigest = (mine.find((a) => a.approval_id === other.body.approval_id) as View).approval_digest;
    const rev2Digest = (forRev2.find((a) => a.approval_id === id) as View).approval_digest;
    expect(new Set([view.approval_digest, otherDigest, rev2Digest]).size).toBe(3);

    const mismatch = problemBody(
      "APPROVAL_DIGEST_MISMATCH",
      "Approval digest is not the pending call's",
      409,
      "The approval_digest is not the one computed for this call and this approver; the approval stays pending.",
    );
    // Zeros, another call's digest, the digest computed for another approver; approve and deny alike.
    for (const [decision, digest] of [
      ["approve", "0".repeat(64)],
      ["approve", otherDigest],
      ["approve", rev2Digest],
      ["deny", otherDigest],
    ] as const) {
      expect(await decide(approver, id, decision, digest)).toEqual({ status: 409, body: mismatch });
    }
    expect(await storedApprovals()).toEqual([
      { approval_id: id, state: "pending", approver_id: null, decision_digest: null, decided_at: null },
      {
        approval_id: other.body.approval_id,
        state: "pending",
        approver_id: null,
        decision_digest: null,
        decided_at: null,
      },
    ]);
    const repeated = await call(agent, ctx);
    expect([repeated.body.model_result.error?.code, repeated.body.approval_id]).toEqual(["APPROVAL_REQUIRED", id]);
    expect((await list(approver)).body.approvals.map((a) => a.approval_id)).toEqual([id, other.body.approval_id]);

    expect(await decide(approver, id, "approve", view.approval_digest)).toEqual({
      status: 200,
      body: {
        approval_id: id,
        state: "approved",
        approver_id: "rev-1",
        decided_at: T0,
        valid_until: T0 + 60,
        bound_to_request: true,
      },
    });
    const run = await call(agent, ctx);
    expect([
      run.body.model_result.status,
      run.body.model_result.execution.delivery,
      run.body.model_result.data,
    ]).toEqual(["succeeded", "fresh", { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" }]);
  });
});

describe("the approval view", () => {
  it("hole: the view shows every digest input; the digest recomputed from the view alone is the one to approve", async () => {
    const { agent, approver } = await setup();
    const ctx = context("toolu_01", { provider: "anthropic", key: "idem-7", operation: "op-77", response: "msg_42" });
    const asked = await call(agent, ctx);
    const page = (await list(approver)).body;
    expect(ApprovalList.safeParse(page).success).toBe(true);
    const view = page.approvals[0] as View;
    expect({ ...view, request_sha256: "-", approval_digest: "-" }).toEqual({
      approval_id: asked.body.approval_id,
      state: "pending",
      tenant_id: "tenant-a",
      subject_id: "user-1",
      tool: "create_refund_draft",
      arguments: REFUND,
      provider: "anthropic",
      api_family: "messages",
      adapter_revision: "anthropic-messages-v1",
      operation_id: "op-77",
      call_id: "toolu_01",
      response_id: "msg_42",
      idempotency_key: "idem-7",
      request_sha256: "-",
      input_schema_revision: "refund-draft-input-v1",
      output_schema_revision: "refund-draft-output-v2",
      effect_revision: "create-refund-draft-v1",
      approval_revision: "refund-draft-policy-v1",
      approver_id: "rev-1",
      approval_digest: "-",
      requested_at: T0,
      expires_at: T0 + 900,
    });
    // The request digest binds the shown arguments; the approval digest binds it and the rest.
    expect(await sha256Hex(canonical(pick(view, REQUEST_DIGEST_FIELDS)))).toBe(view.request_sha256);
    const recomputed = await sha256Hex(canonical(pick(view, APPROVAL_DIGEST_FIELDS)));
    expect(recomputed).toBe(view.approval_digest);

    expect((await decide(approver, view.approval_id, "approve", recomputed)).status).toBe(200);
    const run = await call(agent, ctx);
    expect([run.body.model_result.status, run.body.model_result.execution.delivery]).toEqual(["succeeded", "fresh"]);
  });

  it("documents every field of the view and the page in the OpenAPI document", async () => {
    const { agent, approver } = await setup();
    await call(agent, context("call-1", { key: "idem-1" }));
    const page = (await list(approver)).body;
    const doc = (await (await gate("/v1/openapi.json")).json()) as {
      components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> };
    };
    const { Approval, ApprovalList: listSchema, ApprovalDecision } = doc.components.schemas;
    // `rationale` is listed only when the agent gave one (this call gave none), and `tool_description`
    // and `approval_rule` only when the tool has them (this catalog tool has neither), `confirmed_by` only
    // when the end user confirms the call: documented, not required.
    const fields = Object.keys(page.approvals[0] as View);
    expect(Object.keys(Approval?.properties ?? {}).sort()).toEqual(
      [...fields, "rationale", "tool_description", "approval_rule", "confirmed_by"].sort(),
    );
    expect([...(Approval?.required ?? [])].sort()).toEqual(fields.sort());
    expect(Object.keys(listSchema?.properties ?? {}).sort()).toEqual(Object.keys(page).sort());
    expect(Object.keys(ApprovalDecision?.properties ?? {}).sort()).toEqual([
      "approval_id",
      "approver_id",
      "bound_to_request",
      "decided_at",
      "decided_by",
      "edited",
      "reason",
      "state",
      "valid_until",
    ]);
  });
});

describe("the approval list's pages", () => {
  it("hole: a newer approval is never hidden behind older ones: next_cursor reaches every pending approval", async () => {
    const { agent, approver } = await setup({ page_items: 3 });
    const opened: string[] = [];
    const open = async (n: number) => {
      const subject = n % 2 === 0 ? "user-1" : "user-2";
      const args = subject === "user-1" ? REFUND : { order_ref: "ORDER-8", reason: "duplicate" };
      const asked = await call(agent, context(`call-${n}`, { key: `idem-${n}` }), subject, args);
      expect(asked.body.model_result.error?.code).toBe("APPROVAL_REQUIRED");
      opened.push(asked.body.approval_id as string);
    };
    for (let n = 1; n <= 7; n++) await open(n);

    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await list(approver, cursor);
      expect(page.status).toBe(200);
      sizes.push(page.body.approvals.length);
      seen.push(...page.body.approvals.map((a) => a.approval_id));
      // One approval opens while the approver is half-way through: it must still be reached.
      if (pages === 0) await open(8);
      cursor = page.body.next_cursor ?? undefined;
      pages++;
    } while (cursor !== undefined);
    expect(sizes).toEqual([3, 3, 2]);
    expect(seen).toEqual(opened);
    expect(seen.length).toBe(8);
  });

  it("answers 400 INVALID_CURSOR for a cursor it never answered, after authenticating the caller", async () => {
    const { agent, approver } = await setup({ page_items: 1 });
    await call(agent, context("call-1", { key: "idem-1" }));
    await call(agent, context("call-2", { key: "idem-2" }), "user-1", { order_ref: "ORDER-7", reason: "damaged" });
    const first = await list(approver);
    const next = first.body.next_cursor as string;
    expect(typeof next).toBe("string");
    const b64 = (text: string) => btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    const invalid = problemBody(
      "INVALID_CURSOR",
      "Cursor is not valid",
      400,
      "The cursor is not one this list answered.",
    );
    for (const bad of [
      "",
      "x",
      "!!!!",
      `${next}=`,
      `${next}A`,
      "pending:1",
      b64("pending:01"),
      b64("pending:-1"),
      b64(`pending:${"9".repeat(17)}`),
      b64("audit:1"),
      "A".repeat(65),
    ]) {
      expect([bad, await list(approver, bad)]).toEqual([bad, { status: 400, body: invalid }]);
    }
    const asAgent = await send("GET", `${BASE}/approvals?state=pending&cursor=!!!!`, agent);
    expect([asAgent.status, ((await asAgent.json()) as { code: string }).code]).toEqual([403, "FORBIDDEN"]);
    const second = await list(approver, next);
    expect([second.status, second.body.approvals.length, second.body.next_cursor]).toEqual([200, 1, null]);
  });
});

describe("the pending-approval quota", () => {
  it("hole: a subject at its quota opens no more: 429 QUOTA_EXCEEDED with Retry-After, nothing opened, nothing run", async () => {
    const quota = DEFAULT_LIMITS.pending_approvals_per_subject;
    const { agent, approver } = await setup({ page_items: 500 });
    const held: string[] = [];
    for (let n = 1; n <= quota; n++) {
      if (n === 2) await pinClock(CONSUMER, T0 + 10);
      const asked = await call(agent, context(`call-${n}`, { key: `idem-${n}` }));
      expect(asked.body.model_result.error?.code).toBe("APPROVAL_REQUIRED");
      held.push(asked.body.approval_id as string);
    }
    const extra = context("call-extra", { key: "idem-extra" });
    const refused = await call(agent, extra);
    // The oldest pending approval (opened at T0) lapses at T0 + 900; the clock reads T0 + 10.
    expect(refused).toEqual({
      status: 429,
      retryAfter: "890",
      body: problemBody(
        "QUOTA_EXCEEDED",
        "Quota exceeded",
        429,
        "The subject, or the credential, has as many pending approvals as its quota allows (pending_approvals_per_subject, pending_approvals_per_credential); nothing was opened or run.",
      ),
    });
    expect((await list(approver)).body.approvals.map((a) => a.approval_id)).toEqual(held);
    expect((await storedApprovals()).length).toBe(quota);
    // Repeating a call that already waits opens nothing: it answers its approval, not 429.
    const repeated = await call(agent, context("call-1", { key: "idem-1" }));
    expect([repeated.status, repeated.body.approval_id]).toEqual([200, held[0]]);
    // The quota is per subject.
    const otherSubject = await call(agent, context("call-u2", { key: "idem-u2" }), "user-2", {
      order_ref: "ORDER-8",
      reason: "duplicate",
    });
    expect(otherSubject.body.model_result.error?.code).toBe("APPROVAL_REQUIRED");

    // A decision frees a slot: the refused call now opens its approval (it never ran).
    const first = (await list(approver)).body.approvals[0] as View;
    expect((await decide(approver, first.approval_id, "deny", first.approval_digest)).status).toBe(200);
    const reopened = await call(agent, extra);
    expect([reopened.status, reopened.body.model_result.error?.code]).toEqual([200, "APPROVAL_REQUIRED"]);
    expect(held.includes(reopened.body.approval_id as string)).toBe(false);
  });
});
