/**
 * Issue #30: tools written as code do I/O. Their handler runs between the engine's two steps
 * against the test ledger (test/support/ledger-service.ts, which verifies every request's
 * signature): a read answers its data; a write whose handler throws after the ledger recorded it
 * is an unknown outcome the status endpoint reconciles; a timeout aborts the handler's signal; an
 * output its schema refuses is a TOOL_ERROR whose cause only the operators' log shows; zod
 * arguments (nested, optional, arrays, bounds) are validated, and `needsApproval` asks for a
 * human only above its threshold.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ADMIN_TOKEN, context, freshConsumer, secretOf, send, setupConsumer } from "../../kit";
import * as z from "zod/mini";
import { defineTool } from "../../../src/worker/gate";
import { seen, withCodeTools } from "./tools";

const T0 = 1_784_419_200;
const TOOLS = ["customer_tier", "bill_customer", "slow_read", "bad_output", "order_parts"];

async function ledger(path: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(
    `https://ledger.test${path}`,
    body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
  );
  return (await res.json()) as Record<string, any>;
}

let n = 0;
/** A consumer with the code tools enabled, an agent and an approver. */
async function setup(): Promise<{ c: string; agent: string; approver: string }> {
  const c = freshConsumer("code-tools");
  await withCodeTools(c);
  await setupConsumer(c, { config: { approver_subjects: ["rev-1"] }, tools: TOOLS, clock: T0 });
  return {
    c,
    agent: await secretOf(c, "agent", undefined, { roles: ["buyer"] }),
    approver: await secretOf(c, "approver", "rev-1"),
  };
}

async function callTool(
  c: string,
  agent: string,
  name: string,
  args: Record<string, unknown>,
  key: string | null = null,
  roles: string[] = [],
) {
  n += 1;
  const res = await send("POST", `/v1/consumers/${c}/tool-calls`, agent, {
    principal: { subject_id: "user-1", roles },
    proposal: { name, arguments: args },
    context: context(key === null ? `call-${n}` : `call-${key}`, { key }),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, any> };
}

beforeEach(async () => {
  await ledger("/_control", { reset: true });
  seen.signal = null;
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("code tools do I/O", () => {
  it("an async read fetches the ledger, signed for the call's principal, and answers its data", async () => {
    const { c, agent } = await setup();
    const read = await callTool(c, agent, "customer_tier", { customer: "acme" });
    expect([read.status, read.body.model_result.status, read.body.model_result.data]).toEqual([
      200,
      "succeeded",
      { customer: "acme", tier: "gold" },
    ]);
    const state = await ledger("/_state");
    expect([state.seen, state.refused]).toEqual([
      [{ method: "POST", path: "/customers/lookup", authorization: null, subject: "user-1", tool: "customer_tier" }],
      [],
    ]);
  });

  it("a write whose handler throws after the ledger recorded it is OUTCOME_UNKNOWN with a status_ref; the status endpoint reconciles it", async () => {
    const { c, agent } = await setup();
    await ledger("/_control", { mode: "error_after_commit" });
    const lost = await callTool(c, agent, "bill_customer", { customer: "acme", amount: 60 }, "k-lost");
    expect([lost.status, lost.body.model_result.status, lost.body.model_result.error.code]).toEqual([
      200,
      "unknown",
      "OUTCOME_UNKNOWN",
    ]);
    expect(lost.body.status_ref).toMatch(/^status_[0-9a-f]{32}$/);
    expect(lost.text).not.toContain("secret-cause-text");
    const state = await ledger("/_state");
    // The handler sent the write's status_ref as its Idempotency-Key, once.
    expect([state.posts, state.invoices[lost.body.status_ref]]).toEqual([
      { [lost.body.status_ref]: 1 },
      { invoice_id: "INV-1", customer: "acme", amount: 60 },
    ]);
    await ledger("/_control", { mode: "ok" });
    const res = await send("POST", `/v1/consumers/${c}/tool-calls/status`, agent, {
      principal: { subject_id: "user-1", roles: [] },
      proposal: { name: "bill_customer", arguments: { customer: "acme", amount: 60 } },
      context: context("status-1", { key: "k-lost" }),
      status_ref: lost.body.status_ref,
    });
    const reconciled = (await res.json()) as Record<string, any>;
    expect([res.status, reconciled.model_result.status, reconciled.model_result.data]).toEqual([
      200,
      "succeeded",
      { invoice_id: "INV-1", customer: "acme", amount: 60 },
    ]);
    // Reconciled from the ledger's status, never run again.
    expect((await ledger("/_state")).posts).toEqual({ [lost.body.status_ref]: 1 });
    // The operator reads why the run failed in the call's record (the admin secret or an auditor).
    const read = async (token: string, callId: string) => {
      const answer = await send("GET", `/v1/consumers/${c}/audit/calls/${callId}`, token);
      return { status: answer.status, body: (await answer.json()) as Record<string, any> };
    };
    const records = await read(ADMIN_TOKEN, "call-k-lost");
    const entries = records.body.entries as Array<Record<string, any>>;
    expect([
      records.status,
      records.body.call_id,
      entries.map((e) => [
        e.kind,
        e.record.outcome,
        e.record.error_code,
        e.record.cause,
        e.record.downstream.status_ref === lost.body.status_ref,
      ]),
    ]).toEqual([
      200,
      "call-k-lost",
      [
        [
          "tool_call",
          "unknown",
          "OUTCOME_UNKNOWN",
          { kind: "thrown", detail: "Error: ledger answered 502: secret-cause-text" },
          true,
        ],
      ],
    ]);
    const auditor = await secretOf(c, "auditor");
    expect((await read(auditor, "call-k-lost")).body).toEqual(records.body);
    expect([(await read(agent, "call-k-lost")).status, (await read(ADMIN_TOKEN, "call-nobody-made")).status]).toEqual([
      403, 404,
    ]);
  });

  it("a timeout aborts the handler's signal: a read's TOOL_ERROR", async () => {
    const { c, agent } = await setup();
    const slow = await callTool(c, agent, "slow_read", { wait: true });
    expect([slow.status, slow.body.model_result.status, slow.body.model_result.error]).toEqual([
      200,
      "failed",
      {
        code: "TOOL_ERROR",
        category: "execution",
        recovery: "human_review",
        safe_message: "Tool execution failed.",
        retry_after_ms: null,
      },
    ]);
    expect(seen.signal).toEqual({ aborted: true, reason: "TimeoutError" });
  });

  it("data the output schema refuses is a TOOL_ERROR for the model; the cause goes to the operators only (log line, audit record)", async () => {
    const { c, agent } = await setup();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const bad = await callTool(c, agent, "bad_output", { customer: "acme" });
    expect([bad.status, bad.body.model_result.status, bad.body.model_result.error.code]).toEqual([
      200,
      "failed",
      "TOOL_ERROR",
    ]);
    expect(bad.text).not.toContain("acme-not-matching");
    expect(bad.text).not.toContain("customer: Invalid");
    expect(warn.mock.calls.map((call) => String(call[0]))).toEqual([
      "toolgate: code tool bad_output answered data its output schema refuses: customer: Invalid string: must match pattern /^cust-secret-rule$/",
      // The entry that recorded the call (the fourth of a fresh consumer's log), never the call's ids.
      `{"event":"toolgate.tool_error","code":"TOOL_ERROR","tool":"bad_output","audit_seq":4,"cause":{"kind":"contract","detail":"customer: Invalid string: must match pattern /^cust-secret-rule$/"}}`,
    ]);
    expect(bad.body.audit.seq).toBe(4);
  });
});

describe("defineTool with zod", () => {
  it("names a refinement's place, never its message (it may echo the refused value)", () => {
    const split = defineTool({
      name: "split_bill",
      description: "Split a bill.",
      input: z.object({
        parts: z
          .array(z.object({ share: z.int() }).check(z.refine((p) => p.share !== 13, "share 13 is unlucky")))
          .check(z.maxLength(8)),
      }),
      output: z.object({ ok: z.boolean() }),
      execute: () => ({ ok: true }),
    });
    const args = { parts: [{ share: 1 }, { share: 13 }] };
    expect([split.inputSchema?.validate(args), split.inputSchema?.describe?.(args)]).toEqual([
      false,
      { pointer: "/parts/1", expected: "a value the tool's own rules accept" },
    ]);
    expect(split.explainsArguments).toBe(true);
  });

  const ORDER = { part_number: "P-1001", quantity: 4, shipping: { speed: "air", notes: ["dock 4"] } };

  it("validates nested, optional, array and bounded arguments: INVALID_ARGUMENTS, nothing run", async () => {
    const { c, agent } = await setup();
    const cases: Array<Record<string, unknown>> = [
      { ...ORDER, quantity: 0 },
      { ...ORDER, quantity: 51 },
      { ...ORDER, quantity: 2.5 },
      { ...ORDER, part_number: "P-12" },
      { ...ORDER, shipping: { speed: "sea" } },
      { ...ORDER, shipping: { speed: "air", notes: ["a", "b", "c", "d"] } },
      { ...ORDER, shipping: { speed: "air", notes: ["x".repeat(41)] } },
      { ...ORDER, shipping: { speed: "air", extra: 1 } },
      { part_number: "P-1001", quantity: 4 },
    ];
    const codes = [];
    const details = [];
    for (const args of cases) {
      const answer = await callTool(c, agent, "order_parts", args, `k-bad-${codes.length}`, ["buyer"]);
      codes.push(answer.body.model_result.error?.code);
      details.push(answer.body.model_result.error?.details);
    }
    expect(codes).toEqual(Array(cases.length).fill("INVALID_ARGUMENTS"));
    // Where and what the schema expected, case by case (the model can correct each from this alone).
    expect(details).toEqual([
      { pointer: "/quantity", expected: "an integer ≥ 1" },
      { pointer: "/quantity", expected: "an integer ≤ 50" },
      { pointer: "/quantity", expected: "an integer" },
      { pointer: "/part_number", expected: "a string matching ^P-[0-9]{4}$" },
      { pointer: "/shipping/speed", expected: 'one of "ground", "air"' },
      { pointer: "/shipping/notes", expected: "an array of at most 3 items" },
      { pointer: "/shipping/notes/0", expected: "a string of at most 40 characters" },
      { pointer: "/shipping/extra", expected: "no such member: the schema does not declare it" },
      { pointer: "/shipping", expected: "a value: the member is required" },
    ]);
    const ok = await callTool(c, agent, "order_parts", { ...ORDER, shipping: { speed: "ground" } }, "k-ok", ["buyer"]);
    expect([ok.body.model_result.status, ok.body.model_result.data]).toEqual([
      "succeeded",
      { order_id: "ORD-P-1001-4-ground", total_cents: 10_000 },
    ]);
  });

  it("needsApproval over the parsed arguments: a human only above the threshold; authorize over the principal", async () => {
    const { c, agent } = await setup();
    const small = await callTool(c, agent, "order_parts", ORDER, "k-small", ["buyer"]);
    expect([small.body.model_result.status, small.body.model_result.data.total_cents]).toEqual(["succeeded", 10_000]);
    const big = await callTool(c, agent, "order_parts", { ...ORDER, part_number: "P-2002", quantity: 3 }, "k-big", [
      "buyer",
    ]);
    expect([big.body.model_result.status, big.body.model_result.error.code]).toEqual(["failed", "APPROVAL_REQUIRED"]);
    const stranger = await callTool(c, agent, "order_parts", ORDER, "k-stranger", []);
    expect(stranger.body.model_result.error.code).toBe("NOT_FOUND");
  });
});
