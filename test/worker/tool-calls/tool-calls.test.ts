import { env } from "cloudflare:workers";
import { abortAllDurableObjects } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/core/json";
import {
  context,
  createConsumer,
  credential,
  pinClock,
  REFERENCE_TENANT,
  secretOf,
  send,
  setupConsumer,
  type ToolCallAnswer,
  wipe,
} from "../../kit";

const T0 = 1_784_419_200;
const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };

async function downstream(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await env.DOWNSTREAM!.fetch(
    new Request(
      `http://downstream${path}`,
      body === undefined
        ? {}
        : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    ),
  );
  return (await res.json()) as Record<string, unknown>;
}

interface Actors {
  agent: string;
  approver: string;
  auditor: string;
}

async function setup(tools: string[]): Promise<Actors> {
  await setupConsumer(REFERENCE_TENANT, { config: { approver_subjects: ["rev-1", "user-1"] }, tools, clock: T0 });
  return {
    agent: await secretOf(REFERENCE_TENANT, "agent"),
    approver: await secretOf(REFERENCE_TENANT, "approver", "rev-1"),
    auditor: await secretOf(REFERENCE_TENANT, "auditor"),
  };
}

async function call(
  agent: string,
  name: string,
  args: Record<string, unknown>,
  ctx: ReturnType<typeof context>,
  subject = "user-1",
) {
  const res = await send("POST", "/v1/consumers/tenant-a/tool-calls", agent, {
    principal: { subject_id: subject, roles: [] },
    proposal: { name, arguments: args },
    context: ctx,
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as ToolCallAnswer & { status_ref?: string; code?: string; detail?: string },
  };
}

async function approveAll(
  approver: string,
  decision: "approve" | "deny" = "approve",
): Promise<Array<{ status: number; body: Record<string, unknown> }>> {
  const list = await send("GET", "/v1/consumers/tenant-a/approvals?state=pending", approver);
  const { approvals } = (await list.json()) as { approvals: Array<{ approval_id: string; approval_digest: string }> };
  const out = [];
  for (const a of approvals) {
    const res = await send("POST", `/v1/consumers/tenant-a/approvals/${a.approval_id}`, approver, {
      decision,
      approval_digest: a.approval_digest,
    });
    out.push({ status: res.status, body: (await res.json()) as Record<string, unknown> });
  }
  return out;
}

beforeEach(async () => {
  // Storage is not isolated per test in this pool version: start every test from empty objects.
  await wipe("tenant-a", "tenant-b");
  await downstream("/_control", { reset: true, mode: "ok" });
});

describe("POST /v1/consumers/{consumer}/tool-calls (reads)", () => {
  it("answers the reference's result and the native OpenAI item", async () => {
    const { agent } = await setup(["get_order"]);
    const res = await call(agent, "get_order", { order_ref: "ORDER-7" }, context("call-1"));
    expect(res.status).toBe(200);
    expect(res.body.model_result).toEqual({
      schema_version: "tool-model-result-v2",
      status: "succeeded",
      data: { order_ref: "ORDER-7", status: "paid" },
      error: null,
      execution: { outcome: "committed", delivery: "fresh", complete: true, truncated: false },
      provenance: {
        source_label: "orders",
        producer_revision: "orders-mock-v2",
        resource_revision: "order-7-r3",
        observed_at: "2026-07-19T00:00:00Z",
        trust: "untrusted_data",
      },
    });
    expect(res.body.provider_output).toEqual({
      type: "function_call_output",
      call_id: "call-1",
      output: canonicalJson(res.body.model_result),
    });
    expect(Object.keys(res.body).sort()).toEqual(["audit", "model_result", "provider_output"]);
  });

  it("takes the provider's native tool_use block and answers a tool_result block", async () => {
    const { agent } = await setup(["get_order"]);
    const { call_id: _drop, ...ctx } = context("unused", { provider: "anthropic" });
    const res = await send("POST", "/v1/consumers/tenant-a/tool-calls", agent, {
      principal: { subject_id: "user-1", roles: [] },
      provider_item: { type: "tool_use", id: "toolu_01", name: "get_order", input: { order_ref: "ORDER-7" } },
      context: ctx,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as ToolCallAnswer;
    expect(body.model_result.data).toEqual({ order_ref: "ORDER-7", status: "paid" });
    expect(body.provider_output.type).toBe("tool_result");
    expect(body.provider_output.tool_use_id).toBe("toolu_01");
    expect(body.provider_output.is_error).toBe(false);
  });

  it("treats a tool the consumer did not enable as UNKNOWN_TOOL", async () => {
    const { agent } = await setup(["get_order"]);
    const res = await call(agent, "create_refund_draft", REFUND, context("call-1", { key: "k1" }));
    expect(res.body.model_result.error?.code).toBe("UNKNOWN_TOOL");
  });

  it("refuses an unregistered provider profile as a host error", async () => {
    const { agent } = await setup(["get_order"]);
    const res = await call(
      agent,
      "get_order",
      { order_ref: "ORDER-7" },
      { ...context("call-1"), adapter_revision: "openai-responses-v9" },
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("INVALID_HOST_CONTEXT");
    // The detail names every profile the gate answers, so a developer can pick the right one.
    expect(res.body.detail).toBe(
      "call provider profile/adapter revision is not registered; the registered ones are " +
        "openai/responses (openai-responses-v1), anthropic/messages (anthropic-messages-v1), " +
        "google/interactions (gemini-interactions-v1), mcp/tools (mcp-tools-v1), " +
        "openai/chat_completions (openai-chat-completions-v1), google/generate_content (gemini-generate-content-v1), " +
        "google/interactions (gemini-interactions-v2)",
    );
  });
});

describe("approval round trip", () => {
  it("asks, approves the digest the approver saw, runs once, then replays", async () => {
    const { agent, approver } = await setup(["get_order", "create_refund_draft"]);
    const ctx = context("call-1", { key: "idem-1" });
    const first = await call(agent, "create_refund_draft", REFUND, ctx);
    expect(first.body.model_result.error?.code).toBe("APPROVAL_REQUIRED");
    const approvalId = first.body.approval_id as string;
    expect(/^apr_[0-9a-f]{32}$/.test(approvalId)).toBe(true);
    const again = await call(agent, "create_refund_draft", REFUND, ctx);
    expect(again.body.approval_id).toBe(approvalId);

    const list = await send("GET", "/v1/consumers/tenant-a/approvals?state=pending", approver);
    const { approvals } = (await list.json()) as { approvals: Array<Record<string, unknown>> };
    expect(approvals.length).toBe(1);
    const pending = approvals[0] as Record<string, unknown>;
    expect({ ...pending, request_sha256: "-", approval_digest: "-" }).toEqual({
      approval_id: approvalId,
      state: "pending",
      tenant_id: "tenant-a",
      subject_id: "user-1",
      tool: "create_refund_draft",
      arguments: REFUND,
      provider: "openai",
      api_family: "responses",
      adapter_revision: "openai-responses-v1",
      operation_id: "op-call-1",
      call_id: "call-1",
      response_id: "response-1",
      idempotency_key: "idem-1",
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
    const decided = await send("POST", `/v1/consumers/tenant-a/approvals/${approvalId}`, approver, {
      decision: "approve",
      approval_digest: pending.approval_digest,
    });
    expect(decided.status).toBe(200);
    expect(await decided.json()).toEqual({
      approval_id: approvalId,
      state: "approved",
      approver_id: "rev-1",
      decided_at: T0,
      valid_until: T0 + 60,
      bound_to_request: true,
    });
    const twice = await send("POST", `/v1/consumers/tenant-a/approvals/${approvalId}`, approver, {
      decision: "deny",
      approval_digest: pending.approval_digest,
    });
    expect(twice.status).toBe(409);
    expect(((await twice.json()) as { code: string }).code).toBe("APPROVAL_ALREADY_DECIDED");

    const run = await call(agent, "create_refund_draft", REFUND, ctx);
    expect(run.body.model_result.status).toBe("succeeded");
    expect(run.body.model_result.data).toEqual({ draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" });
    expect(run.body.model_result.execution.delivery).toBe("fresh");
    const replay = await call(agent, "create_refund_draft", REFUND, ctx);
    expect(replay.body.model_result.data).toEqual({ draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" });
    expect(replay.body.model_result.execution.delivery).toBe("local_replay");
    const conflict = await call(
      agent,
      "create_refund_draft",
      { ...REFUND, reason: "damaged" },
      context("call-2", { key: "idem-1" }),
    );
    expect(conflict.body.model_result.error?.code).toBe("IDEMPOTENCY_CONFLICT");
  });

  it("forbids the requesting subject to approve its own call", async () => {
    const { agent } = await setup(["create_refund_draft"]);
    const self = (await credential("tenant-a", "approver", "user-1")).secret;
    const first = await call(agent, "create_refund_draft", REFUND, context("call-1", { key: "idem-1" }));
    const results = await approveAll(self);
    expect(results.map((r) => [r.status, r.body.code])).toEqual([[403, "SELF_APPROVAL_FORBIDDEN"]]);
    expect(/^apr_[0-9a-f]{32}$/.test(first.body.approval_id ?? "")).toBe(true);
  });

  it("refuses an approver credential whose subject is not an approver", async () => {
    const { agent } = await setup(["create_refund_draft"]);
    await call(agent, "create_refund_draft", REFUND, context("call-1", { key: "idem-1" }));
    const stranger = (await credential("tenant-a", "approver", "mallory")).secret;
    const res = await send("GET", "/v1/consumers/tenant-a/approvals?state=pending", stranger);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("APPROVER_NOT_ALLOWED");
  });

  it("answers APPROVAL_INVALID after the approval's TTL", async () => {
    const { agent, approver } = await setup(["create_refund_draft"]);
    const ctx = context("call-1", { key: "idem-1" });
    await call(agent, "create_refund_draft", REFUND, ctx);
    await approveAll(approver);
    await pinClock("tenant-a", T0 + 60);
    const late = await call(agent, "create_refund_draft", REFUND, ctx);
    expect(late.body.model_result.error?.code).toBe("APPROVAL_INVALID");
  });

  it("answers APPROVAL_INVALID after a denial, and refuses a digest that is not the request's", async () => {
    const { agent, approver } = await setup(["create_refund_draft"]);
    const denied = context("call-1", { key: "idem-1" });
    await call(agent, "create_refund_draft", REFUND, denied);
    await approveAll(approver, "deny");
    expect((await call(agent, "create_refund_draft", REFUND, denied)).body.model_result.error?.code).toBe(
      "APPROVAL_INVALID",
    );

    const mismatched = context("call-2", { key: "idem-2" });
    const asked = await call(agent, "create_refund_draft", REFUND, mismatched);
    const res = await send("POST", `/v1/consumers/tenant-a/approvals/${asked.body.approval_id}`, approver, {
      decision: "approve",
      approval_digest: "0".repeat(64),
    });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([409, "APPROVAL_DIGEST_MISMATCH"]);
    const still = await call(agent, "create_refund_draft", REFUND, mismatched);
    expect([still.body.model_result.error?.code, still.body.approval_id]).toEqual([
      "APPROVAL_REQUIRED",
      asked.body.approval_id,
    ]);
  });

  it("shows another consumer's approval exactly as a missing one", async () => {
    const { agent } = await setup(["create_refund_draft"]);
    const asked = await call(agent, "create_refund_draft", REFUND, context("call-1", { key: "idem-1" }));
    await createConsumer("tenant-b", ["create_refund_draft"], ["rev-1"]);
    const foreign = (await credential("tenant-b", "approver", "rev-1")).secret;
    const body = { decision: "approve", approval_digest: "0".repeat(64) };
    const theirs = await send("POST", `/v1/consumers/tenant-b/approvals/${asked.body.approval_id}`, foreign, body);
    const missing = await send("POST", `/v1/consumers/tenant-b/approvals/apr_${"0".repeat(32)}`, foreign, body);
    expect(theirs.status).toBe(404);
    expect(await theirs.json()).toEqual(await missing.json());
    const crossPath = await send("GET", "/v1/consumers/tenant-a/approvals?state=pending", foreign);
    const nobody = await send("GET", "/v1/consumers/nobody-here/approvals?state=pending", foreign);
    expect(crossPath.status).toBe(401);
    expect(await crossPath.json()).toEqual(await nobody.json());
  });
});

describe("HTTP tools", () => {
  async function approvedSubmit(agent: string, approver: string, ctx: ReturnType<typeof context>) {
    const asked = await call(agent, "submit_refund", REFUND, ctx);
    expect(asked.body.model_result.error?.code).toBe("APPROVAL_REQUIRED");
    await approveAll(approver);
  }

  it("sends the idempotency key, then reconciles an unknown outcome through the status URL", async () => {
    const { agent, approver } = await setup(["submit_refund"]);
    const ctx = context("call-1", { key: "idem-http-1" });
    await approvedSubmit(agent, approver, ctx);
    await downstream("/_control", { mode: "error_after_commit" });
    const unknown = await call(agent, "submit_refund", REFUND, ctx);
    expect(unknown.body.model_result.error?.code).toBe("OUTCOME_UNKNOWN");
    expect(unknown.body.model_result.execution.outcome).toBe("unknown");
    const statusRef = unknown.body.status_ref as string;
    expect(/^status_[0-9a-f]{32}$/.test(statusRef)).toBe(true);
    expect((await downstream("/_effects")).last_idempotency_key).toBe(`"${statusRef}"`);

    await downstream("/_control", { mode: "ok" });
    const blind = await call(agent, "submit_refund", REFUND, ctx);
    expect(blind.body.model_result.error?.code).toBe("OUTCOME_UNKNOWN");
    expect(blind.body.status_ref).toBe(statusRef);

    const status = await send("POST", "/v1/consumers/tenant-a/tool-calls/status", agent, {
      principal: { subject_id: "user-1", roles: [] },
      proposal: { name: "submit_refund", arguments: REFUND },
      context: context("call-1-status", { key: "idem-http-1" }),
      status_ref: statusRef,
    });
    const reconciled = (await status.json()) as ToolCallAnswer;
    expect(reconciled.model_result.status).toBe("succeeded");
    expect(reconciled.model_result.execution.delivery).toBe("receipt_reconciled");
    expect(reconciled.model_result.data).toEqual({ refund_id: "RF-1", order_ref: "ORDER-7", reason: "duplicate" });
    const replay = await call(agent, "submit_refund", REFUND, ctx);
    expect(replay.body.model_result.execution.delivery).toBe("local_replay");
    expect((await downstream("/_effects")).effects).toBe(1);
  });

  it("maps 429 to RATE_LIMIT and lets the same call run afterwards", async () => {
    const { agent, approver } = await setup(["submit_refund"]);
    const ctx = context("call-1", { key: "idem-http-2" });
    await approvedSubmit(agent, approver, ctx);
    await downstream("/_control", { mode: "rate_limit" });
    const limited = await call(agent, "submit_refund", REFUND, ctx);
    expect(limited.body.model_result.error).toEqual({
      code: "RATE_LIMIT",
      category: "dependency",
      safe_message: "The tool is currently rate limited.",
      recovery: "retry_after",
      retry_after_ms: 1000,
    });
    await downstream("/_control", { mode: "ok" });
    const run = await call(agent, "submit_refund", REFUND, ctx);
    expect(run.body.model_result.data).toEqual({ refund_id: "RF-1", order_ref: "ORDER-7", reason: "duplicate" });
  });

  it("answers a concurrent duplicate 409 IDEMPOTENCY_IN_PROGRESS with Retry-After", async () => {
    const { agent, approver } = await setup(["submit_refund"]);
    const ctx = context("call-1", { key: "idem-http-3" });
    await approvedSubmit(agent, approver, ctx);
    await downstream("/_control", { mode: "hold" });
    const first = call(agent, "submit_refund", REFUND, ctx);
    while ((await downstream("/_effects")).waiting !== 1) await new Promise((r) => setTimeout(r, 5));
    const dup = await call(agent, "submit_refund", REFUND, ctx);
    expect(dup.status).toBe(409);
    expect(dup.headers.get("retry-after")).toBe("1");
    expect(dup.body.code).toBe("IDEMPOTENCY_IN_PROGRESS");
    await downstream("/_control", { release: true });
    const done = await first;
    expect(done.body.model_result.data).toEqual({ refund_id: "RF-1", order_ref: "ORDER-7", reason: "duplicate" });
    expect((await downstream("/_effects")).effects).toBe(1);
  });

  it("turns a write in flight across a restart into OUTCOME_UNKNOWN, never a second execution", async () => {
    const { agent, approver } = await setup(["submit_refund"]);
    const ctx = context("call-1", { key: "idem-http-4" });
    await approvedSubmit(agent, approver, ctx);
    await downstream("/_control", { mode: "hold" });
    const first = call(agent, "submit_refund", REFUND, ctx);
    while ((await downstream("/_effects")).waiting !== 1) await new Promise((r) => setTimeout(r, 5));
    await abortAllDurableObjects();
    // The caller of the interrupted request gets a generic 500; its outcome is reconciled below.
    const interrupted = await first;
    expect([interrupted.status, interrupted.body.code]).toEqual([500, "INTERNAL"]);
    await downstream("/_control", { release: true });
    await pinClock("tenant-a", T0 + 5);
    const after = await call(agent, "submit_refund", REFUND, ctx);
    expect(after.body.model_result.error?.code).toBe("OUTCOME_UNKNOWN");
    const status = await send("POST", "/v1/consumers/tenant-a/tool-calls/status", agent, {
      principal: { subject_id: "user-1", roles: [] },
      proposal: { name: "submit_refund", arguments: REFUND },
      context: context("call-1-status", { key: "idem-http-4" }),
      status_ref: after.body.status_ref,
    });
    const reconciled = (await status.json()) as ToolCallAnswer;
    expect(reconciled.model_result.execution.delivery).toBe("receipt_reconciled");
    expect((await downstream("/_effects")).effects).toBe(1);
  });

  it("fences a write the downstream never saw: the status query settles it as not executed, and the late request is refused", async () => {
    const { agent, approver } = await setup(["submit_refund"]);
    await downstream("/_control", { reset: true });
    const ctx = context("call-1", { key: "idem-http-5" });
    await approvedSubmit(agent, approver, ctx);
    await downstream("/_control", { mode: "hold" });
    const first = call(agent, "submit_refund", REFUND, ctx);
    while ((await downstream("/_effects")).waiting !== 1) await new Promise((r) => setTimeout(r, 5));
    await abortAllDurableObjects();
    expect((await first).status).toBe(500);
    await pinClock("tenant-a", T0 + 5);
    const after = await call(agent, "submit_refund", REFUND, ctx);
    expect(after.body.model_result.error?.code).toBe("OUTCOME_UNKNOWN");
    const ask = (callId: string) =>
      send("POST", "/v1/consumers/tenant-a/tool-calls/status", agent, {
        principal: { subject_id: "user-1", roles: [] },
        proposal: { name: "submit_refund", arguments: REFUND },
        context: context(callId, { key: "idem-http-5" }),
        status_ref: after.body.status_ref,
      }).then(async (r) => (await r.json()) as ToolCallAnswer);
    // The request is still held inside the downstream: not committed, so the gate fences the key.
    const settled = await ask("call-1-status");
    expect([
      settled.model_result.status,
      settled.model_result.error?.code,
      settled.model_result.execution.outcome,
      (settled as { status_ref?: string }).status_ref ?? null,
    ]).toEqual(["failed", "TOOL_ERROR", "not_started", null]);
    // The held request arrives at its commit point after the fence: refused, no effect.
    await downstream("/_control", { release: true });
    await new Promise((r) => setTimeout(r, 50));
    expect((await downstream("/_effects")).effects).toBe(0);
    // The key is spent: a replay and a second status query answer the same, nothing runs.
    const replay = await call(agent, "submit_refund", REFUND, ctx);
    expect([replay.body.model_result.error?.code, replay.body.model_result.execution.outcome]).toEqual([
      "TOOL_ERROR",
      "not_started",
    ]);
    const again = await ask("call-1-status-2");
    expect(again.model_result.error?.code).toBe("TOOL_ERROR");
    expect((await downstream("/_effects")).effects).toBe(0);
  });
});

describe("audit chain", () => {
  it("records every protected audit and decision, pages, and verifies", async () => {
    const { agent, approver, auditor } = await setup(["get_order", "create_refund_draft"]);
    await call(agent, "get_order", { order_ref: "ORDER-7" }, context("call-0"));
    const ctx = context("call-1", { key: "idem-1" });
    await call(agent, "create_refund_draft", REFUND, ctx);
    await approveAll(approver);
    await call(agent, "create_refund_draft", REFUND, ctx);
    const page1 = (await (await send("GET", "/v1/consumers/tenant-a/audit?after=0&limit=4", auditor)).json()) as {
      entries: Array<{ seq: number; kind: string; prev_sha256: string; entry_sha256: string }>;
      next_after: number | null;
    };
    expect(page1.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(page1.next_after).toBe(4);
    const page2 = (await (
      await send("GET", "/v1/consumers/tenant-a/audit?after=4&limit=100", auditor)
    ).json()) as typeof page1;
    const all = [...page1.entries, ...page2.entries];
    expect(all.map((e) => e.kind)).toEqual([
      "consumer.configured",
      "credential.created",
      "credential.created",
      "credential.created",
      "tool_call",
      "tool_call",
      "approval.decision",
      "tool_call",
    ]);
    for (let i = 1; i < all.length; i++) expect(all[i]?.prev_sha256).toBe(all[i - 1]?.entry_sha256);
    const verify = await send("GET", "/v1/consumers/tenant-a/audit/verify", auditor);
    expect(await verify.json()).toEqual({
      ok: true,
      count: 8,
      head: all[7]?.entry_sha256,
      broken_at: null,
      next_cursor: null,
    });
  });
});
