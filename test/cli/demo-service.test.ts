/**
 * `npm start`'s demo service (tools/lib/demo-service.ts, its check in tools/lib/demo-identity.ts): it
 * verifies the gate's request signature with `http-message-signatures` under the public key the
 * gate publishes (checked against the known-answer vector of docs/http-tools.md, and against
 * requests signed by the same library with the gate's key; a forging downstream is in
 * demo-service-keys.test.ts), and answers the downstream protocol of data-defined tools with
 * exact bodies. Also: its two tool
 * definitions build under the gate's rules, and `npm start` defines them before enabling them.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSigner, httpbis } from "http-message-signatures";
import { afterEach, describe, expect, it, vi } from "vitest";
import { verifyToolgateRequest } from "../../tools/lib/demo-identity";
import { demoTools, startDemoService } from "../../tools/lib/demo-service";
import { setUpDemo } from "../../tools/lib/demo-setup";
import { ToolDefinition } from "../../src/contracts/tool-definition";
import { buildTool } from "../../src/worker/features/tools/build";
import { loadPolicyLanguage } from "../../src/worker/kernel/policy-language";
import { gatePrivateKey, publishedKey } from "../support/identity-verifier";

/** The known-answer vector of docs/http-tools.md ("The signature"). */
const DOC = {
  secret: "test-signing-key-0123456789abcdef012345",
  body: '{"refund_id":"RF-1"}',
  url: "http://downstream/refunds/lookup",
  created: 1784419200,
  headers: {
    "content-type": "application/json",
    "content-digest": "sha-256=:EjiQBdw7cFR14wMYBpfPF+k6veopPmllOKgFF2YKs9I=:",
    "toolgate-identity":
      "eyJjYWxsX2lkIjoiY2FsbC0xIiwiY29uc3VtZXIiOiJ0ZW5hbnQtYSIsIm9wZXJhdGlvbl9pZCI6Im9wLWNhbGwtMSIsInJvbGVzIjpbInN1cHBvcnQiXSwic3ViamVjdF9pZCI6InVzZXItMSIsInRvb2wiOiJsb29rdXBfcmVmdW5kIn0",
    "signature-input":
      'toolgate=("@method" "@target-uri" "content-digest" "toolgate-identity");created=1784419200;expires=1784419260;nonce="nonce-1";keyid="D5MYTufZAonKSHAHsIyKHYhugrwiS1KjJjEvQIzbRMA";alg="ed25519";tag="toolgate"',
    signature: "toolgate=:glwwx562ffJ1PpklAJ0etJwfWvfSjpcIItz8wPgCxfDt0vHBgexoOiWGcN6d3ocFBxAO8/eXkg5bgBvktEXCAA==:",
  } as Record<string, string>,
  /** tenant-a's published key (docs/http-tools.md). */
  key: {
    kty: "OKP",
    crv: "Ed25519",
    x: "M-lbJxbTypqagK876iBxmuSRaA1DlBszUY9NDdgKQXs",
    kid: "D5MYTufZAonKSHAHsIyKHYhugrwiS1KjJjEvQIzbRMA",
    use: "sig",
  },
};

describe("the demo service's signature check (http-message-signatures, the published key)", () => {
  afterEach(() => void vi.useRealTimers());
  type Change = {
    headers?: Record<string, string>;
    drop?: string;
    body?: string;
    url?: string;
    now?: number;
    known?: boolean;
    fresh?: boolean;
  };
  const verify = async (change: Change = {}) => {
    // The library checks `expires` against the system clock: set it to the vector's time.
    vi.useFakeTimers({ toFake: ["Date"], now: (change.now ?? DOC.created) * 1000 });
    return verifyToolgateRequest(
      {
        method: "POST",
        url: change.url ?? DOC.url,
        headers: Object.fromEntries(
          Object.entries({ ...DOC.headers, ...change.headers }).filter(([name]) => name !== change.drop),
        ),
        body: Buffer.from(change.body ?? DOC.body),
      },
      {
        keysOf: async (c: string) => (change.known === false || c !== "tenant-a" ? undefined : [DOC.key]),
        nowSeconds: change.now ?? DOC.created,
        fresh: () => change.fresh ?? true,
      },
    );
  };

  it("holds the documented key: tenant-a's public key as node:crypto derives it from the test secret", () => {
    expect(publishedKey(DOC.secret, "tenant-a")).toEqual(DOC.key);
  });

  it("accepts the documented request and reads its statement", async () => {
    expect(await verify()).toEqual({
      ok: true,
      statement: {
        call_id: "call-1",
        consumer: "tenant-a",
        operation_id: "op-call-1",
        roles: ["support"],
        subject_id: "user-1",
        tool: "lookup_refund",
      },
    });
  });

  it("refuses each alteration with its reason", async () => {
    const input = DOC.headers["signature-input"]!;
    const reasons = [];
    const changes: Change[] = [
      { drop: "content-digest" },
      { headers: { signature: "" } },
      { body: '{"refund_id":"RF-2"}' },
      { url: "http://downstream/refunds/lookup?x=1" },
      {
        headers: {
          signature:
            "toolgate=:AAAAx562ffJ1PpklAJ0etJwfWvfSjpcIItz8wPgCxfDt0vHBgexoOiWGcN6d3ocFBxAO8/eXkg5bgBvktEXCAA==:",
        },
      },
      { headers: { "signature-input": input.replace(' "toolgate-identity"', "") } },
      { headers: { "signature-input": input.replace("ed25519", "hmac-sha256") } },
      { known: false },
      { now: DOC.created - 6 },
      { now: DOC.created + 66 },
      { fresh: false },
      { headers: { "idempotency-key": '"k-1"' } },
    ];
    for (const change of changes) {
      const r = await verify(change);
      reasons.push(r.ok ? "ok" : r.reason);
    }
    expect(reasons).toEqual([
      "unsigned",
      "signature refused: Incomplete signature headers",
      "content-digest mismatch",
      "bad signature",
      "bad signature",
      "signature refused: Missing required signed fields",
      "unknown key",
      "unknown key",
      "created in the future",
      "expired",
      "replayed nonce",
      "idempotency key is not the statement's status_ref",
    ]);
    expect([(await verify({ now: DOC.created + 5 })).ok, (await verify({ now: DOC.created + 65 })).ok]).toEqual([
      true,
      true,
    ]);
  });
});

const NOW = Date.parse("2027-01-15T08:00:00Z");
const SECRET = "demo-signing-secret-0123456789abcdef0123";
const TOKEN = "demo-bearer-token";
let service: { base: string; close(): Promise<void>; state(): unknown };

interface Statement {
  tool: string;
  status_ref?: string;
}

/** A request signed as the gate signs it, by the independent library with the gate's key, for the consumer `demo`. */
async function signed(
  method: string,
  path: string,
  statement: Statement,
  body = "",
  extra: Record<string, string> = {},
  nonce = randomBytes(16).toString("base64url"),
) {
  const url = `${service.base}${path}`;
  const full = {
    consumer: "demo",
    subject_id: "user-1",
    roles: ["support"],
    call_id: "call-1",
    operation_id: "op-1",
    ...statement,
  };
  const headers: Record<string, string> = {
    ...extra,
    "content-digest": `sha-256=:${createHash("sha256").update(body).digest("base64")}:`,
    "toolgate-identity": Buffer.from(JSON.stringify(full)).toString("base64url"),
  };
  const created = new Date(NOW);
  const message = await httpbis.signMessage(
    {
      key: {
        id: publishedKey(SECRET, "demo").kid,
        alg: "ed25519",
        sign: createSigner(gatePrivateKey(SECRET, "demo"), "ed25519").sign,
      },
      name: "toolgate",
      fields: ["@method", "@target-uri", "content-digest", "toolgate-identity"],
      params: ["created", "expires", "nonce", "keyid", "alg", "tag"],
      paramValues: { created, expires: new Date(NOW + 60_000), nonce, tag: "toolgate" },
    },
    { method, url, headers },
  );
  return {
    url,
    init: { method, headers: message.headers as Record<string, string>, ...(body === "" ? {} : { body }) },
  };
}

async function answer(request: { url: string; init: RequestInit }) {
  const res = await fetch(request.url, request.init);
  return [res.status, await res.json()];
}

const send = async (
  method: string,
  path: string,
  statement: Statement,
  body = "",
  extra: Record<string, string> = {},
) => answer(await signed(method, path, statement, body, extra));
const LOOKUP = { tool: "lookup_customer" };
const write = (key: string) => ({ tool: "create_invoice", status_ref: key });
const AUTH = { authorization: `Bearer ${TOKEN}` };
const invoice = (key: string, amount: number, extra: Record<string, string> = AUTH) =>
  send("POST", "/invoices", write(key), JSON.stringify({ customer: "acme", amount }), {
    ...extra,
    "idempotency-key": `"${key}"`,
  });

describe("the demo service's endpoints", () => {
  afterEach(async () => service?.close());

  const start = async () => {
    service = await startDemoService({
      keys: { demo: { keys: [publishedKey(SECRET, "demo")] } },
      token: TOKEN,
      now: () => NOW,
    });
  };

  it("answers a read, refuses unsigned and replayed requests and a statement for another tool", async () => {
    await start();
    expect(await send("POST", "/customers/lookup", LOOKUP, '{"customer":"acme"}')).toEqual([
      200,
      {
        data: { customer: "acme", name: "Acme Corporation", tier: "gold", balance_cents: 125000 },
        resource_revision: null,
        observed_at: "2027-01-15T08:00:00Z",
      },
    ]);
    expect(await send("POST", "/customers/lookup", LOOKUP, '{"customer":"nobody"}')).toEqual([
      404,
      { error: "no such customer" },
    ]);
    expect(
      await answer({ url: `${service.base}/customers/lookup`, init: { method: "POST", body: '{"customer":"acme"}' } }),
    ).toEqual([401, { error: "unsigned" }]);
    const once = await signed("POST", "/customers/lookup", LOOKUP, '{"customer":"acme"}', {}, "the-same-nonce");
    expect([(await answer(once))[0], await answer(once)]).toEqual([200, [401, { error: "replayed nonce" }]]);
    expect(await send("POST", "/customers/lookup", { tool: "create_invoice" }, '{"customer":"acme"}')).toEqual([
      403,
      { error: "this endpoint serves lookup_customer" },
    ]);
    expect(await send("GET", "/nowhere", LOOKUP)).toEqual([404, { error: "no such endpoint" }]);
  });

  it("runs a write once per key, with its token, and reports it through status and fence", async () => {
    await start();
    const result = {
      data: { invoice_id: "INV-1", customer: "acme", amount: 250 },
      resource_revision: null,
      observed_at: "2027-01-15T08:00:00Z",
      request_id: "req-1",
      receipt_id: "rcpt-INV-1",
    };
    expect(await invoice("k-1", 250, {})).toEqual([403, { error: "bad token" }]);
    expect(await invoice("k-1", 250)).toEqual([200, result]);
    expect(await invoice("k-1", 250)).toEqual([200, result]);
    expect(await send("POST", "/invoices", write("k-1"), '{"customer":"acme","amount":250}', AUTH)).toEqual([
      400,
      { error: "a write needs an Idempotency-Key" },
    ]);
    expect(await send("GET", "/invoices/status/k-1", write("k-1"), "", AUTH)).toEqual([
      200,
      { state: "committed", result },
    ]);
    expect(await send("GET", "/invoices/status/k-2", write("k-2"), "", AUTH)).toEqual([200, { state: "not_found" }]);
    expect(await send("GET", "/invoices/status/k-2", write("k-1"), "", AUTH)).toEqual([
      403,
      { error: "the statement's status_ref is not this key" },
    ]);
    expect(await send("POST", "/invoices/status/k-2/fence", write("k-2"), "", AUTH)).toEqual([
      200,
      { state: "fenced" },
    ]);
    expect(await send("GET", "/invoices/status/k-2", write("k-2"), "", AUTH)).toEqual([200, { state: "fenced" }]);
    expect(await invoice("k-2", 10)).toEqual([409, { error: "this key is fenced" }]);
    expect(await send("POST", "/invoices/status/k-1/fence", write("k-1"), "", AUTH)).toEqual([
      200,
      { state: "committed", result },
    ]);
    expect(service.state()).toEqual({ invoices: { "k-1": result }, fenced: ["k-2"] });
  });
});

describe("the demo's tools as data", () => {
  it("build under the gate's rules on loopback (npm start), and are refused without it", async () => {
    await loadPolicyLanguage();
    const tools = demoTools("http://127.0.0.1:8788") as Record<string, unknown>;
    const built = Object.entries(tools).map(
      ([name, definition]) => buildTool(name, ToolDefinition.parse(definition), { allowLoopback: true }).ok,
    );
    const refused = Object.entries(tools).map(([name, definition]) => {
      const result = buildTool(name, ToolDefinition.parse(definition), { allowLoopback: false });
      return result.ok ? "built" : result.error.pointer;
    });
    expect([Object.keys(tools), built, refused]).toEqual([
      ["lookup_customer", "create_invoice"],
      [true, true],
      ["/target/url", "/target/url"],
    ]);
  });

  it("are defined, with their secret first, before the consumer enables them", async () => {
    const calls: string[] = [];
    let n = 0;
    const call = async (_base: string, method: string, path: string, _token: string, body: { tools?: string[] }) => {
      calls.push(`${method} ${path}${body?.tools === undefined ? "" : ` ${body.tools.join(",")}`}`);
      return path.endsWith("/credentials")
        ? { secret: `credential-${++n}`, credential_id: `cred_${String(n).padStart(16, "0")}` }
        : {};
    };
    const state = mkdtempSync(join(tmpdir(), "toolgate-demo-"));
    const issuedPath = join(state, "issued.json");
    const text = (await setUpDemo({
      base: "http://127.0.0.1:1",
      admin: "admin",
      demoBase: "http://127.0.0.1:2",
      token: "t",
      devVarsPath: "/x/.dev.vars",
      issuedPath,
      call,
    }).finally(() => rmSync(state, { recursive: true, force: true }))) as string;
    expect(calls).toEqual([
      "PUT /v1/consumers/demo get_order,create_refund_draft",
      "PUT /v1/consumers/tenant-a get_order,create_refund_draft",
      "PUT /v1/consumers/demo/secrets/demo_service_token",
      "PUT /v1/consumers/demo/tools/lookup_customer",
      "PUT /v1/consumers/demo/tools/create_invoice",
      "PUT /v1/consumers/demo get_order,create_refund_draft,lookup_customer,create_invoice",
      "POST /v1/consumers/demo/credentials",
      "POST /v1/consumers/demo/credentials",
      "POST /v1/consumers/demo/credentials",
      "POST /v1/consumers/tenant-a/credentials",
      "POST /v1/consumers/tenant-a/credentials",
      "POST /v1/consumers/tenant-a/credentials",
      "POST /v1/consumers/tenant-a/credentials",
    ]);
    expect(text.split("\n").filter((line) => line.startsWith("export "))).toEqual([
      "export TG=http://127.0.0.1:1/v1/consumers/demo",
      "export ADMIN=$(sed -n 's/^TOOLGATE_ADMIN_TOKEN=//p' '/x/.dev.vars')",
      "export AGENT=credential-1",
      "export APPROVER=credential-2",
      "export AUDITOR=credential-3",
      "export TOOLGATE_URL=http://127.0.0.1:1 TOOLGATE_CONSUMER=demo TOOLGATE_ADMIN_TOKEN=$ADMIN TOOLGATE_APPROVER_TOKEN=$APPROVER TOOLGATE_AUDITOR_TOKEN=$AUDITOR",
      "export REF=http://127.0.0.1:1/v1/consumers/tenant-a",
      "export REF_AGENT=credential-4",
      "export REF_APPROVER=credential-5",
      "export REF_AUDITOR=credential-6",
      "export MCP_AGENT=credential-7",
    ]);
    // The approver console's sign-in line names the consumer and the approver credential.
    expect(text.split("\n").slice(4, 7)).toEqual([
      "Approver console: http://127.0.0.1:1/console",
      '  sign in with consumer "demo" and the approver credential credential-2',
      "  (approvals appear there live; docs/console.md)",
    ]);
  });
});
