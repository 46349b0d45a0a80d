// The local demo downstream `npm start` runs on 127.0.0.1: the target of the two tools it defines
// as data (docs/tools.md). It speaks the downstream protocol of data-defined tools:
//   POST /customers/lookup              lookup_customer (a read)
//   POST /invoices                      create_invoice (a write, idempotent by its Idempotency-Key,
//                                       which needs `Authorization: Bearer <token>`: the tool's secret header)
//   GET  /invoices/status/{status_ref}  what happened to a write: committed (with its result) or not_found
//   POST /invoices/status/{status_ref}/fence   refuse that key from now on (answers its result if it committed)
// Every request must carry the gate's signature (docs/http-tools.md), checked here with node:crypto
// only: a downstream with no dependency at all. State lives in memory and ends with the process.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";

/** A consumer's signing key: `HMAC-SHA256(TOOLGATE_SIGNING_KEY, "toolgate downstream v1\n" + consumer)`. */
export function consumerKey(signingSecret, consumer) {
  return createHmac("sha256", signingSecret).update(`toolgate downstream v1\n${consumer}`).digest();
}

const COMPONENTS = ['"@method"', '"@target-uri"', '"content-digest"', '"toolgate-identity"'];
/** Clock skew accepted on `created`, and the oldest `created` accepted (the gate's signatures live 60 s). */
const SKEW_SECONDS = 5;
const MAX_AGE_SECONDS = 65;
const STATEMENT_TEXT = ["consumer", "subject_id", "tool", "call_id", "operation_id"];

function sameBytes(a, b) {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The members of `;name=value` parameters (integers or strings without escapes); null if malformed or repeated. */
function readParams(text) {
  const params = new Map();
  const member = /;([a-z]+)=(?:"([^"\\]*)"|(\d{1,15}))/y;
  let at = 0;
  while (at < text.length) {
    member.lastIndex = at;
    const m = member.exec(text);
    if (m === null || params.has(m[1])) return null;
    params.set(m[1], m[2] ?? Number(m[3]));
    at = member.lastIndex;
  }
  return params;
}

function readStatement(header) {
  if (!/^[A-Za-z0-9_-]+$/.test(header)) return null;
  let value;
  try {
    value = JSON.parse(Buffer.from(header, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  if (!STATEMENT_TEXT.every((k) => typeof value[k] === "string")) return null;
  if (!Array.isArray(value.roles) || !value.roles.every((r) => typeof r === "string")) return null;
  if (value.status_ref !== undefined && typeof value.status_ref !== "string") return null;
  return value;
}

/**
 * Verifies one request as docs/http-tools.md says, in its order: the body's digest, the one
 * `toolgate` signature (hmac-sha256 over the four components, under the key of its `keyid`), its
 * age, the statement (its consumer is the keyid), the nonce (never seen), the Idempotency-Key
 * (the statement's status_ref). Only the form the gate sends is read: one dictionary member
 * labelled `toolgate`, string parameters without escapes.
 * `request`: { method, url (as the gate addressed it), headers (lower-case names), body (Buffer) };
 * `keyOf(consumer)`: its key or undefined; `fresh(nonce)`: records it, false if seen before.
 * Answers `{ ok: true, statement }` or `{ ok: false, reason }`.
 */
export function verifyToolgateRequest(request, { keyOf, nowSeconds, fresh }) {
  const { headers } = request;
  const identity = headers["toolgate-identity"];
  const digest = headers["content-digest"];
  const input = headers["signature-input"];
  const signature = headers["signature"];
  if ([identity, digest, input, signature].some((h) => typeof h !== "string")) return { ok: false, reason: "unsigned" };
  const sent = /(?:^|,\s*)sha-256=:([A-Za-z0-9+/]+={0,2}):(?:\s*,|$)/.exec(digest);
  if (sent === null || !sameBytes(Buffer.from(sent[1], "base64"), createHash("sha256").update(request.body).digest())) {
    return { ok: false, reason: "content-digest mismatch" };
  }
  const signed = /^toolgate=\(([^()]*)\)(.*)$/.exec(input);
  const params = signed === null ? null : readParams(signed[2]);
  const tag = /^toolgate=:([A-Za-z0-9+/]+={0,2}):$/.exec(signature);
  if (signed === null || params === null || tag === null) return { ok: false, reason: "not one toolgate signature" };
  const components = signed[1].split(" ");
  if (components.length !== COMPONENTS.length || !COMPONENTS.every((c) => components.includes(c))) return { ok: false, reason: "the signature does not cover the four components" };
  const [created, expires, nonce, keyid] = ["created", "expires", "nonce", "keyid"].map((p) => params.get(p));
  if (params.get("alg") !== "hmac-sha256" || params.get("tag") !== "toolgate" || typeof created !== "number" || typeof expires !== "number" || typeof nonce !== "string" || typeof keyid !== "string") {
    return { ok: false, reason: "signature parameters" };
  }
  const key = keyOf(keyid);
  if (key === undefined) return { ok: false, reason: "unknown key" };
  const values = { '"@method"': request.method.toUpperCase(), '"@target-uri"': request.url, '"content-digest"': digest, '"toolgate-identity"': identity };
  const base = [...components.map((c) => `${c}: ${values[c]}`), `"@signature-params": ${input.slice("toolgate=".length)}`].join("\n");
  if (!sameBytes(Buffer.from(tag[1], "base64"), createHmac("sha256", key).update(base).digest())) return { ok: false, reason: "bad signature" };
  if (created > nowSeconds + SKEW_SECONDS) return { ok: false, reason: "created in the future" };
  if (nowSeconds - created > MAX_AGE_SECONDS || expires + SKEW_SECONDS < nowSeconds) return { ok: false, reason: "expired" };
  const statement = readStatement(identity);
  if (statement === null) return { ok: false, reason: "malformed identity" };
  if (statement.consumer !== keyid) return { ok: false, reason: "key of another consumer" };
  if (!fresh(nonce)) return { ok: false, reason: "replayed nonce" };
  const idempotencyKey = headers["idempotency-key"];
  if (idempotencyKey !== undefined && idempotencyKey !== `"${statement.status_ref ?? ""}"`) return { ok: false, reason: "idempotency key is not the statement's status_ref" };
  return { ok: true, statement };
}

/** The demo's customers (what `lookup_customer` reads). */
export const CUSTOMERS = {
  acme: { name: "Acme Corporation", tier: "gold", balance_cents: 125_000 },
  globex: { name: "Globex", tier: "silver", balance_cents: 0 },
  initech: { name: "Initech", tier: "bronze", balance_cents: 4_250 },
};

/**
 * The two tools as data, targeting the demo service at `base` (`http://127.0.0.1:<port>`):
 * `lookup_customer` (a read) and `create_invoice` (a write that needs a human above 100, a CEL
 * rule; its authorization header is the consumer secret `secret`).
 */
export function demoTools(base, secret = "demo_service_token") {
  const customer = { type: "string", description: "The customer's id, such as acme.", pattern: "^[a-z][a-z0-9-]*$", maxLength: 32 };
  return {
    lookup_customer: {
      description: "Look up a customer: name, tier and open balance in cents.",
      risk: "read",
      timeout_ms: 3000,
      input: { type: "object", properties: { customer }, required: ["customer"], additionalProperties: false },
      output: {
        schema: {
          type: "object",
          properties: {
            customer: { type: "string" },
            name: { type: "string", maxLength: 128 },
            tier: { type: "string", enum: ["gold", "silver", "bronze"] },
            balance_cents: { type: "integer", minimum: 0 },
          },
          required: ["customer", "name", "tier", "balance_cents"],
          additionalProperties: false,
        },
        bound_to_arguments: { customer: "customer" },
      },
      authorize: '"support" in principal.roles',
      target: { kind: "http", url: `${base}/customers/lookup` },
    },
    create_invoice: {
      description: "Create an invoice for a customer. An amount above 100 needs a human's approval.",
      risk: "write",
      timeout_ms: 5000,
      input: {
        type: "object",
        properties: {
          customer,
          amount: { type: "integer", description: "Whole euros.", minimum: 1, maximum: 100000 },
          memo: { type: "string", maxLength: 140 },
        },
        required: ["customer", "amount"],
        additionalProperties: false,
      },
      output: {
        schema: {
          type: "object",
          properties: { invoice_id: { type: "string", pattern: "^INV-[0-9]+$", maxLength: 16 }, customer: { type: "string" }, amount: { type: "integer" } },
          required: ["invoice_id", "customer", "amount"],
          additionalProperties: false,
        },
        bound_to_arguments: { customer: "customer", amount: "amount" },
      },
      authorize: '"support" in principal.roles',
      approval: "args.amount > 100",
      target: {
        kind: "http",
        url: `${base}/invoices`,
        secret_headers: { authorization: { secret, prefix: "Bearer " } },
        status_url: `${base}/invoices/status/{status_ref}`,
        fence_url: `${base}/invoices/status/{status_ref}/fence`,
      },
    },
  };
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  // `connection: close`: the gate never reuses a connection this server might close meanwhile.
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), connection: "close" });
  res.end(text);
}

async function readBody(req, max) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > max) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Which tool an endpoint serves: `{ tool, kind, key? }`, or null. */
function routeOf(method, path) {
  if (method === "POST" && path === "/customers/lookup") return { tool: "lookup_customer", kind: "lookup" };
  if (method === "POST" && path === "/invoices") return { tool: "create_invoice", kind: "create" };
  const status = /^\/invoices\/status\/([^/]+)(\/fence)?$/.exec(path);
  if (status === null) return null;
  const key = decodeURIComponent(status[1]);
  if (method === "GET" && status[2] === undefined) return { tool: "create_invoice", kind: "status", key };
  if (method === "POST" && status[2] === "/fence") return { tool: "create_invoice", kind: "fence", key };
  return null;
}

/**
 * Starts the demo service on 127.0.0.1 (`port` 0: a free one). `keys`: the signing key of each
 * consumer it serves (`{ demo: consumerKey(secret, "demo") }`); `token`: the bearer token
 * `create_invoice` requires; `now`: the clock in milliseconds. Answers
 * `{ port, base, state(), close() }`.
 */
export async function startDemoService({ port = 0, keys, token, now = Date.now }) {
  const nonces = new Map();
  const invoices = new Map();
  const fenced = new Set();
  const fresh = (nonce) => {
    const seconds = Math.floor(now() / 1000);
    for (const [seen, at] of nonces) if (at < seconds - 2 * MAX_AGE_SECONDS) nonces.delete(seen);
    if (nonces.has(nonce)) return false;
    nonces.set(nonce, seconds);
    return true;
  };
  const observedAt = () => new Date(now()).toISOString().replace(/\.\d{3}Z$/, "Z");
  let base = "";
  const handle = async (req, res) => {
    const body = await readBody(req, 65_536);
    if (body === null) return send(res, 413, { error: "body too large" });
    // The URI the gate was configured with (docs/http-tools.md: rebuild it, never trust a Host header).
    const url = `${base}${req.url}`;
    const checked = verifyToolgateRequest({ method: req.method, url, headers: req.headers, body }, { keyOf: (c) => keys[c], nowSeconds: Math.floor(now() / 1000), fresh });
    if (!checked.ok) return send(res, 401, { error: checked.reason });
    const route = routeOf(req.method, new URL(url).pathname);
    if (route === null) return send(res, 404, { error: "no such endpoint" });
    const statement = checked.statement;
    if (statement.tool !== route.tool) return send(res, 403, { error: `this endpoint serves ${route.tool}` });
    if (route.tool === "create_invoice" && req.headers["authorization"] !== `Bearer ${token}`) return send(res, 403, { error: "bad token" });
    if (route.kind === "lookup") {
      const id = JSON.parse(body.toString("utf8")).customer;
      const found = Object.hasOwn(CUSTOMERS, id) ? CUSTOMERS[id] : undefined;
      if (found === undefined) return send(res, 404, { error: "no such customer" });
      return send(res, 200, { data: { customer: id, ...found }, resource_revision: null, observed_at: observedAt() });
    }
    if (route.kind === "create") {
      const key = statement.status_ref;
      if (key === undefined || req.headers["idempotency-key"] === undefined) return send(res, 400, { error: "a write needs an Idempotency-Key" });
      if (fenced.has(key)) return send(res, 409, { error: "this key is fenced" });
      if (!invoices.has(key)) {
        const args = JSON.parse(body.toString("utf8"));
        const n = invoices.size + 1;
        const data = { invoice_id: `INV-${n}`, customer: args.customer, amount: args.amount };
        invoices.set(key, { data, resource_revision: null, observed_at: observedAt(), request_id: `req-${n}`, receipt_id: `rcpt-INV-${n}` });
      }
      return send(res, 200, invoices.get(key));
    }
    // Status and fence: the statement asks about the key in the URL.
    if (statement.status_ref !== route.key) return send(res, 403, { error: "the statement's status_ref is not this key" });
    const result = invoices.get(route.key);
    if (result !== undefined) return send(res, 200, { state: "committed", result });
    if (route.kind === "fence") fenced.add(route.key);
    return send(res, 200, { state: fenced.has(route.key) ? "fenced" : "not_found" });
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 400, { error: "malformed request" });
      else res.destroy();
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const bound = server.address().port;
  base = `http://127.0.0.1:${bound}`;
  return {
    port: bound,
    base,
    /** What happened so far: invoices by key, fenced keys. */
    state: () => ({ invoices: Object.fromEntries(invoices), fenced: [...fenced] }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
