/**
 * Runtime credentials carry the principal modes and tool scope of agent credentials, and the App
 * Facade applies them in every phase exactly as `/tool-calls` does: a subject-bound one acts only
 * for its subject, a host one for any user with roles within its allow-list, a scoped one only
 * through its tools.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import prepareFixture from "../../../fixtures/execution/app-facade-prepare.v1.json?raw";
import { ADMIN_TOKEN, createConsumer, credential, pinClock, send, wipe } from "../../kit";
import { opened, runtimeUpgrade } from "./socket-client";

// The demo catalog's orders belong to tenant-a (ORDER-7 is user-1's).
const C = "tenant-a";
const T0 = 1_800_000_000;
const ORDERS = "/app/orders/get";
const DRAFTS = "/app/refunds/draft";
const REFUND = { order_ref: "ORDER-7", reason: "duplicate" };

type Json = Record<string, any>;

let approver: string;

beforeEach(async () => {
  await wipe(C);
  await createConsumer(C, ["get_order", "create_refund_draft"], ["approver-1"]);
  await pinClock(C, T0);
  approver = (await credential(C, "approver", "approver-1")).secret;
  const put = await send("PUT", `/v1/consumers/${C}/runtime/facade-targets`, ADMIN_TOKEN, {
    targets: { [ORDERS]: "get_order", [DRAFTS]: "create_refund_draft" },
  });
  expect(put.status).toBe(200);
});

/** The golden prepare envelope with one phase, message id, user and request (or action); each request its own operation. */
function envelope(
  phase: string,
  messageId: string,
  body: { target?: string; input?: Json; action?: Json; userId?: string },
): Json {
  const out = JSON.parse(prepareFixture) as Json;
  out.metadata.message_id = messageId;
  const payload = out.payload.payload as Json;
  payload.phase = phase;
  payload.context.actor.user_id = body.userId ?? "user-1";
  if (body.action !== undefined) {
    delete payload.request;
    payload.action = body.action;
  } else {
    payload.request = { operation_id: `run-1:${messageId}`, target: body.target, input: body.input };
  }
  return out;
}

/** Posts one envelope; answers the facade answer (`payload.payload` of the reply). */
async function facade(token: string, sent: Json): Promise<Json> {
  const res = await send("POST", `/v1/consumers/${C}/runtime/envelopes`, token, sent);
  expect(res.status).toBe(200);
  return ((await res.json()) as Json).payload.payload as Json;
}

const failed = (code: string, message: string) => ({ type: "failed", code, message, retry_after_ms: null });
const MISMATCH = failed("PRINCIPAL_MISMATCH", "This credential does not act for this user.");
const OUT_OF_SCOPE = failed("TOOL_NOT_IN_SCOPE", "This credential may not call this target's tool.");
const NOT_FOUND = failed("ACTION_NOT_FOUND", "No such prepared action for this thread and user.");
const READ = { target: ORDERS, input: { order_ref: "ORDER-7" } };

async function pending(): Promise<Json[]> {
  const res = await send("GET", `/v1/consumers/${C}/approvals?state=pending`, approver);
  return ((await res.json()) as { approvals: Json[] }).approvals;
}

describe("runtime credentials and the principal", () => {
  it("hole: a subject-bound runtime credential acts only for its subject, over HTTP and its socket", async () => {
    const bound = (await credential(C, "runtime", "user-1")).secret;
    expect(await facade(bound, envelope("invoke", "i-1", READ))).toEqual({
      type: "result",
      result: { value: { order_ref: "ORDER-7", status: "paid" } },
    });
    expect(await facade(bound, envelope("invoke", "i-2", { ...READ, userId: "user-2" }))).toEqual(MISMATCH);
    expect(
      await facade(bound, envelope("prepare", "p-1", { target: DRAFTS, input: REFUND, userId: "user-2" })),
    ).toEqual(MISMATCH);
    expect(await pending()).toEqual([]);
    const socket = opened(await runtimeUpgrade(C, bound));
    socket.ws.send(JSON.stringify(envelope("invoke", "i-3", { ...READ, userId: "user-2" })));
    expect((JSON.parse(await socket.next()) as Json).payload.payload).toEqual(MISMATCH);
    socket.ws.close(1000, "done");
  });

  it("hole: a commit executes the stored call only with a credential allowed its principal's roles", async () => {
    const bound = (await credential(C, "runtime", "user-1", { roles: ["support"] })).secret;
    const host = (await credential(C, "runtime")).secret;
    const prepared = await facade(bound, envelope("prepare", "p-2", { target: DRAFTS, input: REFUND }));
    expect(prepared.type).toBe("prepared");
    // The subject-bound credential's calls carry its roles (an envelope names none of its own).
    const stored = await runInDurableObject(env.CONSUMER.get(env.CONSUMER.idFromName(C)), (_object, state) =>
      state.storage.sql
        .exec<{ request: string }>("SELECT request FROM runtime_actions")
        .toArray()
        .map((row) => (JSON.parse(row.request) as Json).principal),
    );
    expect(stored).toEqual([{ subject_id: "user-1", roles: ["support"] }]);
    const [approval] = await pending();
    const decided = await send("POST", `/v1/consumers/${C}/approvals/${approval?.approval_id}`, approver, {
      decision: "approve",
      approval_digest: approval?.approval_digest,
    });
    expect(decided.status).toBe(200);
    expect(await facade(host, envelope("commit", "c-1", { action: prepared.action }))).toEqual(
      failed("ROLE_NOT_ALLOWED", "This credential may not act with the action's roles."),
    );
    expect(await facade(bound, envelope("commit", "c-2", { action: prepared.action }))).toEqual({
      type: "result",
      result: { value: { draft_id: "DRAFT-1", order_ref: "ORDER-7", reason: "duplicate" } },
    });
  });
});

describe("runtime credentials and the tool scope", () => {
  it("hole: a scoped runtime credential reaches only its tools; other targets, mapped or not, are the one refusal", async () => {
    const scoped = (await credential(C, "runtime", undefined, { tools: ["get_order"] })).secret;
    const unscoped = (await credential(C, "runtime")).secret;
    expect(await facade(scoped, envelope("invoke", "s-1", READ))).toEqual({
      type: "result",
      result: { value: { order_ref: "ORDER-7", status: "paid" } },
    });
    expect(await facade(scoped, envelope("prepare", "s-2", { target: DRAFTS, input: REFUND }))).toEqual(OUT_OF_SCOPE);
    expect(await facade(scoped, envelope("invoke", "s-3", { target: "/app/unmapped", input: {} }))).toEqual(
      OUT_OF_SCOPE,
    );
    expect(await pending()).toEqual([]);
    // An action of a tool outside the scope reads as missing, to commit and to reject.
    const prepared = await facade(unscoped, envelope("prepare", "s-4", { target: DRAFTS, input: REFUND }));
    expect(await facade(scoped, envelope("commit", "s-5", { action: prepared.action }))).toEqual(NOT_FOUND);
    expect(await facade(scoped, envelope("reject", "s-6", { action: prepared.action }))).toEqual(NOT_FOUND);
    expect((await pending()).length).toBe(1);
    // Unscoped, an unmapped target is still UNKNOWN_TARGET.
    expect(await facade(unscoped, envelope("invoke", "s-7", { target: "/app/unmapped", input: {} }))).toEqual(
      failed("UNKNOWN_TARGET", "The facade target is not mapped to a tool."),
    );
  });
});

describe("runtime credential creation", () => {
  it("takes an agent's fields, refuses a token-verified one, and keeps a runtime credential issued before them a host", async () => {
    const res = await send("POST", `/v1/consumers/${C}/credentials`, ADMIN_TOKEN, {
      kind: "runtime",
      subject_id: "user-1",
      roles: ["support"],
      tools: ["get_order"],
    });
    const created = (await res.json()) as Json;
    expect([res.status, created.kind, created.subject_id, created.principal, created.roles, created.tools]).toEqual([
      201,
      "runtime",
      "user-1",
      "subject",
      ["support"],
      ["get_order"],
    ]);
    const token = await send("POST", `/v1/consumers/${C}/credentials`, ADMIN_TOKEN, {
      kind: "runtime",
      principal: "token",
    });
    expect([token.status, ((await token.json()) as Json).code]).toEqual([400, "INVALID_REQUEST"]);
    const plain = await credential(C, "runtime");
    // A runtime credential stored before principal modes (no mode) is a host credential with no roles.
    await runInDurableObject(env.CONSUMER.get(env.CONSUMER.idFromName(C)), (_object, state) => {
      state.storage.sql.exec("UPDATE credentials SET principal = NULL WHERE credential_id = ?", plain.id);
    });
    const listed = (await (await send("GET", `/v1/consumers/${C}/credentials`, ADMIN_TOKEN)).json()) as {
      credentials: Json[];
    };
    const legacy = listed.credentials.find((c) => c.credential_id === plain.id);
    expect([legacy?.principal, legacy?.roles, legacy?.tools]).toEqual(["host", [], null]);
    expect(await facade(plain.secret, envelope("invoke", "l-1", { ...READ, userId: "user-2" }))).toEqual(
      failed("NOT_FOUND", "The resource does not exist or is inaccessible to the current principal."),
    );
  });
});
