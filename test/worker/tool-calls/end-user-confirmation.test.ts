/**
 * Issue #30 item 3: a tool whose writes its end user confirms (`confirmed_by: "end_user"`). The
 * approval is the gate's own (bound to the request digest, single use, audited); only the
 * requesting end user, proven by the verified principal token its call carried, may approve it
 * through `POST …/approvals/{id}/confirmation`; the consumer's approvers may deny it, never
 * approve it; a call without a verified end user falls back to the approvers. The target is the
 * test ledger (test/support/ledger-service.ts), which counts each write it receives.
 */
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adminClient, context, credential, freshConsumer, gate, secretOf, send, setupConsumer } from "../../kit";
import { INVOICE as LEDGER_INVOICE } from "../../support/ledger-tools";

const T0 = 1_784_419_200;
const ISSUER = "https://login.example.test/";
const AUDIENCE = "toolgate-end-user";

/** The ledger's create_invoice, asking on every call (no rule), its secret header kept. */
const { approval: _rule, ...EVERY_CALL_ASKS } = LEDGER_INVOICE;
const INVOICE = (extra: Record<string, unknown> = {}) => ({
  ...EVERY_CALL_ASKS,
  target: {
    kind: "http",
    url: "https://ledger.test/invoices",
    secret_headers: { authorization: { secret: "ledger_token", prefix: "Bearer " } },
  },
  ...extra,
});

let signing: { privateKey: CryptoKey; jwk: JWK };

beforeAll(async () => {
  const pair = await generateKeyPair("ES256");
  signing = { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" } };
});

function jwt(subject: string): Promise<string> {
  return new SignJWT({ sub: subject })
    .setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(T0)
    .setExpirationTime(T0 + 3600)
    .sign(signing.privateKey);
}

async function ledger(path: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(
    `https://ledger.test${path}`,
    body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
  );
  return (await res.json()) as Record<string, any>;
}

/** The writes the ledger received (each status_ref once). */
async function writes(): Promise<number> {
  const state = await ledger("/_state");
  return Object.values(state.posts as Record<string, number>).reduce((a, b) => a + b, 0);
}

interface Setup {
  consumer: string;
  /** A token-verified agent credential (the end user's JWT with each call). */
  agent: string;
  /** A host agent credential (no end user verified). */
  host: string;
  approver: string;
  auditor: string;
}

async function setup(): Promise<Setup> {
  const consumer = freshConsumer("end-user");
  await setupConsumer(consumer, {
    config: {
      approver_subjects: ["rev-1"],
      principal_tokens: { issuer: ISSUER, audience: AUDIENCE, jwks: { keys: [signing.jwk] } },
      standing_approvals: { tools: ["create_invoice"], max_seconds: 3600, max_calls: 5 },
    },
    secrets: { ledger_token: "s3cret-token" },
    definitions: { create_invoice: INVOICE({ confirmed_by: "end_user" }) },
    tools: ["create_invoice"],
    clock: T0,
  });
  return {
    consumer,
    agent: await secretOf(consumer, "agent", undefined, { principal: "token" }),
    host: await secretOf(consumer, "agent"),
    approver: await secretOf(consumer, "approver", "rev-1"),
    auditor: await secretOf(consumer, "auditor"),
  };
}

async function json(res: Response): Promise<{ status: number; body: Record<string, any> }> {
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** One call of create_invoice with an idempotency key (a repeat is the same call). */
function invoice(s: Setup, key: string, args: Record<string, unknown>, who: { token?: string; host?: boolean }) {
  return send("POST", `/v1/consumers/${s.consumer}/tool-calls`, who.host === true ? s.host : s.agent, {
    ...(who.token === undefined ? {} : { principal_token: who.token }),
    ...(who.host === true ? { principal: { subject_id: "user-1", roles: [] } } : {}),
    proposal: { name: "create_invoice", arguments: args },
    context: context(`call-${key}`, { key }),
  }).then(json);
}

function confirm(s: Setup, approvalId: string, body: Record<string, unknown>, secret = s.agent) {
  return send("POST", `/v1/consumers/${s.consumer}/approvals/${approvalId}/confirmation`, secret, body).then(json);
}

async function status(s: Setup, approvalId: string, secret = s.agent): Promise<Record<string, any>> {
  return (await json(await send("GET", `/v1/consumers/${s.consumer}/approvals/${approvalId}`, secret))).body;
}

async function pendingView(s: Setup, approvalId: string): Promise<Record<string, any>> {
  const list = (await json(await send("GET", `/v1/consumers/${s.consumer}/approvals`, s.approver))).body;
  const view = (list.approvals as Array<Record<string, any>>).find((a) => a.approval_id === approvalId);
  if (view === undefined) throw new Error("the approval is not pending");
  return view;
}

function approverDecides(s: Setup, view: Record<string, any>, decision: string) {
  return send("POST", `/v1/consumers/${s.consumer}/approvals/${view.approval_id}`, s.approver, {
    decision,
    approval_digest: view.approval_digest,
    ...(decision === "edit" ? { arguments: { customer: "acme", amount: 5 } } : {}),
  }).then(json);
}

beforeEach(async () => {
  await ledger("/_control", { reset: true, token: "s3cret-token" });
});

describe("confirmed_by in a tool's definition", () => {
  it("is kept and shown for a write, declared to adapters in json-schema, and refused on a read with its pointer", async () => {
    const s = await setup();
    const admin = adminClient(s.consumer).call;
    const shown = await admin("GET", "/tools/create_invoice");
    expect(shown.body?.history[0].definition.confirmed_by).toBe("end_user");
    const declared = await json(await send("GET", `/v1/consumers/${s.consumer}/tools?format=json-schema`, s.agent));
    expect(declared.body.tools.map((t: Record<string, unknown>) => [t["name"], t["confirmed_by"]])).toEqual([
      ["create_invoice", "end_user"],
    ]);
    // The vendors' formats carry no member their APIs do not know.
    const openai = await json(await send("GET", `/v1/consumers/${s.consumer}/tools?format=openai`, s.agent));
    expect(Object.keys(openai.body.tools[0]).sort()).toEqual(["description", "name", "parameters", "strict", "type"]);
    const read = await admin("PUT", "/tools/lookup", {
      ...INVOICE({ confirmed_by: "end_user" }),
      risk: "read",
      output: { schema: { type: "object" } },
    });
    expect([read.status, read.body?.code, read.body?.path]).toEqual([422, "INVALID_TOOL_DEFINITION", "/confirmed_by"]);
    const approvers = await admin("PUT", "/tools/approved_invoice", INVOICE({ confirmed_by: "approvers" }));
    expect(approvers.status).toBe(200);
  });
});

describe("the end user confirms in chat", () => {
  it("the requesting end user approves its own call with its token: the same call then runs once", async () => {
    const s = await setup();
    const token = await jwt("user-1");
    const args = { customer: "acme", amount: 700 };
    const first = await invoice(s, "k-1", args, { token });
    expect([first.status, first.body.model_result.error.code]).toEqual([200, "APPROVAL_REQUIRED"]);
    const id = first.body.approval_id as string;
    const pending = await status(s, id);
    expect([pending.state, pending.subject_id, pending.confirmed_by]).toEqual(["pending", "user-1", "end_user"]);
    expect((await pendingView(s, id)).confirmed_by).toBe("end_user");
    const decided = await confirm(s, id, {
      decision: "approve",
      principal_token: token,
      request_sha256: pending.request_sha256,
    });
    expect([decided.status, decided.body.state, decided.body.approver_id, decided.body.decided_by]).toEqual([
      200,
      "approved",
      "user-1",
      "end_user",
    ]);
    expect(await writes()).toBe(0);
    const ran = await invoice(s, "k-1", args, { token });
    expect([ran.body.model_result.status, ran.body.model_result.data]).toEqual([
      "succeeded",
      { invoice_id: "INV-1", customer: "acme", amount: 700 },
    ]);
    const replay = await invoice(s, "k-1", args, { token });
    expect(replay.body.model_result.execution.delivery).toBe("local_replay");
    expect(await writes()).toBe(1);
    const after = await status(s, id);
    expect([after.state, after.approver_id, after.decided_by]).toEqual(["approved", "user-1", "end_user"]);
    const audit = (await json(await send("GET", `/v1/consumers/${s.consumer}/audit?limit=100`, s.auditor))).body;
    const decision = (audit.entries as Array<{ kind: string; record: Record<string, unknown> }>).find(
      (e) => e.kind === "approval.decision",
    );
    expect([decision?.record["approver_id"], decision?.record["decided_by"], decision?.record["state"]]).toEqual([
      "user-1",
      "end_user",
      "approved",
    ]);
    expect(decision?.record["request_sha256"]).toBe(pending.request_sha256);
  });

  it("another end user's token, no token, a wrong digest and a decided approval are refused; nothing runs", async () => {
    const s = await setup();
    const token = await jwt("user-1");
    const first = await invoice(s, "k-2", { customer: "acme", amount: 300 }, { token });
    const id = first.body.approval_id as string;
    const digest = (await status(s, id)).request_sha256 as string;
    const other = await confirm(s, id, {
      decision: "approve",
      principal_token: await jwt("user-2"),
      request_sha256: digest,
    });
    expect([other.status, other.body.code]).toEqual([403, "PRINCIPAL_MISMATCH"]);
    const none = await confirm(s, id, { decision: "approve", request_sha256: digest });
    expect([none.status, none.body.code]).toEqual([400, "INVALID_REQUEST"]);
    const forged = await confirm(s, id, { decision: "approve", principal_token: "x.y.z", request_sha256: digest });
    expect([forged.status, forged.body.code]).toEqual([403, "PRINCIPAL_TOKEN_REJECTED"]);
    const wrong = await confirm(s, id, { decision: "approve", principal_token: token, request_sha256: "0".repeat(64) });
    expect([wrong.status, wrong.body.code]).toEqual([409, "APPROVAL_DIGEST_MISMATCH"]);
    // The approver credential cannot relay a confirmation; another agent credential does not see the approval.
    const byApprover = await confirm(
      s,
      id,
      { decision: "approve", principal_token: token, request_sha256: digest },
      s.approver,
    );
    expect([byApprover.status, byApprover.body.code]).toEqual([403, "FORBIDDEN"]);
    const otherAgent = (await credential(s.consumer, "agent", undefined, { principal: "token" })).secret;
    const notOpener = await confirm(
      s,
      id,
      { decision: "approve", principal_token: token, request_sha256: digest },
      otherAgent,
    );
    expect([notOpener.status, notOpener.body.code]).toEqual([404, "NOT_FOUND"]);
    expect((await status(s, id)).state).toBe("pending");
    const again = await invoice(s, "k-2", { customer: "acme", amount: 300 }, { token });
    expect([again.body.model_result.error.code, again.body.approval_id]).toEqual(["APPROVAL_REQUIRED", id]);
    expect(await writes()).toBe(0);
  });

  it("an approver may deny an end user's approval but not approve or edit it; the denial refuses the call", async () => {
    const s = await setup();
    const token = await jwt("user-1");
    const first = await invoice(s, "k-3", { customer: "acme", amount: 400 }, { token });
    const view = await pendingView(s, first.body.approval_id as string);
    const approve = await approverDecides(s, view, "approve");
    expect([approve.status, approve.body.code]).toEqual([403, "END_USER_CONFIRMS"]);
    const edit = await approverDecides(s, view, "edit");
    expect([edit.status, edit.body.code]).toEqual([403, "END_USER_CONFIRMS"]);
    const deny = await approverDecides(s, view, "deny");
    expect([deny.status, deny.body.state, deny.body.approver_id, deny.body.decided_by]).toEqual([
      200,
      "denied",
      "rev-1",
      undefined,
    ]);
    const refused = await invoice(s, "k-3", { customer: "acme", amount: 400 }, { token });
    expect(refused.body.model_result.error.code).toBe("APPROVAL_INVALID");
    expect(await writes()).toBe(0);
  });

  it("the approver's console offers only Deny for an end user's approval, and says who confirms", async () => {
    const s = await setup();
    const first = await invoice(s, "k-console", { customer: "acme", amount: 400 }, { token: await jwt("user-1") });
    const id = first.body.approval_id as string;
    const signedIn = await gate("/console/session", {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://gate" },
      body: new URLSearchParams({ consumer: s.consumer, credential: s.approver }).toString(),
    });
    expect(signedIn.status).toBe(303);
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const page = await (await gate(`/console/approvals/${id}`, { headers: { cookie } })).text();
    const buttons = [...page.matchAll(/<button type="submit" name="decision" value="([a-z]+)"/g)].map((m) => m[1]);
    expect(buttons).toEqual(["deny"]);
    expect(page).toContain(
      '<dt>Who confirms</dt><dd class="end-user">The end user who asked, <code>user-1</code>, confirms this call in the agent\'s chat. You may deny it; you cannot approve or edit it.</dd>',
    );
  });

  it("the end user denies in chat: the gate records it and the call is refused", async () => {
    const s = await setup();
    const token = await jwt("user-1");
    const first = await invoice(s, "k-4", { customer: "acme", amount: 500 }, { token });
    const id = first.body.approval_id as string;
    const digest = (await status(s, id)).request_sha256 as string;
    const denied = await confirm(s, id, { decision: "deny", principal_token: token, request_sha256: digest });
    expect([denied.status, denied.body.state, denied.body.decided_by, denied.body.valid_until]).toEqual([
      200,
      "denied",
      "end_user",
      null,
    ]);
    const twice = await confirm(s, id, { decision: "approve", principal_token: token, request_sha256: digest });
    expect([twice.status, twice.body.code]).toEqual([409, "APPROVAL_ALREADY_DECIDED"]);
    const refused = await invoice(s, "k-4", { customer: "acme", amount: 500 }, { token });
    expect(refused.body.model_result.error.code).toBe("APPROVAL_INVALID");
    expect(await writes()).toBe(0);
  });

  it("the approval binds the exact arguments: edited arguments do not run, under the same call or a new one", async () => {
    const s = await setup();
    const token = await jwt("user-1");
    const first = await invoice(s, "k-5", { customer: "acme", amount: 600 }, { token });
    const id = first.body.approval_id as string;
    const digest = (await status(s, id)).request_sha256 as string;
    expect((await confirm(s, id, { decision: "approve", principal_token: token, request_sha256: digest })).status).toBe(
      200,
    );
    const edited = await invoice(s, "k-5", { customer: "acme", amount: 60_000 }, { token });
    expect([edited.body.model_result.status, edited.body.model_result.error.code]).toEqual([
      "failed",
      "CALL_ID_CONFLICT",
    ]);
    // Another call with the edited arguments waits for its own confirmation.
    const other = await invoice(s, "k-5b", { customer: "acme", amount: 60_000 }, { token });
    expect(other.body.model_result.error.code).toBe("APPROVAL_REQUIRED");
    expect(other.body.approval_id).not.toBe(id);
    expect(await writes()).toBe(0);
    const exact = await invoice(s, "k-5", { customer: "acme", amount: 600 }, { token });
    expect(exact.body.model_result.data).toEqual({ invoice_id: "INV-1", customer: "acme", amount: 600 });
    expect(await writes()).toBe(1);
  });

  it("an approvers' standing approval never covers a call its end user confirms", async () => {
    const s = await setup();
    const token = await jwt("user-1");
    const granted = await send("POST", `/v1/consumers/${s.consumer}/standing-approvals`, s.approver, {
      tool: "create_invoice",
      subject_id: "user-1",
      seconds: 600,
      max_calls: 3,
    });
    expect(granted.status).toBe(201);
    const held = await invoice(s, "k-7", { customer: "acme", amount: 50 }, { token });
    expect(held.body.model_result.error.code).toBe("APPROVAL_REQUIRED");
    expect((await status(s, held.body.approval_id as string)).confirmed_by).toBe("end_user");
    expect(await writes()).toBe(0);
  });

  it("a call without a verified end user falls back to the approvers: the confirmation route refuses it", async () => {
    const s = await setup();
    const first = await invoice(s, "k-6", { customer: "acme", amount: 800 }, { host: true });
    const id = first.body.approval_id as string;
    const pending = await status(s, id, s.host);
    expect([pending.state, pending.confirmed_by]).toEqual(["pending", undefined]);
    // The host credential is not token-verified; the token-verified one did not open it.
    const byHost = await confirm(
      s,
      id,
      { decision: "approve", principal_token: await jwt("user-1"), request_sha256: pending.request_sha256 },
      s.host,
    );
    expect([byHost.status, byHost.body.code]).toEqual([403, "FORBIDDEN"]);
    const view = await pendingView(s, id);
    expect(view.confirmed_by).toBe(undefined);
    const approved = await approverDecides(s, view, "approve");
    expect([approved.status, approved.body.state, approved.body.approver_id]).toEqual([200, "approved", "rev-1"]);
    const ran = await invoice(s, "k-6", { customer: "acme", amount: 800 }, { host: true });
    expect(ran.body.model_result.data).toEqual({ invoice_id: "INV-1", customer: "acme", amount: 800 });
    expect(await writes()).toBe(1);
  });
});
