/**
 * Black box: the AI SDK adapter (`src/adapters/ai-sdk`) with the AI SDK's own mock model
 * (`MockLanguageModelV3` from `ai/test`) against the gate under `wrangler dev`, its two HTTP
 * tools served by a loopback downstream that counts what it receives. generateText runs a read,
 * a write and its retried step (a replay: the downstream sees one request), a write held for an
 * approver (pending, approved through the approver client, resumed: run once), a denial, the AI
 * SDK's own approval flow, the end user's confirmation in chat (approved: run once; denied: the
 * gate records it and the model reads its refusal), and streamText through `toUIMessageStream`.
 */
import {
  generateText,
  stepCountIs,
  streamText,
  type ModelMessage,
  type ToolApprovalRequestOutput,
  type ToolSet,
  type UIMessageChunk,
} from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gateTools, type GateToolSet } from "../../src/adapters/ai-sdk";
import { ApproverClient } from "../../src/client/approver";
import { chatSignIn, type LedgerGate, OBSERVED_AT, startLedgerGate } from "./ledger-gate";

const CONSUMER = "ai-sdk-tenant";
const REVIEWER = "reviewer-1";

let ledger: LedgerGate;
let agent: string;
/** A token-verified agent credential for `confirm_invoice`, and the end user's JWT it relays. */
let endUserAgent: string;
let endUserToken: string;
const AUDIENCE = "toolgate-ai-sdk-chat";
let approver: ApproverClient;
const invoices = (): string[] => ledger.invoices();

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model that proposes one tool call on its first step and answers text on the next. */
function callsThenAnswers(toolCallId: string, toolName: string, input: object): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: [
      {
        content: [{ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: "done" }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      },
    ],
  });
}

/** A model that answers `text` (after reading the tool results it is given). */
function answersText(text: string): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: {
      content: [{ type: "text", text }],
      finishReason: { unified: "stop", raw: "stop" },
      usage,
      warnings: [],
    },
  });
}

/** The tool results the model read in its `step`-th call (0-based). */
function toolResultsSeen(model: MockLanguageModelV3, step: number): unknown[] {
  const prompt = model.doGenerateCalls[step]?.prompt ?? [];
  return prompt.flatMap((m) => (m.role === "tool" ? m.content : []));
}

/** The gate's model result of a succeeded call, as Tool Result v2 defines it. */
function succeeded(tool: string, data: Record<string, unknown>, delivery: string): Record<string, unknown> {
  return {
    schema_version: "tool-model-result-v2",
    status: "succeeded",
    data,
    error: null,
    execution: { outcome: "committed", delivery, complete: true, truncated: false },
    provenance: {
      source_label: tool,
      producer_revision: ledger.handlerRevision.get(tool),
      resource_revision: null,
      observed_at: OBSERVED_AT,
      trust: "untrusted_data",
    },
  };
}

/** The gate's model result of a call its approval gate stopped (the reference's catalog and dispatcher labels). */
function stopped(code: "APPROVAL_REQUIRED" | "APPROVAL_INVALID"): Record<string, unknown> {
  return {
    schema_version: "tool-model-result-v2",
    status: "failed",
    data: null,
    error: {
      code,
      category: "approval",
      safe_message:
        code === "APPROVAL_REQUIRED"
          ? "This action requires approval bound to the current arguments."
          : "Approval expired or is not bound to the current request.",
      recovery: "request_approval",
      retry_after_ms: null,
    },
    execution: { outcome: "not_started", delivery: "fresh", complete: true, truncated: false },
    provenance: {
      source_label: "offline-dispatcher",
      producer_revision: "offline-dispatcher-v2",
      resource_revision: null,
      observed_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      trust: "trusted_control",
    },
  };
}

/** The pending result the model reads for a call held for an approver. */
function pendingOutput(approvalId: string): Record<string, unknown> {
  return {
    ...stopped("APPROVAL_REQUIRED"),
    approval: {
      approval_id: approvalId,
      state: "pending",
      decided_by: "one of the gate's approvers, on the approver console or through the approvals API",
      console_url: `${ledger.dev.base}/console/approvals/${approvalId}`,
      next_step: "The call has not run. It runs once an approver approves it; do not call it again.",
    },
  };
}

/** Decides the one pending approval with the digest the approver is shown. */
async function decidePending(decision: "approve" | "deny"): Promise<string> {
  const list = await approver.listApprovals();
  if (!list.ok) throw new Error(list.problem.code);
  const [first, ...rest] = list.value.approvals;
  if (first === undefined || rest.length !== 0)
    throw new Error(`expected one pending approval, got ${1 + rest.length}`);
  const decided = await approver.decideApproval(first.approval_id, decision, first.approval_digest);
  expect(decided.ok).toBe(true);
  return first.approval_id;
}

beforeAll(async () => {
  const chat = await chatSignIn(AUDIENCE);
  ledger = await startLedgerGate(
    CONSUMER,
    REVIEWER,
    { description: "Create an invoice; above 100 a human approves it.", approval: "args.amount > 100" },
    chat.issuer,
  );
  agent = await ledger.secret("agent", "user-1", ["lookup_customer", "create_invoice"]);
  endUserAgent = await ledger.tokenAgent(["confirm_invoice"]);
  endUserToken = await chat.token("user-1");
  approver = new ApproverClient({
    baseUrl: ledger.dev.base,
    consumer: CONSUMER,
    token: await ledger.secret("approver", REVIEWER),
  });
}, 180_000);

afterAll(async () => {
  await ledger?.close();
});

const tools = (approvals: "result" | "ai-sdk" = "result"): Promise<GateToolSet> =>
  gateTools({ baseUrl: ledger.dev.base, consumer: CONSUMER, token: agent, approvals });

describe("the AI SDK adapter against the gate", () => {
  it("declares the gate's tools with the gate's schemas", async () => {
    const gate = await tools();
    expect(Object.keys(gate.tools).sort()).toEqual(["create_invoice", "lookup_customer"]);
    const lookup = gate.tools["lookup_customer"];
    expect([lookup?.type, lookup?.description]).toEqual(["dynamic", "Look up a customer's tier."]);
  });

  it("a read: the gate runs it and the model's next step reads the exact result", async () => {
    const gate = await tools();
    const model = callsThenAnswers("call-read-1", "lookup_customer", { customer: "acme" });
    const result = await generateText({ model, tools: gate.tools, prompt: "acme's tier?", stopWhen: stepCountIs(3) });
    expect(result.text).toBe("done");
    expect(toolResultsSeen(model, 1)).toEqual([
      {
        type: "tool-result",
        toolCallId: "call-read-1",
        toolName: "lookup_customer",
        output: { type: "json", value: succeeded("lookup_customer", { customer: "acme", tier: "gold" }, "fresh") },
      },
    ]);
    expect(ledger.received.filter((r) => r.startsWith("/ledger/lookup"))).toEqual([
      '/ledger/lookup {"customer":"acme"}',
    ]);
  });

  it("a write runs once; the same step sent again (same toolCallId) is a replay", async () => {
    const gate = await tools();
    const before = invoices().length;
    const first = callsThenAnswers("call-write-1", "create_invoice", { customer: "acme", amount: 50 });
    await generateText({ model: first, tools: gate.tools, prompt: "invoice acme 50", stopWhen: stepCountIs(3) });
    const again = callsThenAnswers("call-write-1", "create_invoice", { customer: "acme", amount: 50 });
    await generateText({ model: again, tools: gate.tools, prompt: "invoice acme 50", stopWhen: stepCountIs(3) });
    const data = { invoice_id: `INV-${before + 1}`, customer: "acme", amount: 50 };
    expect(toolResultsSeen(first, 1)).toEqual([
      {
        type: "tool-result",
        toolCallId: "call-write-1",
        toolName: "create_invoice",
        output: { type: "json", value: succeeded("create_invoice", data, "fresh") },
      },
    ]);
    expect(toolResultsSeen(again, 1)).toEqual([
      {
        type: "tool-result",
        toolCallId: "call-write-1",
        toolName: "create_invoice",
        output: { type: "json", value: succeeded("create_invoice", data, "local_replay") },
      },
    ]);
    expect(invoices().slice(before)).toEqual(['/ledger/invoices {"amount":50,"customer":"acme"}']);
  });

  it("a write held for an approver: pending, approved through the approver client, resumed, run once", async () => {
    const gate = await tools();
    const before = invoices().length;
    const model = callsThenAnswers("call-approve-1", "create_invoice", { customer: "acme", amount: 250 });
    const prompt: ModelMessage[] = [{ role: "user", content: "invoice acme 250" }];
    const result = await generateText({ model, tools: gate.tools, messages: prompt, stopWhen: stepCountIs(3) });
    const approvalId = await decidePending("approve");
    expect(toolResultsSeen(model, 1)).toEqual([
      {
        type: "tool-result",
        toolCallId: "call-approve-1",
        toolName: "create_invoice",
        output: { type: "json", value: pendingOutput(approvalId) },
      },
    ]);
    expect(invoices().length).toBe(before);
    const resumed = await gate.resumePending(result.response.messages, 10);
    expect([resumed.resumed, resumed.pending]).toEqual([["call-approve-1"], []]);
    const next = answersText("invoiced");
    const after = await generateText({ model: next, tools: gate.tools, messages: [...prompt, ...resumed.messages] });
    expect(after.text).toBe("invoiced");
    const data = { invoice_id: `INV-${before + 1}`, customer: "acme", amount: 250 };
    expect(toolResultsSeen(next, 0)).toEqual([
      {
        type: "tool-result",
        toolCallId: "call-approve-1",
        toolName: "create_invoice",
        output: { type: "json", value: succeeded("create_invoice", data, "fresh") },
      },
    ]);
    // Resuming the same messages again finds nothing pending and sends nothing.
    const again = await gate.resumePending(resumed.messages, 1);
    expect([again.resumed, again.pending]).toEqual([[], []]);
    expect(invoices().slice(before)).toEqual(['/ledger/invoices {"amount":250,"customer":"acme"}']);
  });

  it("a denial: the resumed call answers the gate's refusal as an error result the model reads", async () => {
    const gate = await tools();
    const before = invoices().length;
    const model = callsThenAnswers("call-deny-1", "create_invoice", { customer: "acme", amount: 400 });
    const result = await generateText({
      model,
      tools: gate.tools,
      prompt: "invoice acme 400",
      stopWhen: stepCountIs(3),
    });
    const approvalId = await decidePending("deny");
    expect(await gate.waitForApproval(approvalId, 5)).toMatchObject({
      approval_id: approvalId,
      state: "denied",
      approver_id: REVIEWER,
    });
    const resumed = await gate.resumePending(result.response.messages, 5);
    expect(resumed.resumed).toEqual(["call-deny-1"]);
    expect(resumed.messages.flatMap((m) => (m.role === "tool" ? m.content : []))).toEqual([
      {
        type: "tool-result",
        toolCallId: "call-deny-1",
        toolName: "create_invoice",
        output: { type: "error-json", value: stopped("APPROVAL_INVALID") },
      },
    ]);
    expect(invoices().length).toBe(before);
  });

  it("the AI SDK's own approval flow: a tool-approval-request, answered once the gate's approver decides", async () => {
    const gate = await tools("ai-sdk");
    const before = invoices().length;
    const first = callsThenAnswers("call-sdk-1", "create_invoice", { customer: "bolt", amount: 300 });
    const prompt: ModelMessage[] = [{ role: "user", content: "invoice bolt 300" }];
    const asked = await generateText({ model: first, tools: gate.tools, messages: prompt, stopWhen: stepCountIs(3) });
    const requests = asked.content.filter(
      (part): part is ToolApprovalRequestOutput<ToolSet> => part.type === "tool-approval-request",
    );
    expect(requests.map((r) => [r.toolCall.toolCallId, r.toolCall.toolName, r.toolCall.input])).toEqual([
      ["call-sdk-1", "create_invoice", { customer: "bolt", amount: 300 }],
    ]);
    // The step stopped for the approval: the model was asked once, nothing ran.
    expect([first.doGenerateCalls.length, invoices().length]).toEqual([1, before]);
    const [request] = requests;
    if (request === undefined) throw new Error("no approval request");
    await decidePending("approve");
    const response = await gate.approvalResponse(request, 10);
    expect(response).toEqual({
      type: "tool-approval-response",
      approvalId: request.approvalId,
      approved: true,
      reason: "approved by the gate's approver",
    });
    const next = answersText("invoiced");
    const messages: ModelMessage[] = [...prompt, ...asked.response.messages, { role: "tool", content: [response] }];
    await generateText({ model: next, tools: gate.tools, messages });
    const data = { invoice_id: `INV-${before + 1}`, customer: "bolt", amount: 300 };
    expect(toolResultsSeen(next, 0)).toEqual([
      {
        type: "tool-result",
        toolCallId: "call-sdk-1",
        toolName: "create_invoice",
        output: { type: "json", value: succeeded("create_invoice", data, "fresh") },
      },
    ]);
    expect(invoices().slice(before)).toEqual(['/ledger/invoices {"amount":300,"customer":"bolt"}']);
  });

  it("the AI SDK's own approval flow: a denial reaches the model as the SDK's denied result with the reason", async () => {
    const gate = await tools("ai-sdk");
    const before = invoices().length;
    const first = callsThenAnswers("call-sdk-2", "create_invoice", { customer: "bolt", amount: 500 });
    const prompt: ModelMessage[] = [{ role: "user", content: "invoice bolt 500" }];
    const asked = await generateText({ model: first, tools: gate.tools, messages: prompt, stopWhen: stepCountIs(3) });
    const request = asked.content.find(
      (part): part is ToolApprovalRequestOutput<ToolSet> => part.type === "tool-approval-request",
    );
    if (request === undefined) throw new Error("no approval request");
    await decidePending("deny");
    const response = await gate.approvalResponse(request, 10);
    expect([response.approved, response.reason]).toEqual([false, "the gate's approval was denied"]);
    const next = answersText("not invoiced");
    await generateText({
      model: next,
      tools: gate.tools,
      messages: [...prompt, ...asked.response.messages, { role: "tool", content: [response] }],
    });
    expect(toolResultsSeen(next, 0)).toEqual([
      {
        type: "tool-result",
        toolCallId: "call-sdk-2",
        toolName: "create_invoice",
        output: { type: "execution-denied", reason: "the gate's approval was denied" },
      },
    ]);
    expect(invoices().length).toBe(before);
  });

  it("the AI SDK's own approval flow: an edit reaches the model as the denied result telling it to call again with the approver's arguments", async () => {
    const gate = await tools("ai-sdk");
    const before = invoices().length;
    const first = callsThenAnswers("call-sdk-3", "create_invoice", { customer: "bolt", amount: 700 });
    const prompt: ModelMessage[] = [{ role: "user", content: "invoice bolt 700" }];
    const asked = await generateText({ model: first, tools: gate.tools, messages: prompt, stopWhen: stepCountIs(3) });
    const request = asked.content.find(
      (part): part is ToolApprovalRequestOutput<ToolSet> => part.type === "tool-approval-request",
    );
    if (request === undefined) throw new Error("no approval request");
    const list = await approver.listApprovals();
    if (!list.ok) throw new Error(list.problem.code);
    const [pending] = list.value.approvals;
    if (pending === undefined) throw new Error("no pending approval");
    const edited = await approver.edit(
      pending.approval_id,
      pending.approval_digest,
      { customer: "bolt", amount: 70 },
      "A tenth",
    );
    expect(edited.ok).toBe(true);
    const response = await gate.approvalResponse(request, 10);
    const instruction =
      'The approver edited the arguments: call the tool again with exactly these arguments: {"amount":70,"customer":"bolt"} The approver said: "A tenth"';
    expect([response.approved, response.reason]).toEqual([false, instruction]);
    expect(invoices().length).toBe(before);
  });

  it("the end user confirms in chat: its approval reaches the gate with its token and the call runs once", async () => {
    const gate = await gateTools({
      baseUrl: ledger.dev.base,
      consumer: CONSUMER,
      token: endUserAgent,
      principalToken: endUserToken,
    });
    const before = invoices().length;
    const first = callsThenAnswers("call-chat-1", "confirm_invoice", { customer: "eve", amount: 40 });
    const prompt: ModelMessage[] = [{ role: "user", content: "invoice eve 40" }];
    const asked = await generateText({ model: first, tools: gate.tools, messages: prompt, stopWhen: stepCountIs(3) });
    const requests = asked.content.filter(
      (part): part is ToolApprovalRequestOutput<ToolSet> => part.type === "tool-approval-request",
    );
    expect(requests.map((r) => [r.toolCall.toolCallId, r.toolCall.toolName, r.toolCall.input])).toEqual([
      ["call-chat-1", "confirm_invoice", { customer: "eve", amount: 40 }],
    ]);
    const [request] = requests;
    if (request === undefined) throw new Error("no approval request");
    // The gate holds it for the end user, not for the approvers: nothing ran, no approver is asked.
    expect([gate.asksEndUser(request), first.doGenerateCalls.length, invoices().length]).toEqual([true, 1, before]);
    const listed = await approver.listApprovals();
    if (!listed.ok) throw new Error(listed.problem.code);
    expect(listed.value.approvals.map((a) => [a.tool, a.subject_id, a.confirmed_by])).toEqual([
      ["confirm_invoice", "user-1", "end_user"],
    ]);
    const approvalId = listed.value.approvals[0]?.approval_id ?? "";
    const response = await gate.endUserResponse(request, { approved: true });
    expect(response).toEqual({ type: "tool-approval-response", approvalId: request.approvalId, approved: true });
    const next = answersText("invoiced");
    const messages: ModelMessage[] = [...prompt, ...asked.response.messages, { role: "tool", content: [response] }];
    await generateText({ model: next, tools: gate.tools, messages });
    const data = { invoice_id: `INV-${before + 1}`, customer: "eve", amount: 40 };
    expect(toolResultsSeen(next, 0)).toEqual([
      {
        type: "tool-result",
        toolCallId: "call-chat-1",
        toolName: "confirm_invoice",
        output: { type: "json", value: succeeded("confirm_invoice", data, "fresh") },
      },
    ]);
    expect(invoices().slice(before)).toEqual(['/ledger/invoices {"amount":40,"customer":"eve"}']);
    const decided = await ledger.request("GET", `/approvals/${approvalId}`, endUserAgent);
    expect([decided.body["state"], decided.body["approver_id"], decided.body["decided_by"]]).toEqual([
      "approved",
      "user-1",
      "end_user",
    ]);
  });

  it("the end user denies in chat: the gate records the denial and the model reads the gate's refusal", async () => {
    const gate = await gateTools({
      baseUrl: ledger.dev.base,
      consumer: CONSUMER,
      token: endUserAgent,
      principalToken: endUserToken,
    });
    const before = invoices().length;
    const first = callsThenAnswers("call-chat-2", "confirm_invoice", { customer: "eve", amount: 90 });
    const prompt: ModelMessage[] = [{ role: "user", content: "invoice eve 90" }];
    const asked = await generateText({ model: first, tools: gate.tools, messages: prompt, stopWhen: stepCountIs(3) });
    const request = asked.content.find(
      (part): part is ToolApprovalRequestOutput<ToolSet> => part.type === "tool-approval-request",
    );
    if (request === undefined) throw new Error("no approval request");
    const listed = await approver.listApprovals();
    if (!listed.ok) throw new Error(listed.problem.code);
    const approvalId = listed.value.approvals[0]?.approval_id ?? "";
    const response = await gate.endUserResponse(request, { approved: false, reason: "Not this month" });
    const refusal = {
      ...stopped("APPROVAL_INVALID"),
      error: {
        ...(stopped("APPROVAL_INVALID")["error"] as Record<string, unknown>),
        safe_message: 'Approval expired or is not bound to the current request. The approver said: "Not this month"',
      },
    };
    expect([response.type, response.approvalId, response.approved]).toEqual([
      "tool-approval-response",
      request.approvalId,
      false,
    ]);
    expect(JSON.parse(response.reason ?? "")).toEqual(refusal);
    const next = answersText("not invoiced");
    await generateText({
      model: next,
      tools: gate.tools,
      messages: [...prompt, ...asked.response.messages, { role: "tool", content: [response] }],
    });
    expect(toolResultsSeen(next, 0)).toEqual([
      {
        type: "tool-result",
        toolCallId: "call-chat-2",
        toolName: "confirm_invoice",
        output: { type: "execution-denied", reason: response.reason },
      },
    ]);
    const decided = await ledger.request("GET", `/approvals/${approvalId}`, endUserAgent);
    expect([decided.body["state"], decided.body["approver_id"], decided.body["decided_by"]]).toEqual([
      "denied",
      "user-1",
      "end_user",
    ]);
    expect(invoices().length).toBe(before);
  });

  it("streamText: the call runs through the gate and the UI message stream carries its result", async () => {
    const gate = await tools();
    const finish = (unified: "tool-calls" | "stop") => ({
      type: "finish" as const,
      finishReason: { unified, raw: unified },
      usage,
    });
    const model = new MockLanguageModelV3({
      doStream: [
        {
          stream: convertArrayToReadableStream([
            { type: "stream-start", warnings: [] },
            {
              type: "tool-call",
              toolCallId: "call-stream-1",
              toolName: "lookup_customer",
              input: '{"customer":"zed"}',
            },
            finish("tool-calls"),
          ]),
        },
        {
          stream: convertArrayToReadableStream([
            { type: "stream-start", warnings: [] },
            { type: "text-start", id: "t1" },
            { type: "text-delta", id: "t1", delta: "zed is gold" },
            { type: "text-end", id: "t1" },
            finish("stop"),
          ]),
        },
      ],
    });
    const result = streamText({ model, tools: gate.tools, prompt: "zed's tier?", stopWhen: stepCountIs(3) });
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of result.toUIMessageStream()) chunks.push(chunk);
    const value = succeeded("lookup_customer", { customer: "zed", tier: "gold" }, "fresh");
    expect(chunks.filter((c) => c.type.startsWith("tool-") || c.type.startsWith("text-"))).toEqual([
      {
        type: "tool-input-available",
        toolCallId: "call-stream-1",
        toolName: "lookup_customer",
        input: { customer: "zed" },
        dynamic: true,
      },
      {
        type: "tool-output-available",
        toolCallId: "call-stream-1",
        output: value,
        dynamic: true,
      },
      { type: "text-start", id: "t1" },
      { type: "text-delta", id: "t1", delta: "zed is gold" },
      { type: "text-end", id: "t1" },
    ]);
    expect(await result.text).toBe("zed is gold");
    expect(model.doStreamCalls[1]?.prompt.flatMap((m) => (m.role === "tool" ? m.content : []))).toEqual([
      {
        type: "tool-result",
        toolCallId: "call-stream-1",
        toolName: "lookup_customer",
        output: { type: "json", value },
      },
    ]);
    expect(ledger.received.filter((r) => r.startsWith("/ledger/lookup")).at(-1)).toBe(
      '/ledger/lookup {"customer":"zed"}',
    );
  });
});
