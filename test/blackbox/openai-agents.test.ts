/**
 * Black box: `toolgate/openai-agents` with the OpenAI Agents SDK (`@openai/agents-core`) against
 * the real gate under `wrangler dev`, its HTTP tools calling a loopback downstream that counts
 * what it receives. The SDK ships no fake model, so the model is its public `Model` interface
 * implemented here with scripted answers: it proposes one function call, then ends the turn
 * with a message, and records every request (what the model was given, tool results included).
 * A tool its end user confirms (`confirm_invoice`) interrupts the run for the end user's own
 * answer in chat: `state.approve` runs it once, `state.reject` is the gate's recorded denial.
 */
import {
  Agent,
  RunState,
  Runner,
  Usage,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from "@openai/agents-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatedTools, type GatedTools, type GatedToolsOptions } from "../../src/adapters/openai-agents";
import { chatSignIn, type LedgerGate, OBSERVED_AT, startLedgerGate } from "./ledger-gate";

const CONSUMER = "agents-bb";
const REVIEWER = "bb-reviewer";

let ledger: LedgerGate | undefined;
let agentToken: string;
let approverToken: string;
/** A token-verified agent credential for `confirm_invoice`, and the end user's JWT it relays. */
let endUserAgent: string;
let endUserToken: string;
const AUDIENCE = "toolgate-agents-chat";
/** The running gate (started in beforeAll). */
function gate(): LedgerGate {
  if (ledger === undefined) throw new Error("wrangler dev is not running");
  return ledger;
}
const invoices = (): string[] => gate().invoices();
const request = (method: string, path: string, token: string, body?: unknown) =>
  gate().request(method, path, token, body);

/** The reviewer decides the pending approval `approvalId` with the digest the gate shows them. */
async function decide(approvalId: string, decision: "approve" | "deny"): Promise<void> {
  const list = await request("GET", "/approvals?state=pending", approverToken);
  const pending = list.body["approvals"] as Array<{ approval_id: string; approval_digest: string }>;
  const digest = pending.find((a) => a.approval_id === approvalId)?.approval_digest;
  const decided = await request("POST", `/approvals/${approvalId}`, approverToken, {
    decision,
    approval_digest: digest,
  });
  expect([decided.status, decided.body["state"]]).toEqual([200, decision === "approve" ? "approved" : "denied"]);
}

/** A scripted model: proposes `call` once, and ends the turn once the input holds its result. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly call: { callId: string; name: string; args: Record<string, unknown> }) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const answered = resultOf(request.input, this.call.callId) !== undefined;
    return {
      usage: new Usage(),
      responseId: `resp-${this.requests.length}`,
      output: answered
        ? [
            {
              type: "message",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: `done with ${this.call.callId}` }],
            },
          ]
        : [
            {
              type: "function_call",
              callId: this.call.callId,
              name: this.call.name,
              arguments: JSON.stringify(this.call.args),
              status: "completed",
            },
          ],
    };
  }

  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error("not streamed");
  }

  /** The tool output the model was given for its call (the last request's input). */
  output(): unknown {
    return resultOf(this.requests.at(-1)?.input ?? [], this.call.callId);
  }
}

/** The output of the function call result for `callId` in a model's input. */
function resultOf(input: string | AgentInputItem[], callId: string): unknown {
  if (typeof input === "string") return undefined;
  for (const item of input) {
    if (item.type !== "function_call_result" || item.callId !== callId) continue;
    const output = item.output;
    return typeof output === "string"
      ? output
      : !Array.isArray(output) && output.type === "text"
        ? output.text
        : output;
  }
  return undefined;
}

const runner = new Runner({ tracingDisabled: true });

function options(extra: Partial<GatedToolsOptions> = {}): GatedToolsOptions {
  return { baseUrl: gate().dev.base, consumer: CONSUMER, token: agentToken, ...extra };
}

async function gated(extra: Partial<GatedToolsOptions> = {}): Promise<GatedTools> {
  const made = await gatedTools(options(extra));
  if (!made.ok) throw new Error(`the tool list was refused: ${made.problem.code}`);
  return made.value;
}

function agentWith(tools: GatedTools, model: ScriptedModel): Agent {
  return new Agent({ name: "billing", instructions: "Bill customers.", model, tools: tools.tools });
}

beforeAll(async () => {
  const chat = await chatSignIn(AUDIENCE);
  ledger = await startLedgerGate(
    CONSUMER,
    REVIEWER,
    {
      description: "Create an invoice. An amount above 100 needs a person's approval.",
      approval: "args.amount > 100",
      memo: true,
    },
    chat.issuer,
  );
  agentToken = await ledger.secret("agent", "user-1", ["lookup_customer", "create_invoice"]);
  endUserAgent = await ledger.tokenAgent(["confirm_invoice"]);
  endUserToken = await chat.token("user-1");
  approverToken = await ledger.secret("approver", REVIEWER);
}, 180_000);

afterAll(async () => {
  await ledger?.close();
});

describe("the OpenAI Agents SDK through toolgate/openai-agents", () => {
  it("gives the model the gate's own declarations", async () => {
    const tools = await gated();
    const declared = await request("GET", "/tools?format=openai", agentToken);
    expect(
      tools.tools.map((t) => ({
        type: t.type,
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        strict: t.strict,
      })),
    ).toEqual(declared.body["tools"]);
    const model = new ScriptedModel({ callId: "call-read-1", name: "lookup_customer", args: { customer: "acme" } });
    await runner.run(agentWith(tools, model), "What tier is acme?");
    expect(model.requests[0]?.tools.map((t) => (t.type === "function" ? [t.name, t.strict] : t.type))).toEqual([
      ["create_invoice", true],
      ["lookup_customer", true],
    ]);
  });

  it("a read: the model is given the gate's model result, and the downstream one request", async () => {
    const before = gate().received.length;
    const model = new ScriptedModel({ callId: "call-read-2", name: "lookup_customer", args: { customer: "acme" } });
    const result = await runner.run(agentWith(await gated(), model), "What tier is acme?");
    expect(result.finalOutput).toBe("done with call-read-2");
    expect(JSON.parse(String(model.output()))).toEqual(
      succeeded("lookup_customer", { customer: "acme", tier: "gold" }, "fresh"),
    );
    expect(gate().received.slice(before)).toEqual(['/ledger/lookup {"customer":"acme"}']);
  });

  it("a write runs once: a retried turn with the same call id replays it", async () => {
    const before = invoices().length;
    const call = { callId: "call-write-1", name: "create_invoice", args: { customer: "acme", amount: 40, memo: null } };
    const first = new ScriptedModel(call);
    await runner.run(agentWith(await gated(), first), "Bill acme 40.");
    const invoice = { invoice_id: `INV-${before + 1}`, customer: "acme", amount: 40 };
    expect(JSON.parse(String(first.output()))).toEqual(succeeded("create_invoice", invoice, "fresh"));
    // The same turn again (a host that lost the answer and retried): the gate replays the stored result.
    const retried = new ScriptedModel(call);
    await runner.run(agentWith(await gated(), retried), "Bill acme 40.");
    expect(JSON.parse(String(retried.output()))).toEqual(succeeded("create_invoice", invoice, "local_replay"));
    // The optional memo the model sent as null (OpenAI's strict form) never reached the downstream.
    expect(invoices().slice(before)).toEqual(['/ledger/invoices {"amount":40,"customer":"acme"}']);
  });

  it("a write the approvers decide: an interruption, approved at the gate, resumed from the serialized RunState", async () => {
    const before = invoices().length;
    const call = {
      callId: "call-write-2",
      name: "create_invoice",
      args: { customer: "acme", amount: 250, memo: null },
    };
    const tools = await gated();
    const first = await runner.run(agentWith(tools, new ScriptedModel(call)), "Bill acme 250.");
    expect(first.interruptions.map((i) => [i.type, i.name, i.arguments])).toEqual([
      ["tool_approval_item", "create_invoice", JSON.stringify(call.args)],
    ]);
    const asked = await tools.approval(first.interruptions[0] as (typeof first.interruptions)[number]);
    if (!asked.ok || asked.value === null) throw new Error("the interruption has no gate approval");
    const approvalId = asked.value.approvalId ?? "";
    expect(approvalId).toMatch(/^apr_[0-9a-f]{32}$/);
    expect(asked.value).toEqual({
      callId: "call-write-2",
      tool: "create_invoice",
      approvalId,
      state: "pending",
      decidedBy: `an approver of the consumer ${CONSUMER}`,
      confirmedBy: "approvers",
      consoleUrl: `${gate().dev.base}/console/approvals/${approvalId}`,
    });
    const saved = first.state.toString();
    expect(invoices().length).toBe(before);

    await decide(approvalId, "approve");

    // Another process: new tools, a new agent of the same name, the run read back from its text.
    const model = new ScriptedModel(call);
    const again = await gated();
    const agent = agentWith(again, model);
    const state = await RunState.fromString(agent, saved);
    expect(await again.awaitDecisions(state, 10)).toEqual({ ok: true, value: [] });
    const resumed = await runner.run(agent, state);
    expect([resumed.interruptions.length, resumed.finalOutput]).toEqual([0, "done with call-write-2"]);
    const invoice = { invoice_id: `INV-${before + 1}`, customer: "acme", amount: 250 };
    expect(JSON.parse(String(model.output()))).toEqual(succeeded("create_invoice", invoice, "fresh"));
    expect(invoices().slice(before)).toEqual(['/ledger/invoices {"amount":250,"customer":"acme"}']);
  });

  it("a denial reaches the model as the tool's output, and nothing runs", async () => {
    const before = invoices().length;
    const call = {
      callId: "call-write-3",
      name: "create_invoice",
      args: { customer: "acme", amount: 300, memo: null },
    };
    const model = new ScriptedModel(call);
    const tools = await gated();
    const agent = agentWith(tools, model);
    const first = await runner.run(agent, "Bill acme 300.");
    const asked = await tools.approval(first.interruptions[0] as (typeof first.interruptions)[number]);
    if (!asked.ok || asked.value?.approvalId == null) throw new Error("the interruption has no gate approval");
    await decide(asked.value.approvalId, "deny");
    expect(await tools.awaitDecisions(first.state, 10)).toEqual({ ok: true, value: [] });
    const resumed = await runner.run(agent, first.state);
    expect(resumed.finalOutput).toBe("done with call-write-3");
    expect(JSON.parse(String(model.output()))).toEqual(
      refused("APPROVAL_INVALID", "Approval expired or is not bound to the current request."),
    );
    expect(invoices().length).toBe(before);
  });

  it("the end user confirms in chat: state.approve reaches the gate with its token and the call runs once", async () => {
    const before = invoices().length;
    const call = { callId: "call-chat-1", name: "confirm_invoice", args: { customer: "eve", amount: 40 } };
    const model = new ScriptedModel(call);
    const tools = await gated({ token: endUserAgent, principalToken: endUserToken });
    const agent = agentWith(tools, model);
    const first = await runner.run(agent, "Bill eve 40.");
    const item = first.interruptions[0] as (typeof first.interruptions)[number];
    const asked = await tools.approval(item);
    if (!asked.ok || asked.value === null) throw new Error("the interruption has no gate approval");
    const approvalId = asked.value.approvalId ?? "";
    expect(asked.value).toEqual({
      callId: "call-chat-1",
      tool: "confirm_invoice",
      approvalId,
      state: "pending",
      decidedBy: "the end user, in this chat",
      confirmedBy: "end_user",
      consoleUrl: null,
    });
    // Nobody at the gate decides it: it stays the host's to ask in chat.
    expect(await tools.awaitDecisions(first.state, 0)).toEqual({ ok: true, value: [asked.value] });
    expect(invoices().length).toBe(before);
    first.state.approve(item);
    const resumed = await runner.run(agent, first.state, { toolErrorFormatter: tools.toolErrorFormatter });
    expect([resumed.interruptions.length, resumed.finalOutput]).toEqual([0, "done with call-chat-1"]);
    const invoice = { invoice_id: `INV-${before + 1}`, customer: "eve", amount: 40 };
    expect(JSON.parse(String(model.output()))).toEqual(succeeded("confirm_invoice", invoice, "fresh"));
    expect(invoices().slice(before)).toEqual(['/ledger/invoices {"amount":40,"customer":"eve"}']);
    const decided = await request("GET", `/approvals/${approvalId}`, endUserAgent);
    expect([decided.body["state"], decided.body["approver_id"], decided.body["decided_by"]]).toEqual([
      "approved",
      "user-1",
      "end_user",
    ]);
  });

  it("the end user rejects in chat: the gate records the denial and the model reads its refusal; nothing runs", async () => {
    const before = invoices().length;
    const call = { callId: "call-chat-2", name: "confirm_invoice", args: { customer: "eve", amount: 90 } };
    const model = new ScriptedModel(call);
    const tools = await gated({ token: endUserAgent, principalToken: endUserToken });
    const agent = agentWith(tools, model);
    const first = await runner.run(agent, "Bill eve 90.");
    const item = first.interruptions[0] as (typeof first.interruptions)[number];
    const asked = await tools.approval(item);
    if (!asked.ok || asked.value?.approvalId == null) throw new Error("the interruption has no gate approval");
    first.state.reject(item);
    const resumed = await runner.run(agent, first.state, { toolErrorFormatter: tools.toolErrorFormatter });
    expect(resumed.finalOutput).toBe("done with call-chat-2");
    expect(JSON.parse(String(model.output()))).toEqual(
      refused("APPROVAL_INVALID", "Approval expired or is not bound to the current request."),
    );
    const decided = await request("GET", `/approvals/${asked.value.approvalId}`, endUserAgent);
    expect([decided.body["state"], decided.body["approver_id"], decided.body["decided_by"]]).toEqual([
      "denied",
      "user-1",
      "end_user",
    ]);
    expect(invoices().length).toBe(before);
  });

  it("approved in the SDK before the approvers decided: the model reads that it is pending, who decides and where", async () => {
    const call = {
      callId: "call-write-4",
      name: "create_invoice",
      args: { customer: "acme", amount: 500, memo: null },
    };
    const model = new ScriptedModel(call);
    const tools = await gated({ approvalWaitSeconds: 1 });
    const agent = agentWith(tools, model);
    const first = await runner.run(agent, "Bill acme 500.");
    const item = first.interruptions[0] as (typeof first.interruptions)[number];
    const asked = await tools.approval(item);
    if (!asked.ok || asked.value?.approvalId == null) throw new Error("the interruption has no gate approval");
    const id = asked.value.approvalId;
    expect(await tools.awaitDecisions(first.state, 0)).toEqual({ ok: true, value: [asked.value] });
    first.state.approve(item);
    const before = invoices().length;
    await runner.run(agent, first.state);
    const [guidance, result] = String(model.output()).split("\n");
    expect(guidance).toBe(
      `This call is pending and did not run: it waits for a person's approval (approval ${id}), ` +
        `which an approver of the consumer ${CONSUMER} decides in the toolgate console at ${gate().dev.base}/console/approvals/${id}. ` +
        "The same create_invoice call runs once it is approved.",
    );
    expect(JSON.parse(result ?? "")).toEqual(
      refused("APPROVAL_REQUIRED", "This action requires approval bound to the current arguments."),
    );
    expect(invoices().length).toBe(before);
  });
});

/** The Tool Result v2 model result of a call that ran (docs/http-api.md; the reference's projection). */
function succeeded(tool: string, data: Record<string, unknown>, delivery: "fresh" | "local_replay") {
  return {
    schema_version: "tool-model-result-v2",
    status: "succeeded",
    data,
    error: null,
    execution: { complete: true, delivery, outcome: "committed", truncated: false },
    provenance: {
      observed_at: OBSERVED_AT,
      // A digest of the tool's definition (its handler revision).
      producer_revision: matching(/^handler-[0-9a-f]{16}$/),
      resource_revision: null,
      source_label: tool,
      trust: "untrusted_data",
    },
  };
}

/**
 * The model result of a call the gate's approval policy refused before it started: the
 * reference's error catalog entry for `code` (category `approval`, recovery `request_approval`).
 */
function refused(code: string, safeMessage: string) {
  return {
    schema_version: "tool-model-result-v2",
    status: "failed",
    data: null,
    error: {
      code,
      category: "approval",
      recovery: "request_approval",
      retry_after_ms: null,
      safe_message: safeMessage,
    },
    execution: { complete: true, delivery: "fresh", outcome: "not_started", truncated: false },
    provenance: {
      observed_at: matching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      producer_revision: "offline-dispatcher-v2",
      resource_revision: null,
      source_label: "offline-dispatcher",
      trust: "trusted_control",
    },
  };
}

/** Any string that matches (for the values the gate derives: a definition's digest, the clock). */
function matching(pattern: RegExp): unknown {
  return expect.stringMatching(pattern) as unknown;
}
