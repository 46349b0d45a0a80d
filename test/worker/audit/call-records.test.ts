/**
 * What a tool call's audit record says (record version 2, docs/audit.md): the outcome, the error
 * code, the subject, the tool, the approval, and the arguments as a digest unless the consumer
 * keeps them in full; beside the engine's protected audit, whose members stay as they were.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { adminClient, context, REFERENCE_TENANT, secretOf, send, setupConsumer, wipe } from "../../kit";
import { sha256 } from "../../support/web-sha256";

const C = REFERENCE_TENANT;
const T0 = 1_784_419_200;
const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };

/** SHA-256 hex by WebCrypto of a text written here (the canonical JSON of the arguments: sorted keys, no spaces). */
async function hexOf(text: string): Promise<string> {
  const digest = await sha256(new TextEncoder().encode(text));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

interface Actors {
  agent: string;
  approver: string;
  auditor: string;
}

async function setup(extra: Record<string, unknown> = {}): Promise<Actors> {
  await setupConsumer(C, {
    config: { approver_subjects: ["rev-1"], ...extra },
    tools: ["get_order", "create_refund_draft"],
    clock: T0,
  });
  return {
    agent: await secretOf(C, "agent"),
    approver: await secretOf(C, "approver", "rev-1"),
    auditor: await secretOf(C, "auditor"),
  };
}

async function call(agent: string, name: string, args: Record<string, unknown>, ctx: ReturnType<typeof context>) {
  const res = await send("POST", `/v1/consumers/${C}/tool-calls`, agent, {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name, arguments: args },
    context: ctx,
  });
  return (await res.json()) as { approval_id?: string; model_result: { status: string } };
}

async function decideAll(approver: string, decision: "approve" | "deny"): Promise<void> {
  const list = await send("GET", `/v1/consumers/${C}/approvals?state=pending`, approver);
  const { approvals } = (await list.json()) as { approvals: Array<{ approval_id: string; approval_digest: string }> };
  for (const a of approvals) {
    const res = await send("POST", `/v1/consumers/${C}/approvals/${a.approval_id}`, approver, {
      decision,
      approval_digest: a.approval_digest,
    });
    expect(res.status).toBe(200);
  }
}

/** The `tool_call` records, oldest first. */
async function callRecords(auditor: string): Promise<Array<Record<string, unknown>>> {
  const page = (await (await send("GET", `/v1/consumers/${C}/audit?limit=100`, auditor)).json()) as {
    entries: Array<{ kind: string; record: Record<string, unknown> }>;
  };
  return page.entries.filter((e) => e.kind === "tool_call").map((e) => e.record);
}

/** The members record version 2 adds, in the order the assertions read them. */
const said = (r: Record<string, unknown> | undefined) => ({
  record_version: r?.record_version,
  outcome: r?.outcome,
  error_code: r?.error_code,
  subject_id: r?.subject_id,
  tool: r?.tool,
  approval_id: r?.approval_id,
  arguments_sha256: r?.arguments_sha256,
  arguments: r?.arguments,
});

beforeEach(async () => {
  await wipe(C);
});

describe("tool-call audit records", () => {
  it("say what happened to an executed, a refused and an approved call; arguments as a digest by default", async () => {
    const { agent, approver, auditor } = await setup();
    await call(agent, "get_order", { order_ref: "ORDER-7" }, context("call-read"));
    // ORDER-9 is tenant-b's: refused as NOT_FOUND, nothing ran.
    await call(agent, "get_order", { order_ref: "ORDER-9" }, context("call-refused"));
    const ctx = context("call-write", { key: "idem-write" });
    const asked = await call(agent, "create_refund_draft", REFUND, ctx);
    await decideAll(approver, "approve");
    const ran = await call(agent, "create_refund_draft", REFUND, ctx);
    expect([asked.model_result.status, ran.model_result.status]).toEqual(["failed", "succeeded"]);
    const approvalId = asked.approval_id;
    expect(approvalId).toMatch(/^apr_/);

    const records = await callRecords(auditor);
    const refundSha = await hexOf('{"order_ref":"ORDER-7","reason":"duplicate"}');
    expect(records.map(said)).toEqual([
      {
        record_version: 2,
        outcome: "succeeded",
        error_code: null,
        subject_id: "user-1",
        tool: "get_order",
        approval_id: null,
        arguments_sha256: await hexOf('{"order_ref":"ORDER-7"}'),
        arguments: undefined,
      },
      {
        record_version: 2,
        outcome: "failed",
        error_code: "NOT_FOUND",
        subject_id: "user-1",
        tool: "get_order",
        approval_id: null,
        arguments_sha256: await hexOf('{"order_ref":"ORDER-9"}'),
        arguments: undefined,
      },
      {
        record_version: 2,
        outcome: "failed",
        error_code: "APPROVAL_REQUIRED",
        subject_id: "user-1",
        tool: "create_refund_draft",
        approval_id: approvalId,
        arguments_sha256: refundSha,
        arguments: undefined,
      },
      {
        record_version: 2,
        outcome: "succeeded",
        error_code: null,
        subject_id: "user-1",
        tool: "create_refund_draft",
        approval_id: approvalId,
        arguments_sha256: refundSha,
        arguments: undefined,
      },
    ]);
    // The engine's protected audit (tool-audit-v2) is all there, as before.
    const first = records[0] ?? {};
    expect([first.schema_version, first.visibility, (first.tool_contract as { name: string }).name]).toEqual([
      "tool-audit-v2",
      "protected_audit",
      "get_order",
    ]);
    expect(Object.keys(first).sort()).toEqual([
      "approval_id",
      "arguments_sha256",
      "binding",
      "downstream",
      "error_code",
      "operation_id",
      "outcome",
      "principal_ref",
      "provider_context",
      "record_version",
      "redactions",
      "schema_version",
      "subject_id",
      "tool",
      "tool_contract",
      "visibility",
    ]);
    const verify = await send("GET", `/v1/consumers/${C}/audit/verify`, auditor);
    expect(((await verify.json()) as { ok: boolean }).ok).toBe(true);
  });

  it("names the denial that refused a call", async () => {
    const { agent, approver, auditor } = await setup();
    const ctx = context("call-denied", { key: "idem-denied" });
    const asked = await call(agent, "create_refund_draft", REFUND, ctx);
    await decideAll(approver, "deny");
    await call(agent, "create_refund_draft", REFUND, ctx);
    const records = await callRecords(auditor);
    expect(records.map((r) => [r.outcome, r.error_code, r.approval_id])).toEqual([
      ["failed", "APPROVAL_REQUIRED", asked.approval_id],
      ["failed", "APPROVAL_INVALID", asked.approval_id],
    ]);
  });

  it("keeps the arguments whole when the consumer opts in (audit_arguments: full)", async () => {
    const { agent, auditor } = await setup({ audit_arguments: "full" });
    expect((await adminClient(C).call("GET", "")).body?.audit_arguments).toBe("full");
    await call(agent, "get_order", { order_ref: "ORDER-7" }, context("call-full"));
    const records = await callRecords(auditor);
    expect(records.map((r) => [r.arguments, r.arguments_sha256])).toEqual([
      [{ order_ref: "ORDER-7" }, await hexOf('{"order_ref":"ORDER-7"}')],
    ]);
  });
});
