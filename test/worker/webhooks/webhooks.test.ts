/**
 * Issue #15, notifications: webhook endpoints of a consumer's events, delivered from the
 * object's alarm to a receiver (test/support/webhook-receiver.ts, behind workerd's outbound fetch
 * at https://hooks.test) that verifies every delivery with the `standardwebhooks` library and
 * dedupes by `webhook-id`. Real flows: an agent's write opens an approval, an approver decides it,
 * a data tool's outcome becomes unknown and is reconciled.
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { SecretVault } from "../../../src/worker/features/secrets/vault";
import { publicOrigin, WebhookService } from "../../../src/worker/features/webhooks/service";
import {
  ADMIN_TOKEN,
  adminClient,
  context,
  credential,
  pinClock,
  secretOf,
  send,
  setupConsumer,
  type ToolCallAnswer,
  wipe,
} from "../../kit";

const T0 = 1_784_419_200;
/** T0 in ISO 8601 (the payload's `timestamp`), written out by hand. */
const T0_ISO = "2026-07-19T00:00:00Z";
const C = "webhooks-a";
const BASE = `/v1/consumers/${C}`;
const ARGS = { customer: "cust-seven", amount: 7 };
const RATES = { calls_per_second: 1000, call_burst: 1000 };
const HOOKS = "https://hooks.test";

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  verified: boolean;
  error: string | null;
  status: number;
}

interface Delivery {
  delivery_id: string;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  state: string;
  failure: string | null;
  attempts: Array<{
    attempt: number;
    at: number;
    status_code: number | null;
    duration_ms: number;
    error: string | null;
  }>;
  next_attempt_at: number | null;
  created_at: number;
  finished_at: number | null;
  redelivery_of: string | null;
}

async function receiver(
  path: "/_control" | "/_state",
  body?: unknown,
): Promise<{ received: Received[]; effects: Array<{ path: string; id: string; type: string }> }> {
  const res = await fetch(`${HOOKS}${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) });
  return (await res.json()) as { received: Received[]; effects: Array<{ path: string; id: string; type: string }> };
}

async function ledger(body: unknown): Promise<void> {
  await fetch("https://ledger.test/_control", { method: "POST", body: JSON.stringify(body) });
}

const admin = adminClient(C).read;

const stub = () => env.CONSUMER.get(env.CONSUMER.idFromName(C));

/** Runs the object's alarm now; when it already fired, its handler (which waits for a run under way). */
async function deliver(): Promise<void> {
  if (!(await runDurableObjectAlarm(stub()))) await runInDurableObject(stub(), (object) => object.alarm());
}

const OBJECT = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const INVOICE_IN = OBJECT({ customer: { type: "string" }, amount: { type: "integer" } });
const INVOICE_OUT = {
  schema: OBJECT({ invoice_id: { type: "string" }, customer: { type: "string" }, amount: { type: "integer" } }),
};
/** A write that always needs an approval (the ledger is never reached before one). */
const INVOICE = {
  description: "Create an invoice.",
  risk: "write",
  input: INVOICE_IN,
  output: INVOICE_OUT,
  target: { kind: "http", url: "https://ledger.test/invoices" },
};
/** A write without approvals whose unknown outcome is reconciled through the ledger's status URL. */
const POST_INVOICE = {
  ...INVOICE,
  approval: "never",
  target: {
    kind: "http",
    url: "https://ledger.test/invoices",
    status_url: "https://ledger.test/invoices/status/{status_ref}",
    fence_url: "https://ledger.test/invoices/status/{status_ref}/fence",
  },
};

async function setup(limits: Record<string, number> = {}) {
  const definitions = { create_invoice: INVOICE, post_invoice: POST_INVOICE };
  await setupConsumer(C, {
    first: { approver_subjects: ["rev-1"] },
    config: { approver_subjects: ["rev-1"], limits: { ...RATES, ...limits } },
    definitions,
    tools: ["create_invoice", "post_invoice"],
    clock: T0,
  });
  return { agent: await secretOf(C, "agent"), approver: await secretOf(C, "approver", "rev-1") };
}

/** Creates an endpoint at https://hooks.test/<name> and tells the receiver its secret. */
async function endpoint(
  name: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; secret: string; body: Record<string, any> }> {
  const created = await admin("POST", "/webhooks", { url: `${HOOKS}/${name}`, ...extra });
  expect(created.status).toBe(201);
  const body = created.body as Record<string, any>;
  await receiver("/_control", { secret: { path: `/${name}`, secret: body.secret } });
  return { id: body.endpoint_id, secret: body.secret, body };
}

let calls = 0;
async function invoice(agent: string, args: Record<string, unknown> = ARGS): Promise<string> {
  calls += 1;
  const res = await send("POST", `${BASE}/tool-calls`, agent, {
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name: "create_invoice", arguments: args },
    context: context(`call-${calls}`, { key: `key-${calls}` }),
  });
  const body = (await res.json()) as ToolCallAnswer;
  expect(body.model_result.error?.code).toBe("APPROVAL_REQUIRED");
  return body.approval_id as string;
}

async function pendingView(approver: string, id: string): Promise<Record<string, any>> {
  const list = (await (await send("GET", `${BASE}/approvals?state=pending`, approver)).json()) as {
    approvals: Array<Record<string, any>>;
  };
  const view = list.approvals.find((a) => a.approval_id === id);
  if (view === undefined) throw new Error("the approval is not listed");
  return view;
}

async function decide(approver: string, id: string, decision: "approve" | "deny" = "approve"): Promise<void> {
  const view = await pendingView(approver, id);
  const res = await send("POST", `${BASE}/approvals/${id}`, approver, {
    decision,
    approval_digest: view.approval_digest,
  });
  expect(res.status).toBe(200);
}

async function deliveries(
  query = "",
): Promise<{ status: number; text: string; body: { deliveries: Delivery[]; next_cursor: string | null } }> {
  const res = await admin("GET", `/webhooks/deliveries${query}`);
  return {
    status: res.status,
    text: res.text,
    body: res.body as { deliveries: Delivery[]; next_cursor: string | null },
  };
}

const parsed = (r: Received) =>
  JSON.parse(r.body) as { type: string; timestamp: string; data: Record<string, unknown> };

/** The approval's data as the events carry it (arguments only where asked). */
function approvalData(
  view: Record<string, any>,
  state: string,
  decision: { approver_id: string | null; decided_at: number | null; valid_until: number | null },
) {
  return {
    approval_id: view.approval_id,
    state,
    tool: "create_invoice",
    subject_id: "user-1",
    operation_id: view.operation_id,
    call_id: view.call_id,
    request_sha256: view.request_sha256,
    requested_at: T0,
    expires_at: view.expires_at,
    ...decision,
    // The origin of the gate's TOOLGATE_PUBLIC_URL (vitest.config.ts), never its path.
    console_url: `https://gate.test/console/approvals/${view.approval_id}`,
  };
}

const PENDING = { approver_id: null, decided_at: null, valid_until: null };
/** create_invoice sets no approval window: the consumer's default, 600 s. */
const APPROVED = { approver_id: "rev-1", decided_at: T0, valid_until: T0 + 600 };
const ANY_MS = expect.any(Number);

function problem(code: string, title: string, status: number, detail: string, path?: string) {
  return {
    type: `https://toolgate.dev/problems/${code.toLowerCase().replaceAll("_", "-")}`,
    title,
    status,
    code,
    detail,
    ...(path === undefined ? {} : { path }),
  };
}

beforeEach(async () => {
  await wipe(C);
  await receiver("/_control", { reset: true });
});

// No delivery of this file is left to retry while other files run; the ledger is left as found.
afterAll(async () => {
  await wipe(C);
  await ledger({ reset: true });
});

describe("webhook endpoints", () => {
  it("creates an endpoint (the secret answered once), lists it and reads it without the secret, deletes it", async () => {
    await setup();
    const { id, secret, body } = await endpoint("a", { description: "on-call pager" });
    expect(id).toMatch(/^ep_[0-9a-f]{32}$/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const view = {
      endpoint_id: id,
      url: `${HOOKS}/a`,
      events: ["approval.requested", "approval.decided", "call.outcome_unknown", "call.reconciled"],
      include_arguments: false,
      description: "on-call pager",
      created_at: T0,
    };
    expect(body).toEqual({ ...view, secret });
    const listed = await admin("GET", "/webhooks");
    const read = await admin("GET", `/webhooks/${id}`);
    expect([listed.status, listed.body, read.status, read.body]).toEqual([
      200,
      { endpoints: [view], next_cursor: null },
      200,
      view,
    ]);
    expect(listed.text.includes(secret.slice(6)) || read.text.includes(secret.slice(6))).toBe(false);
    expect((await admin("DELETE", `/webhooks/${id}`)).status).toBe(204);
    const gone = await admin("GET", `/webhooks/${id}`);
    expect([gone.status, gone.body]).toEqual([
      404,
      problem("NOT_FOUND", "Not found", 404, "No such webhook endpoint."),
    ]);
    expect((await admin("DELETE", `/webhooks/${id}`)).status).toBe(404);
    expect((await admin("GET", "/webhooks")).body).toEqual({ endpoints: [], next_cursor: null });
    // The audit log names the endpoint and its URL's origin only (a receiver's path or query may hold a token).
    const audited = await runInDurableObject(stub(), (_object, state) =>
      state.storage.sql
        .exec("SELECT kind, at, record FROM audit_chain WHERE kind LIKE 'webhook.%' ORDER BY seq")
        .toArray(),
    );
    expect(audited).toEqual([
      {
        kind: "webhook.created",
        at: T0,
        record: `{"endpoint_id":"${id}","events":["approval.requested","approval.decided","call.outcome_unknown","call.reconciled"],"include_arguments":false,"origin":"https://hooks.test"}`,
      },
      { kind: "webhook.deleted", at: T0, record: `{"endpoint_id":"${id}"}` },
    ]);
  });

  it("refuses URLs that are not https (loopback http only where the Worker allows it), URLs with credentials, bad event lists, and callers other than the admin", async () => {
    await setup();
    // The data tools' rule: `npm start` (TOOLGATE_ALLOW_LOOPBACK_TARGETS=1, which a local .dev.vars may bring here) admits loopback http.
    const loopback = Reflect.get(env, "TOOLGATE_ALLOW_LOOPBACK_TARGETS") === "1";
    const https = loopback ? "a webhook URL is https (or loopback http under npm start)" : "a webhook URL is https";
    const refusals: unknown[] = [];
    for (const body of [
      { url: "http://hooks.test/a" },
      { url: "ftp://hooks.test/a" },
      { url: "https://user:pw@hooks.test/a" },
      { url: "http://127.0.0.1:8787/hook" },
    ]) {
      const res = await admin("POST", "/webhooks", body);
      refusals.push([res.status, res.body?.code, res.body?.detail, res.body?.path]);
    }
    expect(refusals).toEqual([
      [400, "INVALID_REQUEST", https, "/url"],
      [400, "INVALID_REQUEST", https, "/url"],
      [400, "INVALID_REQUEST", "$.url: a webhook URL carries no credentials", undefined],
      // A loopback host is refused by its address before its scheme.
      loopback
        ? [201, undefined, undefined, undefined]
        : [
            400,
            "INVALID_REQUEST",
            "a webhook URL may not name a private, loopback or link-local address: 127.0.0.1 is loopback (127.0.0.0/8)",
            "/url",
          ],
    ]);
    const shapes: unknown[] = [];
    for (const body of [
      { url: "not a url" },
      { url: `${HOOKS}/a`, events: [] },
      { url: `${HOOKS}/a`, events: ["approval.requested", "approval.requested"] },
      { url: `${HOOKS}/a`, events: ["tool.called"] },
      { url: `${HOOKS}/a`, secret: "whsec_mine" },
    ]) {
      const res = await admin("POST", "/webhooks", body);
      shapes.push([res.status, res.body?.code]);
    }
    expect(shapes).toEqual(Array(5).fill([400, "INVALID_REQUEST"]));
    const agent = (await credential(C, "agent")).secret;
    const asAgent = await send("POST", `${BASE}/webhooks`, agent, { url: `${HOOKS}/a` });
    expect([asAgent.status, ((await asAgent.json()) as Record<string, unknown>).code]).toEqual([
      401,
      "UNAUTHENTICATED",
    ]);
    const noConsumer = await send("GET", "/v1/consumers/webhooks-nobody/webhooks", ADMIN_TOKEN);
    expect(noConsumer.status).toBe(404);
    expect(((await admin("GET", "/webhooks")).body?.endpoints as unknown[]).length).toBe(loopback ? 1 : 0);
  });

  it("holds at most 16 endpoints per consumer", async () => {
    await setup();
    for (let i = 0; i < 16; i++) expect((await admin("POST", "/webhooks", { url: `${HOOKS}/n${i}` })).status).toBe(201);
    const refused = await admin("POST", "/webhooks", { url: `${HOOKS}/n16` });
    expect([refused.status, refused.body]).toEqual([
      429,
      problem("QUOTA_EXCEEDED", "Quota exceeded", 429, "A consumer has at most 16 webhook endpoints."),
    ]);
  });

  it("refuses to create an endpoint when the gate has no key to seal its secret", async () => {
    await setup();
    const answer = await runInDurableObject(stub(), async (_object, state) => {
      const sql = state.storage.sql;
      const plane = new WebhookService(
        {
          sql,
          audit: undefined as never,
          targets: { allowLoopback: false },
          now: () => T0,
          wallMs: () => Date.now(),
          fetch: (request) => fetch(request),
          transaction: (step) => state.storage.transactionSync(step),
          alarms: undefined as never,
        },
        new SecretVault(sql, () => C, undefined),
      );
      return plane.create({ url: `${HOOKS}/a`, events: ["approval.requested"], include_arguments: false });
    });
    expect(answer).toEqual({
      ok: false,
      error: {
        code: "WEBHOOKS_NOT_CONFIGURED",
        detail: "The gate has no TOOLGATE_SECRETS_KEY: webhook signing secrets cannot be stored.",
      },
    });
    expect((await admin("GET", "/webhooks")).body).toEqual({ endpoints: [], next_cursor: null });
  });
});

describe("the OpenAPI document", () => {
  it("documents each webhook route with its admin access, its answer and its problems", async () => {
    const doc = (await (await send("GET", "/v1/openapi.json", null)).json()) as {
      paths: Record<string, Record<string, { "x-toolgate-credential": string; responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown> };
    };
    const P = "/v1/consumers/{consumer}/webhooks";
    const routes = [
      [P, "post"],
      [P, "get"],
      [`${P}/deliveries`, "get"],
      [`${P}/deliveries/{delivery_id}/redeliver`, "post"],
      [`${P}/{endpoint_id}`, "get"],
      [`${P}/{endpoint_id}`, "delete"],
    ] as const;
    expect(
      routes.map(([path, method]) => [
        method,
        path,
        doc.paths[path]?.[method]?.["x-toolgate-credential"],
        Object.keys(doc.paths[path]?.[method]?.responses ?? {}),
      ]),
    ).toEqual([
      ["post", P, "admin", ["201", "400", "401", "404", "413", "415", "429", "4XX", "default"]],
      ["get", P, "admin", ["200", "400", "401", "404", "4XX", "default"]],
      ["get", `${P}/deliveries`, "admin", ["200", "400", "401", "404", "4XX", "default"]],
      [
        "post",
        `${P}/deliveries/{delivery_id}/redeliver`,
        "admin",
        ["202", "401", "404", "409", "429", "4XX", "default"],
      ],
      ["get", `${P}/{endpoint_id}`, "admin", ["200", "401", "404", "4XX", "default"]],
      ["delete", `${P}/{endpoint_id}`, "admin", ["204", "401", "404", "4XX", "default"]],
    ]);
    const ids = [
      "WebhookEndpointRequest",
      "WebhookEndpoint",
      "WebhookEndpointCreated",
      "WebhookEndpointList",
      "WebhookDelivery",
      "WebhookDeliveryPage",
    ];
    expect(ids.filter((id) => doc.components.schemas[id] === undefined)).toEqual([]);
  });
});

describe("deliveries", () => {
  it("delivers approval.requested then approval.decided, signed (verified by standardwebhooks), without arguments by default", async () => {
    const { agent, approver } = await setup();
    const hook = await endpoint("a");
    const approvalId = await invoice(agent);
    const view = await pendingView(approver, approvalId);
    await decide(approver, approvalId);
    await deliver();
    const { received, effects } = await receiver("/_state");
    expect(received.map((r) => [r.path, r.verified, r.error, r.status])).toEqual([
      ["/a", true, null, 200],
      ["/a", true, null, 200],
    ]);
    expect(received.map(parsed)).toEqual([
      { type: "approval.requested", timestamp: T0_ISO, data: approvalData(view, "pending", PENDING) },
      { type: "approval.decided", timestamp: T0_ISO, data: approvalData(view, "approved", APPROVED) },
    ]);
    const [first, second] = received as [Received, Received];
    expect(first.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(second.headers["webhook-id"] !== first.headers["webhook-id"]).toBe(true);
    expect(first.headers["content-type"]).toBe("application/json");
    expect(Math.abs(Number(first.headers["webhook-timestamp"]) - Math.floor(Date.now() / 1000)) <= 60).toBe(true);
    // The raw algorithm of docs/webhooks.md, through WebCrypto: base64 HMAC-SHA256 of "id.timestamp.body" under the secret's bytes.
    const key = await crypto.subtle.importKey(
      "raw",
      Uint8Array.from(atob(hook.secret.slice("whsec_".length)), (c) => c.charCodeAt(0)),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    for (const r of received) {
      const mac = new Uint8Array(
        await crypto.subtle.sign(
          "HMAC",
          key,
          new TextEncoder().encode(`${r.headers["webhook-id"]}.${r.headers["webhook-timestamp"]}.${r.body}`),
        ),
      );
      expect(r.headers["webhook-signature"]).toBe(`v1,${btoa(String.fromCharCode(...mac))}`);
    }
    expect(effects).toEqual([
      { path: "/a", id: first.headers["webhook-id"], type: "approval.requested" },
      { path: "/a", id: second.headers["webhook-id"], type: "approval.decided" },
    ]);
    const log = await deliveries();
    const delivered = (message: string, type: string) => ({
      delivery_id: expect.stringMatching(/^dlv_[0-9a-f]{32}$/),
      endpoint_id: hook.id,
      message_id: message,
      event_type: type,
      state: "delivered",
      failure: null,
      attempts: [{ attempt: 1, at: T0, status_code: 200, duration_ms: ANY_MS, error: null }],
      next_attempt_at: null,
      created_at: T0,
      finished_at: T0,
      redelivery_of: null,
    });
    expect([log.status, log.body]).toEqual([
      200,
      {
        deliveries: [
          delivered(second.headers["webhook-id"] as string, "approval.decided"),
          delivered(first.headers["webhook-id"] as string, "approval.requested"),
        ],
        next_cursor: null,
      },
    ]);
  });

  it("starts delivering by itself: the event's transaction arms the alarm for now", async () => {
    const { agent } = await setup();
    await endpoint("a");
    await invoice(agent);
    let received: Received[] = [];
    for (let waited = 0; waited < 10_000 && received.length === 0; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      received = (await receiver("/_state")).received;
    }
    expect(received.map((r) => [parsed(r).type, r.verified, r.status])).toEqual([["approval.requested", true, 200]]);
  });

  it("a receiver that holds another secret refuses the delivery (its verification fails), and the log shows the 401", async () => {
    const { agent } = await setup();
    const other = await endpoint("other");
    await endpoint("a");
    await receiver("/_control", { secret: { path: "/a", secret: other.secret } });
    await invoice(agent);
    await deliver();
    const { received, effects } = await receiver("/_state");
    expect(received.map((r) => [r.path, r.verified, r.error, r.status]).sort()).toEqual([
      ["/a", false, "No matching signature found", 401],
      ["/other", true, null, 200],
    ]);
    expect(effects.map((e) => e.path)).toEqual(["/other"]);
    const log = (await deliveries()).body.deliveries.map((d) => [
      d.endpoint_id === other.id ? "other" : "a",
      d.state,
      d.attempts.map((a) => [a.status_code, a.error]),
    ]);
    expect(log.sort()).toEqual([
      ["a", "pending", [[401, "http_status"]]],
      ["other", "delivered", [[200, null]]],
    ]);
  });

  it("keeps each endpoint's order: a decision waits behind its request's retries (5 s, then 30 s backoff)", async () => {
    const { agent, approver } = await setup();
    const hook = await endpoint("a");
    await receiver("/_control", { fail: { path: "/a", count: 2 } });
    const approvalId = await invoice(agent);
    await decide(approver, approvalId);
    await deliver();
    expect((await receiver("/_state")).received.map((r) => [parsed(r).type, r.status])).toEqual([
      ["approval.requested", 500],
    ]);
    let log = (await deliveries()).body.deliveries;
    expect(
      log.map((d) => [
        d.event_type,
        d.state,
        d.attempts.map((a) => [a.attempt, a.at, a.status_code, a.error]),
        d.next_attempt_at,
      ]),
    ).toEqual([
      ["approval.decided", "pending", [], T0],
      ["approval.requested", "pending", [[1, T0, 500, "http_status"]], T0 + 5],
    ]);
    // Not due yet: the alarm runs and sends nothing.
    await pinClock(C, T0 + 4);
    await deliver();
    expect((await receiver("/_state")).received.length).toBe(1);
    await pinClock(C, T0 + 5);
    await deliver();
    await pinClock(C, T0 + 34);
    await deliver();
    expect((await receiver("/_state")).received.length).toBe(2);
    await pinClock(C, T0 + 35);
    await deliver();
    const { received, effects } = await receiver("/_state");
    expect(received.map((r) => [parsed(r).type, r.verified, r.status])).toEqual([
      ["approval.requested", true, 500],
      ["approval.requested", true, 500],
      ["approval.requested", true, 200],
      ["approval.decided", true, 200],
    ]);
    const ids = received.map((r) => r.headers["webhook-id"]);
    expect([ids[0] === ids[1], ids[1] === ids[2], ids[2] === ids[3]]).toEqual([true, true, false]);
    expect(effects.map((e) => e.type)).toEqual(["approval.requested", "approval.decided"]);
    log = (await deliveries(`?endpoint_id=${hook.id}`)).body.deliveries;
    expect(
      log.map((d) => [
        d.event_type,
        d.state,
        d.attempts.map((a) => [a.attempt, a.at, a.status_code, a.error]),
        d.finished_at,
      ]),
    ).toEqual([
      ["approval.decided", "delivered", [[1, T0 + 35, 200, null]], T0 + 35],
      [
        "approval.requested",
        "delivered",
        [
          [1, T0, 500, "http_status"],
          [2, T0 + 5, 500, "http_status"],
          [3, T0 + 35, 200, null],
        ],
        T0 + 35,
      ],
    ]);
  });

  it("gives a delivery up after 8 attempts (5 s, 30 s, 2 min, 10 min, 1 h, 2 h, 4 h apart), then sends the next message", async () => {
    const { agent, approver } = await setup();
    await endpoint("a");
    await receiver("/_control", { fail: { path: "/a", count: 8 } });
    const approvalId = await invoice(agent);
    await decide(approver, approvalId);
    let at = T0;
    await deliver();
    for (const delay of [5, 30, 120, 600, 3600, 7200, 14_400]) {
      at += delay;
      await pinClock(C, at);
      await deliver();
    }
    const { received, effects } = await receiver("/_state");
    expect(received.map((r) => [parsed(r).type, r.status])).toEqual([
      ...Array(8).fill(["approval.requested", 500]),
      ["approval.decided", 200],
    ]);
    expect(effects.map((e) => e.type)).toEqual(["approval.decided"]);
    const [decided, requested] = (await deliveries()).body.deliveries as [Delivery, Delivery];
    expect([
      requested.state,
      requested.failure,
      requested.attempts.map((a) => a.at),
      requested.next_attempt_at,
      requested.finished_at,
    ]).toEqual([
      "failed",
      "attempts_exhausted",
      [T0, T0 + 5, T0 + 35, T0 + 155, T0 + 755, T0 + 4355, T0 + 11_555, T0 + 25_955],
      null,
      T0 + 25_955,
    ]);
    expect([decided.state, decided.attempts.length]).toEqual(["delivered", 1]);
  });

  it("redelivers a message with the same webhook-id: the receiver's dedupe shows one effect", async () => {
    const { agent } = await setup();
    await endpoint("a");
    await invoice(agent);
    await deliver();
    const original = (await deliveries()).body.deliveries[0] as Delivery;
    // The redelivery's first attempt is refused, so it is still pending when redelivered again.
    await receiver("/_control", { fail: { path: "/a", count: 1 } });
    const again = await admin("POST", `/webhooks/deliveries/${original.delivery_id}/redeliver`);
    expect([again.status, again.body]).toEqual([
      202,
      {
        delivery_id: expect.stringMatching(/^dlv_[0-9a-f]{32}$/),
        endpoint_id: original.endpoint_id,
        message_id: original.message_id,
        event_type: "approval.requested",
        state: "pending",
        failure: null,
        attempts: [],
        next_attempt_at: T0,
        created_at: T0,
        finished_at: null,
        redelivery_of: original.delivery_id,
      },
    ]);
    const pending = await admin("POST", `/webhooks/deliveries/${again.body?.delivery_id}/redeliver`);
    expect([pending.status, pending.body?.code]).toEqual([409, "WEBHOOK_DELIVERY_PENDING"]);
    await deliver();
    await pinClock(C, T0 + 5);
    await deliver();
    const { received, effects } = await receiver("/_state");
    expect(received.map((r) => [r.headers["webhook-id"], r.verified, r.status, r.body])).toEqual([
      [original.message_id, true, 200, received[0]?.body],
      [original.message_id, true, 500, received[0]?.body],
      [original.message_id, true, 200, received[0]?.body],
    ]);
    expect(effects).toEqual([{ path: "/a", id: original.message_id, type: "approval.requested" }]);
    const log = (await deliveries()).body.deliveries;
    expect(log.map((d) => [d.message_id, d.state, d.redelivery_of])).toEqual([
      [original.message_id, "delivered", original.delivery_id],
      [original.message_id, "delivered", null],
    ]);
    const unknown = await admin("POST", `/webhooks/deliveries/dlv_${"0".repeat(32)}/redeliver`);
    const malformed = await admin("POST", "/webhooks/deliveries/dlv_x/redeliver");
    expect([unknown.status, unknown.body?.detail, malformed.status]).toEqual([404, "No such webhook delivery.", 404]);
  });

  it("sends arguments only to an endpoint that asked for them, and each endpoint only its event types", async () => {
    const { agent, approver } = await setup();
    await endpoint("plain");
    await endpoint("args", { include_arguments: true });
    await endpoint("decided", { events: ["approval.decided"] });
    const approvalId = await invoice(agent);
    await decide(approver, approvalId, "deny");
    await deliver();
    const { received } = await receiver("/_state");
    const byPath = (path: string) =>
      received
        .filter((r) => r.path === path)
        .map((r) => [parsed(r).type, r.verified, parsed(r).data.state, parsed(r).data.arguments]);
    expect(byPath("/plain")).toEqual([
      ["approval.requested", true, "pending", undefined],
      ["approval.decided", true, "denied", undefined],
    ]);
    expect(byPath("/args")).toEqual([
      ["approval.requested", true, "pending", ARGS],
      ["approval.decided", true, "denied", ARGS],
    ]);
    expect(byPath("/decided")).toEqual([["approval.decided", true, "denied", undefined]]);
    expect(received.filter((r) => r.path === "/plain").some((r) => r.body.includes("cust-seven"))).toBe(false);
  });

  it("never carries a secret: no credential, signing secret, admin token or key in any body, header, log row or stored row", async () => {
    const { agent, approver } = await setup();
    const hook = await endpoint("a", { include_arguments: true });
    await receiver("/_control", { fail: { path: "/a", count: 1 } });
    const approvalId = await invoice(agent);
    await decide(approver, approvalId);
    await deliver();
    await pinClock(C, T0 + 5);
    await deliver();
    const { received } = await receiver("/_state");
    expect(received.map((r) => r.status)).toEqual([500, 200, 200]);
    const log = await deliveries();
    const endpoints = await admin("GET", "/webhooks");
    const stored = await runInDurableObject(stub(), (_object, state) =>
      ["webhook_endpoints", "webhook_messages", "webhook_deliveries", "webhook_attempts", "audit_chain"].map((table) =>
        JSON.stringify(state.storage.sql.exec(`SELECT * FROM ${table}`).toArray(), (_key, value: unknown) =>
          value instanceof ArrayBuffer ? [...new Uint8Array(value)] : value,
        ),
      ),
    );
    const haystack = [JSON.stringify(received), log.text, endpoints.text, ...stored].join("\n");
    const secrets = [
      agent,
      approver,
      ADMIN_TOKEN,
      hook.secret,
      hook.secret.slice("whsec_".length),
      "test-secrets-key-0123456789abcdef0123456",
      "test-token-key-0123456789abcdef0123456789",
    ];
    expect(secrets.map((secret) => haystack.includes(secret))).toEqual(secrets.map(() => false));
    // The haystack is the real one: it holds the deliveries and their ids.
    expect([haystack.includes(approvalId), haystack.includes("cust-seven"), haystack.includes(hook.id)]).toEqual([
      true,
      true,
      true,
    ]);
  });

  it("pages the delivery log newest first with an opaque cursor, per endpoint or all", async () => {
    const { agent } = await setup({ page_items: 2 });
    const a = await endpoint("a");
    const b = await endpoint("b", { events: ["approval.requested"] });
    const approvals: string[] = [];
    for (let i = 0; i < 3; i++) approvals.push(await invoice(agent, { customer: `cust-${i}`, amount: i + 1 }));
    await deliver();
    const approvalOf = async (d: Delivery) => {
      const hit = (await receiver("/_state")).received.find((r) => r.headers["webhook-id"] === d.message_id);
      return hit === undefined ? null : (parsed(hit).data.approval_id as string);
    };
    const walk = async (query: string) => {
      const pages: Array<Array<[string, string | null]>> = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof deliveries>> = await deliveries(
          `?${query}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
        );
        expect(page.status).toBe(200);
        pages.push(
          await Promise.all(
            page.body.deliveries.map(
              async (d) => [d.endpoint_id === a.id ? "a" : "b", await approvalOf(d)] as [string, string | null],
            ),
          ),
        );
        cursor = page.body.next_cursor;
      } while (cursor !== null);
      return pages;
    };
    const [one, two, three] = approvals as [string, string, string];
    expect(await walk("")).toEqual([
      [
        ["b", three],
        ["a", three],
      ],
      [
        ["b", two],
        ["a", two],
      ],
      [
        ["b", one],
        ["a", one],
      ],
    ]);
    expect(await walk(`endpoint_id=${a.id}`)).toEqual([
      [
        ["a", three],
        ["a", two],
      ],
      [["a", one]],
    ]);
    expect(await walk(`endpoint_id=${b.id}`)).toEqual([
      [
        ["b", three],
        ["b", two],
      ],
      [["b", one]],
    ]);
    const bad = await deliveries("?cursor=bm90LWEtY3Vyc29y");
    expect([bad.status, (bad.body as unknown as Record<string, unknown>).code]).toEqual([400, "INVALID_CURSOR"]);
    const unknown = await deliveries(`?endpoint_id=ep_${"0".repeat(32)}`);
    expect([unknown.status, (unknown.body as unknown as Record<string, unknown>).detail]).toEqual([
      404,
      "No such webhook endpoint.",
    ]);
    // Deleting an endpoint deletes its deliveries.
    expect((await admin("DELETE", `/webhooks/${b.id}`)).status).toBe(204);
    expect(await walk("")).toEqual([
      [
        ["a", three],
        ["a", two],
      ],
      [["a", one]],
    ]);
  });

  it("delivers call.outcome_unknown and call.reconciled of a data tool's write", async () => {
    await ledger({ reset: true, mode: "error_after_commit" });
    const { agent } = await setup();
    await endpoint("calls", { events: ["call.outcome_unknown", "call.reconciled"] });
    const proposal = { name: "post_invoice", arguments: { customer: "acme", amount: 60 } };
    const principal = { subject_id: "user-1", roles: [] };
    const lost = (await (
      await send("POST", `${BASE}/tool-calls`, agent, {
        principal,
        proposal,
        context: context("call-inv", { key: "k-inv" }),
      })
    ).json()) as ToolCallAnswer & { status_ref: string };
    expect(lost.model_result.status).toBe("unknown");
    await ledger({ mode: "ok" });
    await pinClock(C, T0 + 10);
    const status = await send("POST", `${BASE}/tool-calls/status`, agent, {
      principal,
      proposal,
      context: context("status-inv", { key: "k-inv" }),
      status_ref: lost.status_ref,
    });
    expect(((await status.json()) as ToolCallAnswer).model_result.status).toBe("succeeded");
    await deliver();
    const { received } = await receiver("/_state");
    const events = received.map(parsed);
    const sha = events[0]?.data.request_sha256;
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
    const data = {
      tool: "post_invoice",
      subject_id: "user-1",
      operation_id: "op-call-inv",
      call_id: "call-inv",
      request_sha256: sha,
      status_ref: lost.status_ref,
    };
    expect([received.map((r) => [r.verified, r.status]), events]).toEqual([
      [
        [true, 200],
        [true, 200],
      ],
      [
        { type: "call.outcome_unknown", timestamp: T0_ISO, data: { ...data, status: "unknown", at: T0 } },
        // The reconciling request's own call and operation ids (the same key and request digest).
        {
          type: "call.reconciled",
          timestamp: "2026-07-19T00:00:10Z",
          data: { ...data, operation_id: "op-status-inv", call_id: "status-inv", status: "succeeded", at: T0 + 10 },
        },
      ],
    ]);
  });
});

describe("the console link of an approval", () => {
  it("takes the origin of an http(s) TOOLGATE_PUBLIC_URL and nothing else", () => {
    expect(
      [
        "https://gate.example.com",
        "https://gate.example.com:8443/base/path?q=1#f",
        "http://127.0.0.1:8787/",
        "ftp://gate.example.com",
        "javascript:alert(1)",
        "gate.example.com",
        "",
        undefined,
      ].map(publicOrigin),
    ).toEqual([
      "https://gate.example.com",
      "https://gate.example.com:8443",
      "http://127.0.0.1:8787",
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});
