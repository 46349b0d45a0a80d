// The local demo downstream `npm start` runs on 127.0.0.1: the target of the two tools it defines
// as data (docs/tools.md). It speaks the downstream protocol of data-defined tools:
//   POST /customers/lookup              lookup_customer (a read)
//   POST /invoices                      create_invoice (a write, idempotent by its Idempotency-Key,
//                                       which needs `Authorization: Bearer <token>`: the tool's secret header)
//   GET  /invoices/status/{status_ref}  what happened to a write: committed (with its result) or not_found
//   POST /invoices/status/{status_ref}/fence   refuse that key from now on (answers its result if it committed)
// Every request must carry the gate's signature (docs/http-tools.md), checked with the gate's
// published public key (demo-identity.ts). State lives in memory and ends with the process.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { keyring, MAX_AGE_SECONDS, verifyToolgateRequest, type Jwk } from "./demo-identity.ts";

/** The demo's customers (what `lookup_customer` reads). */
export const CUSTOMERS: Readonly<Record<string, { name: string; tier: string; balance_cents: number }>> = {
  acme: { name: "Acme Corporation", tier: "gold", balance_cents: 125_000 },
  globex: { name: "Globex", tier: "silver", balance_cents: 0 },
  initech: { name: "Initech", tier: "bronze", balance_cents: 4_250 },
};

/**
 * The two tools as data, targeting the demo service at `base` (`http://127.0.0.1:<port>`):
 * `lookup_customer` (a read) and `create_invoice` (a write that needs a human above 100, a CEL
 * rule; its authorization header is the consumer secret `secret`).
 */
export function demoTools(base: string, secret = "demo_service_token"): DemoTools {
  const customer = {
    type: "string",
    description: "The customer's id, such as acme.",
    pattern: "^[a-z][a-z0-9-]*$",
    maxLength: 32,
  };
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
          properties: {
            invoice_id: { type: "string", pattern: "^INV-[0-9]+$", maxLength: 16 },
            customer: { type: "string" },
            amount: { type: "integer" },
          },
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

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  // `connection: close`: the gate never reuses a connection this server might close meanwhile.
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    connection: "close",
  });
  res.end(text);
}

async function readBody(req: IncomingMessage, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Which tool an endpoint serves: `{ tool, kind, key? }`, or null. */
function routeOf(method: string, path: string): Route | null {
  if (method === "POST" && path === "/customers/lookup") return { tool: "lookup_customer", kind: "lookup" };
  if (method === "POST" && path === "/invoices") return { tool: "create_invoice", kind: "create" };
  const status = /^\/invoices\/status\/([^/]+)(\/fence)?$/.exec(path);
  if (status === null) return null;
  const key = decodeURIComponent(status[1] ?? "");
  if (method === "GET" && status[2] === undefined) return { tool: "create_invoice", kind: "status", key };
  if (method === "POST" && status[2] === "/fence") return { tool: "create_invoice", kind: "fence", key };
  return null;
}

/**
 * Starts the demo service on 127.0.0.1 (`port` 0: a free one). `keys`: for each consumer it
 * serves, the gate's published keys of that consumer — the URL of
 * `GET /v1/consumers/{consumer}/signing-keys`, or the JWK Set itself (see {@link keyring});
 * `token`: the bearer token `create_invoice` requires; `now`: the clock in milliseconds.
 * Answers `{ port, base, state(), close() }`.
 */
export async function startDemoService({
  port = 0,
  keys,
  token,
  now = Date.now,
}: DemoServiceOptions): Promise<DemoService> {
  const keysOf = keyring(keys, now);
  const nonces = new Map<string, number>();
  const invoices = new Map<string, InvoiceResult>();
  const fenced = new Set<string>();
  const fresh = (nonce: string): boolean => {
    const seconds = Math.floor(now() / 1000);
    for (const [seen, at] of nonces) if (at < seconds - 2 * MAX_AGE_SECONDS) nonces.delete(seen);
    if (nonces.has(nonce)) return false;
    nonces.set(nonce, seconds);
    return true;
  };
  const observedAt = () => new Date(now()).toISOString().replace(/\.\d{3}Z$/, "Z");
  let base = "";
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req, 65_536);
    if (body === null) return send(res, 413, { error: "body too large" });
    // The URI the gate was configured with (docs/http-tools.md: rebuild it, never trust a Host header).
    const url = `${base}${req.url ?? ""}`;
    const method = req.method ?? "";
    const checked = await verifyToolgateRequest(
      { method, url, headers: req.headers, body },
      { keysOf, nowSeconds: Math.floor(now() / 1000), fresh },
    );
    if (!checked.ok) return send(res, 401, { error: checked.reason });
    const route = routeOf(method, new URL(url).pathname);
    if (route === null) return send(res, 404, { error: "no such endpoint" });
    const statement = checked.statement;
    if (statement.tool !== route.tool) return send(res, 403, { error: `this endpoint serves ${route.tool}` });
    if (route.tool === "create_invoice" && req.headers["authorization"] !== `Bearer ${token}`)
      return send(res, 403, { error: "bad token" });
    if (route.kind === "lookup") {
      // A signed request from the gate, its body checked against the tool's input schema there;
      // a body that is not what the tool sends is a 400 (the catch below).
      const id: unknown = (JSON.parse(body.toString("utf8")) as { customer?: unknown }).customer;
      const found = typeof id === "string" && Object.hasOwn(CUSTOMERS, id) ? CUSTOMERS[id] : undefined;
      if (found === undefined) return send(res, 404, { error: "no such customer" });
      return send(res, 200, { data: { customer: id, ...found }, resource_revision: null, observed_at: observedAt() });
    }
    if (route.kind === "create") {
      const key = statement.status_ref;
      if (key === undefined || req.headers["idempotency-key"] === undefined)
        return send(res, 400, { error: "a write needs an Idempotency-Key" });
      if (fenced.has(key)) return send(res, 409, { error: "this key is fenced" });
      if (!invoices.has(key)) {
        const args = JSON.parse(body.toString("utf8")) as { customer?: unknown; amount?: unknown };
        const n = invoices.size + 1;
        const data = { invoice_id: `INV-${n}`, customer: args.customer, amount: args.amount };
        invoices.set(key, {
          data,
          resource_revision: null,
          observed_at: observedAt(),
          request_id: `req-${n}`,
          receipt_id: `rcpt-INV-${n}`,
        });
      }
      return send(res, 200, invoices.get(key));
    }
    // Status and fence: the statement asks about the key in the URL.
    if (statement.status_ref !== route.key)
      return send(res, 403, { error: "the statement's status_ref is not this key" });
    const key = route.key ?? "";
    const result = invoices.get(key);
    if (result !== undefined) return send(res, 200, { state: "committed", result });
    if (route.kind === "fence") fenced.add(key);
    return send(res, 200, { state: fenced.has(key) ? "fenced" : "not_found" });
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 400, { error: "malformed request" });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${bound}`;
  return {
    port: bound,
    base,
    /** What happened so far: invoices by key, fenced keys. */
    state: () => ({ invoices: Object.fromEntries(invoices), fenced: [...fenced] }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A tool definition as the admin API takes it (`PUT /v1/consumers/{c}/tools/{name}`). */
export type ToolDefinitionBody = Record<string, unknown>;

/** The demo's two tools as data. */
export type DemoTools = {
  lookup_customer: ToolDefinitionBody;
  create_invoice: ToolDefinitionBody;
};

/** One endpoint of the service. */
interface Route {
  tool: "lookup_customer" | "create_invoice";
  kind: "lookup" | "create" | "status" | "fence";
  key?: string;
}

/** What a committed write answers. */
interface InvoiceResult {
  data: { invoice_id: string; customer: unknown; amount: unknown };
  resource_revision: null;
  observed_at: string;
  request_id: string;
  receipt_id: string;
}

/** What {@link startDemoService} takes. */
export interface DemoServiceOptions {
  port?: number;
  keys: Readonly<Record<string, string | { keys: Jwk[] }>>;
  token: string;
  now?: () => number;
}

/** A running demo service. */
export interface DemoService {
  port: number;
  base: string;
  state: () => { invoices: Record<string, InvoiceResult>; fenced: string[] };
  close: () => Promise<void>;
}
