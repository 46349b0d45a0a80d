/**
 * Red-team: an approval opened by an App Facade prepare is bound to the call, not to the runtime
 * or its action: an agent credential of the same consumer that recomputes the facade's
 * deterministic call (rtc_/rtk_/rtr_ ids from thread, run, operation) executes the approved write
 * over /tool-calls, after the facade would refuse the commit (STALE_REVISION), and the facade
 * action never reads as committed.
 */
import { beforeEach, describe, expect, it } from "vitest";
import prepareFixture from "../../../fixtures/execution/app-facade-prepare.v1.json?raw";
import { canonicalJson, sha256Hex } from "../../../src/core/json";
import { ADMIN_TOKEN, createConsumer, credential, pinClock, send, wipe } from "../../kit";

const C = "tenant-a";
const DRAFTS = "/app/refunds/draft";
const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };
type Json = Record<string, any>;
const derived = (prefix: string, parts: string[]) => `${prefix}${sha256Hex(canonicalJson(parts)).slice(0, 32)}`;

let approver: string;
beforeEach(async () => {
  await wipe(C);
  await createConsumer(C, ["get_order", "create_refund_draft"], ["approver-1"]);
  await pinClock(C, 1_800_000_000);
  approver = (await credential(C, "approver", "approver-1")).secret;
  expect(
    (
      await send("PUT", `/v1/consumers/${C}/runtime/facade-targets`, ADMIN_TOKEN, {
        targets: { [DRAFTS]: "create_refund_draft" },
      })
    ).status,
  ).toBe(200);
});

function envelope(phase: string, messageId: string, body: { target?: string; input?: Json; action?: Json }): Json {
  const out = JSON.parse(prepareFixture) as Json;
  out.metadata.message_id = messageId;
  const payload = out.payload.payload as Json;
  payload.phase = phase;
  payload.context.actor.user_id = "user-1";
  if (body.action !== undefined) {
    delete payload.request;
    payload.action = body.action;
  } else payload.request = { operation_id: "op-x", target: body.target, input: body.input };
  return out;
}

async function facade(token: string, sent: Json): Promise<Json> {
  const res = await send("POST", `/v1/consumers/${C}/runtime/envelopes`, token, sent);
  expect(res.status).toBe(200);
  return ((await res.json()) as Json).payload.payload as Json;
}

describe("facade approvals", () => {
  it("an approved facade write runs only through the facade's commit", async () => {
    const runtime = (await credential(C, "runtime")).secret;
    const agent = (await credential(C, "agent")).secret;
    const sent = envelope("prepare", "p-1", { target: DRAFTS, input: REFUND });
    const prepared = await facade(runtime, sent);
    expect(prepared.type).toBe("prepared");
    const list = (await (await send("GET", `/v1/consumers/${C}/approvals?state=pending`, approver)).json()) as {
      approvals: Json[];
    };
    const [approval] = list.approvals;
    expect(
      (
        await send("POST", `/v1/consumers/${C}/approvals/${approval?.approval_id}`, approver, {
          decision: "approve",
          approval_digest: approval?.approval_digest,
        })
      ).status,
    ).toBe(200);
    // The admin remaps the facade: the runtime's commit is now refused.
    expect((await send("PUT", `/v1/consumers/${C}/runtime/facade-targets`, ADMIN_TOKEN, { targets: {} })).status).toBe(
      200,
    );
    expect((await facade(runtime, envelope("commit", "c-1", { action: prepared.action }))).code).toBe("STALE_REVISION");
    // Another credential recomputes the facade's call and runs it over /tool-calls.
    const ctx = sent.payload.payload.context as Json;
    const parts = ["toolgate.runtime.v1", ctx.thread_id, ctx.run_id, "op-x"];
    const actionId = derived("rta_", ["action", ...parts]);
    const agentCall = {
      principal: { subject_id: "user-1", roles: [] },
      proposal: { name: "create_refund_draft", arguments: REFUND },
      context: {
        call_id: derived("rtc_", ["call", ...parts]),
        operation_id: "op-x",
        idempotency_key: derived("rtk_", ["idempotency", "toolgate.runtime.v1", actionId, "op-x"]),
        provider: "openai",
        api_family: "responses",
        response_id: derived("rtr_", ["response", "toolgate.runtime.v1", ctx.thread_id, ctx.run_id]),
        adapter_revision: "openai-responses-v1",
      },
    };
    const res = await send("POST", `/v1/consumers/${C}/tool-calls`, agent, agentCall);
    const body = (await res.json()) as Json;
    // Observed on HEAD: [200, "committed"] -- the write ran outside the facade.
    const ran = [res.status, body.model_result?.execution?.outcome, body.model_result?.error?.code];
    expect(ran).toEqual([200, "not_started", "APPROVAL_REQUIRED"]);
    // The agent's call waits for its own approval; once a human grants that one, it runs on the agent path.
    const pending = (await (await send("GET", `/v1/consumers/${C}/approvals?state=pending`, approver)).json()) as {
      approvals: Json[];
    };
    expect(pending.approvals.map((a) => a.approval_id === approval?.approval_id)).toEqual([false]);
    const [own] = pending.approvals;
    expect(
      (
        await send("POST", `/v1/consumers/${C}/approvals/${own?.approval_id}`, approver, {
          decision: "approve",
          approval_digest: own?.approval_digest,
        })
      ).status,
    ).toBe(200);
    const again = (await (await send("POST", `/v1/consumers/${C}/tool-calls`, agent, agentCall)).json()) as Json;
    expect(again.model_result?.execution?.outcome).toBe("committed");
    // Observed on HEAD: "rejected" -- the facade withdrew an action whose write had run.
    const rejected = await facade(runtime, envelope("reject", "r-1", { action: prepared.action }));
    expect({ ran, rejected: [rejected.type, rejected.code] }).toEqual({
      ran: [200, "not_started", "APPROVAL_REQUIRED"],
      rejected: ["failed", "ACTION_COMMITTED"],
    });
  });

  it("a reject before anything ran closes the action", async () => {
    const runtime = (await credential(C, "runtime")).secret;
    const prepared = await facade(runtime, envelope("prepare", "p-1", { target: DRAFTS, input: REFUND }));
    expect(prepared.type).toBe("prepared");
    expect((await facade(runtime, envelope("reject", "r-1", { action: prepared.action }))).type).toBe("rejected");
    expect((await facade(runtime, envelope("reject", "r-2", { action: prepared.action }))).type).toBe("rejected");
  });
});
