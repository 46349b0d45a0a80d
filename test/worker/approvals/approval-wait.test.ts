/**
 * Issue #15, waiting for a decision: an approval's status (`GET …/approvals/{id}`, with a
 * bounded long-poll), the SSE stream of approvals (an agent's own, an approver's all), and the
 * per-tool window in which an approved call may be repeated.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { AgentClient } from "../../../src/client";
import {
  context,
  credential,
  gateFetch,
  pinClock,
  secretOf,
  send,
  setupConsumer,
  type ToolCallAnswer,
  wipe,
} from "../../kit";

const T0 = 1_784_419_200;
const CONSUMER = "approval-wait";
const BASE = `/v1/consumers/${CONSUMER}`;
const ARGS = { customer: "C-1", amount: 5 };
const RATES = { calls_per_second: 1000, call_burst: 1000 };

/** A data-defined write whose approvals stay valid 300 s. */
const INVOICE = {
  description: "Create an invoice.",
  risk: "write",
  approval_valid_seconds: 300,
  input: {
    type: "object",
    properties: { customer: { type: "string" }, amount: { type: "integer" } },
    required: ["customer", "amount"],
    additionalProperties: false,
  },
  output: {
    schema: {
      type: "object",
      properties: { invoice_id: { type: "string" }, customer: { type: "string" }, amount: { type: "integer" } },
      required: ["invoice_id", "customer", "amount"],
      additionalProperties: false,
    },
  },
  target: { kind: "http", url: "https://ledger.test/invoices" },
};

interface Actors {
  agent: string;
  agentId: string;
  other: string;
  approver: string;
}

async function setup(): Promise<Actors> {
  // The test ledger is shared by the worker tests: its writes answer plainly (no token, no fault mode).
  await fetch("https://ledger.test/_control", { method: "POST", body: JSON.stringify({ mode: "ok", token: null }) });
  const { approval_valid_seconds: _default, ...note } = INVOICE;
  const config = { approver_subjects: ["rev-1"], limits: RATES };
  await setupConsumer(CONSUMER, {
    config,
    definitions: { create_invoice: INVOICE, create_note: note },
    tools: ["create_note", "create_invoice"],
    clock: T0,
  });
  const agent = await credential(CONSUMER, "agent");
  return {
    agent: agent.secret,
    agentId: agent.id,
    other: await secretOf(CONSUMER, "agent"),
    approver: await secretOf(CONSUMER, "approver", "rev-1"),
  };
}

/** A write of the default 60 s approval window. */
async function refund(agent: string, callId: string) {
  const res = await send("POST", `${BASE}/tool-calls`, agent, {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name: "create_note", arguments: ARGS },
    context: context(callId, { key: `key-${callId}` }),
  });
  return { status: res.status, body: (await res.json()) as ToolCallAnswer & Record<string, any> };
}

async function status(token: string, id: string, query = "") {
  const res = await send("GET", `${BASE}/approvals/${id}${query}`, token);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function approve(approver: string, id: string, decision: "approve" | "deny" = "approve") {
  const list = (await (await send("GET", `${BASE}/approvals?state=pending`, approver)).json()) as {
    approvals: Array<{ approval_id: string; approval_digest: string }>;
  };
  const view = list.approvals.find((a) => a.approval_id === id);
  if (view === undefined) throw new Error("the approval is not listed");
  const res = await send("POST", `${BASE}/approvals/${id}`, approver, {
    decision,
    approval_digest: view.approval_digest,
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Reads SSE events from a stream until `count` events (comments and `retry:` skipped). */
async function events(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  count: number,
): Promise<Array<{ event: string; id: string; data: Record<string, any> }>> {
  const decoder = new TextDecoder();
  const found: Array<{ event: string; id: string; data: Record<string, any> }> = [];
  let buffer = "";
  while (found.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields: Record<string, string> = Object.fromEntries(
        block
          .split("\n")
          .filter((l) => !l.startsWith(":"))
          .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 2)]),
      );
      if (fields["event"] !== undefined)
        found.push({ event: fields["event"], id: fields["id"] ?? "", data: JSON.parse(fields["data"] ?? "null") });
    }
  }
  return found;
}

beforeEach(() => wipe(CONSUMER));

describe("an approval's status and the wait for its decision", () => {
  it("answers the opener and the approvers, waits for the decision, and hides it from another agent", async () => {
    const actors = await setup();
    const opened = await refund(actors.agent, "call-wait-1");
    expect([opened.status, opened.body.model_result.error?.code]).toEqual([200, "APPROVAL_REQUIRED"]);
    const id = opened.body.approval_id as string;
    const request_sha256 = (await status(actors.approver, id)).body["request_sha256"];
    const pending = {
      approval_id: id,
      state: "pending",
      tool: "create_note",
      subject_id: "user-1",
      operation_id: "op-call-wait-1",
      call_id: "call-wait-1",
      request_sha256,
      requested_at: T0,
      expires_at: T0 + 900,
      approver_id: null,
      decided_at: null,
      valid_until: null,
      arguments: ARGS,
    };
    expect(await status(actors.agent, id)).toEqual({ status: 200, body: pending });
    // An approver's read of a pending approval carries the approval_digest its decision sends back:
    // the one the approver's list shows for it (the agent's read has none).
    const listed = (await (await send("GET", `${BASE}/approvals?state=pending`, actors.approver)).json()) as {
      approvals: Array<{ approval_id: string; approval_digest: string }>;
    };
    const approval_digest = listed.approvals.find((a) => a.approval_id === id)?.approval_digest;
    expect(approval_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(await status(actors.approver, id)).toEqual({ status: 200, body: { ...pending, approval_digest } });
    expect((await status(actors.other, id)).status).toBe(404);

    // The agent waits; the approver decides meanwhile; the wait answers the decision.
    const waiting = status(actors.agent, id, "?wait=30");
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 200));
    expect((await approve(actors.approver, id)).status).toBe(200);
    // create_note sets no window of its own: the consumer's default, 600 s, applies.
    const decided = { ...pending, state: "approved", approver_id: "rev-1", decided_at: T0, valid_until: T0 + 600 };
    expect(await waiting).toEqual({ status: 200, body: decided });
    expect(Date.now() - started).toBeLessThan(10_000);

    // Within the consumer's window (600 s by default: create_note sets none) the repeated call runs; past it, it is refused.
    await pinClock(CONSUMER, T0 + 59);
    expect((await refund(actors.agent, "call-wait-1")).body.model_result.status).toBe("succeeded");
    const late = (await refund(actors.agent, "call-wait-late")).body.approval_id as string;
    await approve(actors.approver, late);
    await pinClock(CONSUMER, T0 + 59 + 600);
    expect((await refund(actors.agent, "call-wait-late")).body.model_result.error?.code).toBe("APPROVAL_INVALID");
  });

  it("answers a pending approval after the bounded wait, an expired one at once, and refuses a bad wait", async () => {
    const actors = await setup();
    const id = (await refund(actors.agent, "call-wait-2")).body.approval_id as string;
    const started = Date.now();
    expect((await status(actors.agent, id, "?wait=1")).body["state"]).toBe("pending");
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    await pinClock(CONSUMER, T0 + 900);
    const expired = await status(actors.agent, id, "?wait=60");
    expect([expired.status, expired.body["state"]]).toEqual([200, "expired"]);
    await pinClock(CONSUMER, T0);
    for (const bad of ["?wait=61", "?wait=-1", "?wait=1.5", "?wait=x", "?wait=01"])
      expect((await status(actors.agent, id, bad)).body["code"]).toBe("INVALID_REQUEST");
    expect((await status(actors.agent, "apr_" + "0".repeat(32))).status).toBe(404);
    expect((await status(actors.agent, "not-an-id")).status).toBe(404);
  });

  it("keeps a tool's approval valid for its own window (approval_valid_seconds)", async () => {
    const actors = await setup();
    const call = async () => {
      const res = await send("POST", `${BASE}/tool-calls`, actors.agent, {
        principal: { subject_id: "user-2", roles: [] },
        proposal: { name: "create_invoice", arguments: { customer: "C-1", amount: 5 } },
        context: context("call-invoice-1", { key: "key-invoice-1" }),
      });
      return (await res.json()) as ToolCallAnswer & Record<string, any>;
    };
    await pinClock(CONSUMER, T0 + 1000);
    const id = (await call()).approval_id as string;
    const decided = await approve(actors.approver, id);
    expect(decided.body).toEqual({
      approval_id: id,
      state: "approved",
      approver_id: "rev-1",
      decided_at: T0 + 1000,
      valid_until: T0 + 1300,
      bound_to_request: true,
    });
    await pinClock(CONSUMER, T0 + 1299);
    expect((await call()).model_result.status).toBe("succeeded");
  });
});

describe("the client waits for a human", () => {
  it("toolCallWithApproval waits for the decision and sends the call again once approved; a denial ends it", async () => {
    const actors = await setup();
    const client = new AgentClient({
      baseUrl: "http://gate",
      consumer: CONSUMER,
      token: actors.agent,
      fetch: (input, init) => gateFetch(input, init),
    });
    const body = (callId: string) => ({
      principal: { subject_id: "user-1", roles: [] },
      proposal: { name: "create_note", arguments: ARGS },
      context: context(callId, { key: `key-${callId}` }),
    });
    const approveSoon = async (decision: "approve" | "deny") => {
      for (;;) {
        const list = (await (await send("GET", `${BASE}/approvals?state=pending`, actors.approver)).json()) as {
          approvals: Array<{ approval_id: string }>;
        };
        if (list.approvals.length > 0) return approve(actors.approver, list.approvals[0]!.approval_id, decision);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const [ran] = await Promise.all([client.toolCallWithApproval(body("call-client-1"), 30), approveSoon("approve")]);
    const result = ran.ok ? (ran.value as unknown as ToolCallAnswer).model_result : null;
    expect([result?.status, result?.execution.delivery]).toEqual(["succeeded", "fresh"]);
    const [denied] = await Promise.all([client.toolCallWithApproval(body("call-client-2"), 30), approveSoon("deny")]);
    expect(denied.ok ? (denied.value as unknown as ToolCallAnswer).model_result.error?.code : null).toBe(
      "APPROVAL_INVALID",
    );
    // The stream through the client: the pending approval replayed, then its decision.
    const pending = await client.toolCall(body("call-client-3"));
    const id = pending.ok ? (pending.value as unknown as { approval_id: string }).approval_id : "";
    const events = await client.approvalEvents();
    if (!events.ok) throw new Error(events.problem.code);
    const first = await events.value.next();
    expect(
      first.value === undefined
        ? null
        : [first.value.event, first.value.id, first.value.approval.state, first.value.approval.call_id],
    ).toEqual(["approval.requested", `${id}.pending`, "pending", "call-client-3"]);
    await approve(actors.approver, id, "deny");
    const second = await events.value.next();
    expect(
      second.value === undefined ? null : [second.value.event, second.value.id, second.value.approval.state],
    ).toEqual(["approval.decided", `${id}.denied`, "denied"]);
    await events.value.return(undefined);
    const status = await client.approval("apr_" + "f".repeat(32));
    expect(!status.ok && [status.problem.status, status.problem.code]).toEqual([404, "NOT_FOUND"]);
  });
});

describe("the approval stream", () => {
  it("replays the pending approvals, then carries requests and decisions as they commit; an agent sees only its own", async () => {
    const actors = await setup();
    const first = (await refund(actors.agent, "call-stream-1")).body.approval_id as string;
    const agentStream = await send("GET", `${BASE}/approvals/events`, actors.agent);
    expect([agentStream.status, agentStream.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    const approverStream = await send("GET", `${BASE}/approvals/events`, actors.approver);
    const mine = agentStream.body!.getReader();
    const all = approverStream.body!.getReader();
    expect((await events(mine, 1)).map((e) => [e.event, e.id, e.data["state"]])).toEqual([
      ["approval.requested", `${first}.pending`, "pending"],
    ]);
    const replayed = (await events(all, 1)).map((e) => e.data["approval_id"]);
    expect(replayed).toEqual([first]);

    // Another agent's call: the approver hears it, this agent does not; then this agent's approval is decided.
    const second = (await refund(actors.other, "call-stream-2")).body.approval_id as string;
    expect((await events(all, 1)).map((e) => [e.event, e.data["approval_id"], e.data["call_id"]])).toEqual([
      ["approval.requested", second, "call-stream-2"],
    ]);
    await approve(actors.approver, first);
    expect((await events(mine, 1)).map((e) => [e.event, e.id, e.data["state"], e.data["valid_until"]])).toEqual([
      ["approval.decided", `${first}.approved`, "approved", T0 + 600],
    ]);
    expect((await events(all, 1)).map((e) => [e.event, e.data["approval_id"]])).toEqual([["approval.decided", first]]);
    await mine.cancel();
    await all.cancel();
  });

  it("refuses a credential of another kind and an approver outside the consumer's approvers", async () => {
    await setup();
    const outsider = (await credential(CONSUMER, "approver", "rev-9")).secret;
    expect(
      ((await (await send("GET", `${BASE}/approvals/events`, outsider)).json()) as Record<string, unknown>)["code"],
    ).toBe("APPROVER_NOT_ALLOWED");
    const auditor = (await credential(CONSUMER, "auditor")).secret;
    expect((await send("GET", `${BASE}/approvals/events`, auditor)).status).toBe(403);
  });
});
