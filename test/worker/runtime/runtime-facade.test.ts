/** App Facade over the runtime transport: invoke, prepare, approve, commit, commit again, reject. */
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { decodeEnvelope } from "../../../src/core/wire";
import prepareFixture from "../../../fixtures/execution/app-facade-prepare.v1.json?raw";
import { ADMIN_TOKEN, createConsumer, credential, gate, pinClock, send, wipe } from "../../kit";

const CONSUMER = "tenant-a";
const T0 = 1_800_000_000;
const ORDERS = "/app/orders/get";
const DRAFTS = "/app/refunds/draft";
const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };

interface Creds {
  runtime: string;
  approver: string;
  agent: string;
}

let creds: Creds;

beforeEach(async () => {
  await wipe(CONSUMER);
  await createConsumer(CONSUMER, ["get_order", "create_refund_draft"], ["approver-1"]);
  await pinClock(CONSUMER, T0);
  creds = {
    runtime: (await credential(CONSUMER, "runtime")).secret,
    approver: (await credential(CONSUMER, "approver", "approver-1")).secret,
    agent: (await credential(CONSUMER, "agent")).secret,
  };
  const put = await send("PUT", `/v1/consumers/${CONSUMER}/runtime/facade-targets`, ADMIN_TOKEN, {
    targets: { [ORDERS]: "get_order", [DRAFTS]: "create_refund_draft" },
  });
  expect(put.status).toBe(200);
  expect(await put.json()).toEqual({
    targets: { [ORDERS]: "get_order", [DRAFTS]: "create_refund_draft" },
    revision: 1,
  });
});

type Json = Record<string, any>;

/** The golden prepare envelope with one phase, message id and request (or action). */
function facadeEnvelope(
  phase: string,
  messageId: string,
  body: { request?: Json; action?: Json; userId?: string },
): Json {
  const envelope = JSON.parse(prepareFixture) as Json;
  envelope.metadata.message_id = messageId;
  const payload = envelope.payload.payload as Json;
  payload.phase = phase;
  if (body.userId !== undefined) payload.context.actor.user_id = body.userId;
  if (body.action !== undefined) {
    delete payload.request;
    payload.action = body.action;
  } else if (body.request !== undefined) {
    payload.request = body.request;
  }
  return envelope;
}

function request(target: string, input: unknown, operationId = "run-1:step:0:tool:call-1"): Json {
  return { operation_id: operationId, target, input };
}

/** Posts one envelope; answers the status and the decoded answering envelope (checked by the codec). */
async function post(envelope: Json, token = creds.runtime): Promise<{ status: number; envelope: Json }> {
  const res = await send("POST", `/v1/consumers/${CONSUMER}/runtime/envelopes`, token, envelope);
  const text = await res.text();
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json");
  const decoded = decodeEnvelope(text);
  expect(decoded.ok).toBe(true);
  return { status: res.status, envelope: JSON.parse(text) as Json };
}

function replyMetadata(causation: string): Json {
  return {
    version: 1,
    message_id: expect.stringMatching(/^tg_[0-9a-f]{32}$/),
    correlation_id: "correlation-tool-1",
    causation_id: causation,
    sent_at_unix_ms: T0 * 1000,
    dispatch: { dispatch_id: "dispatch-1", agent_session_id: "agent-session-1" },
  };
}

function response(payload: Json): Json {
  return { family: "app_facade_response", payload };
}

async function sideEffects(): Promise<number> {
  const stub = env.CONSUMER.get(env.CONSUMER.idFromName(CONSUMER));
  return runInDurableObject(stub, (_instance, state) => {
    const rows = state.storage.sql
      .exec<{ value: number }>("SELECT value FROM counters WHERE name = 'side_effect_count'")
      .toArray();
    return rows[0]?.value ?? 0;
  });
}

async function pendingApprovals(): Promise<Json[]> {
  const res = await send("GET", `/v1/consumers/${CONSUMER}/approvals?state=pending`, creds.approver);
  expect(res.status).toBe(200);
  return ((await res.json()) as { approvals: Json[] }).approvals;
}

async function prepareRefund(operationId = "run-1:step:0:tool:call-1"): Promise<Json> {
  const answer = await post(
    facadeEnvelope("prepare", `prepare-${operationId}`, { request: request(DRAFTS, REFUND, operationId) }),
  );
  expect(answer.envelope.payload.payload.type).toBe("prepared");
  return answer.envelope.payload.payload.action as Json;
}

describe("invoke", () => {
  it("executes a read and answers its data as the facade result", async () => {
    const answer = await post(
      facadeEnvelope("invoke", "invoke-1", { request: request(ORDERS, { order_ref: "ORDER-7" }) }),
    );
    expect(answer.envelope).toEqual({
      metadata: replyMetadata("invoke-1"),
      payload: response({ type: "result", result: { value: { order_ref: "ORDER-7", status: "paid" } } }),
    });
  });

  it("answers the tool plane's catalog error when the user may not read the order", async () => {
    const answer = await post(
      facadeEnvelope("invoke", "invoke-2", { request: request(ORDERS, { order_ref: "ORDER-8" }) }),
    );
    expect(answer.envelope.payload).toEqual(
      response({
        type: "failed",
        code: "NOT_FOUND",
        message: "The resource does not exist or is inaccessible to the current principal.",
        retry_after_ms: null,
      }),
    );
  });

  it("refuses a write target (prepare first) and an unmapped target", async () => {
    const write = await post(facadeEnvelope("invoke", "invoke-3", { request: request(DRAFTS, REFUND) }));
    expect(write.envelope.payload).toEqual(
      response({
        type: "failed",
        code: "PREPARE_REQUIRED",
        message: "The target mutates state: prepare it, then commit.",
        retry_after_ms: null,
      }),
    );
    const unknown = await post(
      facadeEnvelope("invoke", "invoke-4", { request: request("/app/capability/invoke", {}) }),
    );
    expect(unknown.envelope.payload).toEqual(
      response({
        type: "failed",
        code: "UNKNOWN_TARGET",
        message: "The facade target is not mapped to a tool.",
        retry_after_ms: null,
      }),
    );
  });

  it("answers with the same deterministic message id for the same incoming message", async () => {
    const first = await post(
      facadeEnvelope("invoke", "invoke-5", { request: request(ORDERS, { order_ref: "ORDER-7" }) }),
    );
    const second = await post(
      facadeEnvelope("invoke", "invoke-5", { request: request(ORDERS, { order_ref: "ORDER-7" }) }),
    );
    const other = await post(
      facadeEnvelope("invoke", "invoke-6", { request: request(ORDERS, { order_ref: "ORDER-7" }) }),
    );
    expect(second.envelope.metadata.message_id).toBe(first.envelope.metadata.message_id);
    expect(other.envelope.metadata.message_id === first.envelope.metadata.message_id).toBe(false);
  });
});

describe("prepare, approve, commit", () => {
  it("prepares a write as an always-approve action and opens one pending approval", async () => {
    const action = await prepareRefund();
    expect(action).toEqual({
      action_id: expect.stringMatching(/^rta_[0-9a-f]{32}$/),
      operation_id: "run-1:step:0:tool:call-1",
      preview: {
        actionCode: "create_refund_draft",
        title: "Approve create_refund_draft",
        message: "Changes data through /app/refunds/draft.",
        tone: "danger",
        details: [
          { label: "order_ref", value: { type: "text", text: "ORDER-7" } },
          { label: "reason", value: { type: "text", text: "duplicate" } },
        ],
        proceedLabel: "Approve",
        rejectLabel: "Reject",
      },
      payload: {
        approval_id: expect.stringMatching(/^apr_[0-9a-f]{32}$/),
        request_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        target: DRAFTS,
        tool: "create_refund_draft",
      },
      revision: 1,
      approval: "always",
      interaction_kind: "approval",
    });
    const pending = await pendingApprovals();
    expect(pending.map((p) => [p.approval_id, p.tool, p.subject_id, p.arguments])).toEqual([
      [action.payload.approval_id, "create_refund_draft", "user-1", REFUND],
    ]);
    // A repeated prepare answers the same action and opens no second approval.
    const again = await prepareRefund();
    expect(again).toEqual(action);
    expect((await pendingApprovals()).length).toBe(1);
    expect(await sideEffects()).toBe(0);
  });

  it("commits once after approval; a commit before approval fails and a repeated commit returns the stored result", async () => {
    const action = await prepareRefund();
    const early = await post(facadeEnvelope("commit", "commit-0", { action }));
    expect(early.envelope.payload).toEqual(
      response({
        type: "failed",
        code: "APPROVAL_REQUIRED",
        message: "This action requires approval bound to the current arguments.",
        retry_after_ms: null,
      }),
    );
    expect(await sideEffects()).toBe(0);

    const [approval] = await pendingApprovals();
    const decided = await send("POST", `/v1/consumers/${CONSUMER}/approvals/${approval!.approval_id}`, creds.approver, {
      decision: "approve",
      approval_digest: approval!.approval_digest,
    });
    expect(decided.status).toBe(200);

    const committed = await post(facadeEnvelope("commit", "commit-1", { action }));
    expect(committed.envelope).toEqual({
      metadata: replyMetadata("commit-1"),
      payload: response({
        type: "result",
        result: { value: { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" } },
      }),
    });
    expect(await sideEffects()).toBe(1);
    // The run's audit entry names the approval it ran under (the facade's own, found by the facade's key).
    const auditor = (await credential(CONSUMER, "auditor")).secret;
    const audit = (await (await send("GET", `/v1/consumers/${CONSUMER}/audit?limit=100`, auditor)).json()) as {
      entries: Array<{ kind: string; record: Json }>;
    };
    const runs = audit.entries.filter(
      (e) =>
        e.kind === "tool_call" && e.record["tool"] === "create_refund_draft" && e.record["outcome"] === "succeeded",
    );
    expect(runs.map((e) => e.record["approval_id"])).toEqual([approval!.approval_id]);

    const repeated = await post(facadeEnvelope("commit", "commit-2", { action }));
    expect(repeated.envelope.payload).toEqual(committed.envelope.payload);
    expect(await sideEffects()).toBe(1);

    const late = await post(facadeEnvelope("reject", "reject-late", { action }));
    expect(late.envelope.payload).toEqual(
      response({
        type: "failed",
        code: "ACTION_COMMITTED",
        message: "The action was already committed and cannot be rejected.",
        retry_after_ms: null,
      }),
    );
  });

  it("answers APPROVAL_INVALID after a denial and never executes", async () => {
    const action = await prepareRefund();
    const [approval] = await pendingApprovals();
    await send("POST", `/v1/consumers/${CONSUMER}/approvals/${approval!.approval_id}`, creds.approver, {
      decision: "deny",
      approval_digest: approval!.approval_digest,
    });
    const commit = await post(facadeEnvelope("commit", "commit-denied", { action }));
    expect(commit.envelope.payload).toEqual(
      response({
        type: "failed",
        code: "APPROVAL_INVALID",
        message: "Approval expired or is not bound to the current request.",
        retry_after_ms: null,
      }),
    );
    expect(await sideEffects()).toBe(0);
  });

  it("refuses a commit of another user, of an unknown action, or after the target map changed", async () => {
    const action = await prepareRefund();
    const notFound = response({
      type: "failed",
      code: "ACTION_NOT_FOUND",
      message: "No such prepared action for this thread and user.",
      retry_after_ms: null,
    });
    expect((await post(facadeEnvelope("commit", "c-user", { action, userId: "user-2" }))).envelope.payload).toEqual(
      notFound,
    );
    expect(
      (await post(facadeEnvelope("commit", "c-unknown", { action: { ...action, action_id: "rta_unknown" } }))).envelope
        .payload,
    ).toEqual(notFound);
    expect(
      (await post(facadeEnvelope("commit", "c-op", { action: { ...action, operation_id: "other-op" } }))).envelope
        .payload,
    ).toEqual(notFound);

    await send("PUT", `/v1/consumers/${CONSUMER}/runtime/facade-targets`, ADMIN_TOKEN, {
      targets: { [DRAFTS]: "create_refund_draft" },
    });
    const stale = await post(facadeEnvelope("commit", "c-stale", { action }));
    expect(stale.envelope.payload).toEqual(
      response({
        type: "failed",
        code: "STALE_REVISION",
        message: "The facade revision changed since the action was prepared.",
        retry_after_ms: null,
      }),
    );
  });

  it("refuses a second prepare of the same operation with different input", async () => {
    await prepareRefund();
    const conflict = await post(
      facadeEnvelope("prepare", "p-conflict", {
        request: request(DRAFTS, { order_ref: "ORDER-7", reason: "damaged" }),
      }),
    );
    expect(conflict.envelope.payload).toEqual(
      response({
        type: "failed",
        code: "ACTION_CONFLICT",
        message: "The operation was already prepared with different input.",
        retry_after_ms: null,
      }),
    );
  });
});

describe("reject", () => {
  it("closes the action, withdraws its approval, and is idempotent; a later commit fails", async () => {
    const action = await prepareRefund("run-1:step:1:tool:call-2");
    const rejected = await post(facadeEnvelope("reject", "reject-1", { action }));
    expect(rejected.envelope).toEqual({ metadata: replyMetadata("reject-1"), payload: response({ type: "rejected" }) });
    expect(await pendingApprovals()).toEqual([]);
    const again = await post(facadeEnvelope("reject", "reject-2", { action }));
    expect(again.envelope.payload).toEqual(response({ type: "rejected" }));
    const commit = await post(facadeEnvelope("commit", "commit-after-reject", { action }));
    expect(commit.envelope.payload).toEqual(
      response({
        type: "failed",
        code: "ACTION_REJECTED",
        message: "The action was rejected and cannot be committed.",
        retry_after_ms: null,
      }),
    );
    expect(await sideEffects()).toBe(0);
  });
});

describe("facade-target map", () => {
  it("is admin-only and refuses tools nobody defined (422, naming them)", async () => {
    const asRuntime = await send("PUT", `/v1/consumers/${CONSUMER}/runtime/facade-targets`, creds.runtime, {
      targets: {},
    });
    expect(asRuntime.status).toBe(401);
    const bad = await send("PUT", `/v1/consumers/${CONSUMER}/runtime/facade-targets`, ADMIN_TOKEN, {
      targets: { "/app/x": "rm_rf" },
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as Json).code).toBe("UNKNOWN_TOOL_NAMES");
    const read = await gate(`/v1/consumers/${CONSUMER}/runtime/facade-targets`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(await read.json()).toEqual({
      targets: { [ORDERS]: "get_order", [DRAFTS]: "create_refund_draft" },
      revision: 1,
    });
  });
});

describe("a facade write in flight across a restart", () => {
  it("is recovered as an unknown outcome whose audit entry names the facade's approval", async () => {
    const SUBMIT = "/app/refunds/submit";
    const downstream = env.DOWNSTREAM;
    if (downstream === undefined) throw new Error("the tests' downstream is not bound");
    const control = (body: Json) =>
      downstream.fetch(
        new Request("http://downstream/_control", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
    const waiting = async () =>
      ((await (await downstream.fetch("http://downstream/_effects")).json()) as { waiting: number }).waiting;
    await createConsumer(CONSUMER, ["get_order", "create_refund_draft", "submit_refund"], ["approver-1"]);
    const put = await send("PUT", `/v1/consumers/${CONSUMER}/runtime/facade-targets`, ADMIN_TOKEN, {
      targets: { [ORDERS]: "get_order", [SUBMIT]: "submit_refund" },
    });
    expect(put.status).toBe(200);
    const prepared = await post(facadeEnvelope("prepare", "prepare-submit", { request: request(SUBMIT, REFUND) }));
    expect(prepared.envelope.payload.payload.type).toBe("prepared");
    const action = prepared.envelope.payload.payload.action as Json;
    const [approval] = await pendingApprovals();
    const decided = await send("POST", `/v1/consumers/${CONSUMER}/approvals/${approval!.approval_id}`, creds.approver, {
      decision: "approve",
      approval_digest: approval!.approval_digest,
    });
    expect(decided.status).toBe(200);

    await control({ mode: "hold" });
    const interrupted = send(
      "POST",
      `/v1/consumers/${CONSUMER}/runtime/envelopes`,
      creds.runtime,
      facadeEnvelope("commit", "commit-held", { action }),
    );
    while ((await waiting()) !== 1) await new Promise((r) => setTimeout(r, 5));
    await abortAllDurableObjects();
    await (await interrupted).body?.cancel();
    await control({ release: true });

    const auditor = (await credential(CONSUMER, "auditor")).secret;
    const audit = (await (await send("GET", `/v1/consumers/${CONSUMER}/audit?limit=100`, auditor)).json()) as {
      entries: Array<{ kind: string; record: Json }>;
    };
    const recovered = audit.entries.filter((e) => e.kind === "tool_call.recovered");
    expect(recovered.map((e) => [e.record["tool"], e.record["outcome"], e.record["approval_id"]])).toEqual([
      ["submit_refund", "unknown", approval!.approval_id],
    ]);
  });
});
