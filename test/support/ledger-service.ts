/**
 * The downstream of the data-defined tools in the worker tests, reached through workerd's
 * outbound fetch (`https://ledger.test/...`): a write (`POST /invoices`, idempotent by key,
 * with status and fence endpoints for reconciliation) and a read (`POST /customers/lookup`).
 * Every request must carry a valid toolgate signature (checked with the independent verifier)
 * and, when a token is configured, `Authorization: Bearer <token>` from the tool's secret header.
 * Tests drive it at `https://ledger.test/_control` and read it at `/_state`.
 */
import { publishedKey, TEST_SIGNING_SECRET, verifyToolgateRequest } from "./identity-verifier.ts";

type Mode = "ok" | "error_after_commit" | "error";

interface Invoice {
  invoice_id: string;
  customer: string;
  amount: number;
}

function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => (out[name.toLowerCase()] = value));
  return out;
}

const OBSERVED_AT = "2026-07-18T00:00:00Z";

export class LedgerService {
  mode: Mode = "ok";
  token: string | null = null;
  /** Writes that took effect, by idempotency key. */
  readonly invoices = new Map<string, Invoice>();
  readonly posts = new Map<string, number>();
  readonly fenced = new Set<string>();
  readonly seen: Array<{
    method: string;
    path: string;
    authorization: string | null;
    subject: string | null;
    tool: string | null;
  }> = [];
  readonly refused: string[] = [];
  readonly #nonces = new Set<string>();

  reset(): void {
    this.mode = "ok";
    this.token = null;
    this.invoices.clear();
    this.posts.clear();
    this.fenced.clear();
    this.seen.length = 0;
    this.refused.length = 0;
    this.#nonces.clear();
  }

  #result(invoice: Invoice, key: string) {
    return {
      data: { ...invoice },
      resource_revision: null,
      observed_at: OBSERVED_AT,
      request_id: `req-${key}`,
      receipt_id: `rcpt-${invoice.invoice_id}`,
    };
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.hostname !== "ledger.test") return Response.json({ error: "no such host in the tests" }, { status: 502 });
    if (url.pathname === "/_control") {
      const control = (await request.json()) as { reset?: boolean; mode?: Mode; token?: string | null };
      if (control.reset === true) this.reset();
      if (control.mode !== undefined) this.mode = control.mode;
      if (control.token !== undefined) this.token = control.token;
      return Response.json({ mode: this.mode });
    }
    if (url.pathname === "/_state") {
      return Response.json({
        invoices: Object.fromEntries(this.invoices),
        posts: Object.fromEntries(this.posts),
        fenced: [...this.fenced],
        seen: this.seen,
        refused: this.refused,
      });
    }
    const body = new Uint8Array(await request.arrayBuffer());
    const headers = headerRecord(request.headers);
    const fresh = (nonce: string) => !this.#nonces.has(nonce) && this.#nonces.add(nonce) !== undefined;
    const checked = await verifyToolgateRequest(
      { method: request.method, url: request.url, headers, body },
      (c) => [publishedKey(TEST_SIGNING_SECRET, c)],
      fresh,
    );
    if (!checked.ok) {
      this.refused.push(`${request.method} ${url.pathname}: ${checked.reason}`);
      return Response.json({ error: checked.reason }, { status: 401 });
    }
    const authorization = headers["authorization"] ?? null;
    this.seen.push({
      method: request.method,
      path: url.pathname,
      authorization,
      subject: checked.statement.subject_id,
      tool: checked.statement.tool,
    });
    // The invoice endpoints need the token (a tool's secret header); the customer lookup does not.
    if (url.pathname.startsWith("/invoices") && this.token !== null && authorization !== `Bearer ${this.token}`)
      return Response.json({ error: "bad token" }, { status: 403 });
    const args = body.length === 0 ? {} : (JSON.parse(new TextDecoder().decode(body)) as Record<string, unknown>);
    const status = /^\/invoices\/status\/([^/]+)(\/fence)?$/.exec(url.pathname);
    if (request.method === "POST" && url.pathname === "/customers/lookup") {
      return Response.json({
        data: { customer: args.customer, tier: "gold" },
        resource_revision: null,
        observed_at: OBSERVED_AT,
      });
    }
    if (request.method === "POST" && url.pathname === "/invoices") {
      const key = (headers["idempotency-key"] ?? "").replace(/^"|"$/g, "");
      if (key === "") return Response.json({ error: "idempotency key required" }, { status: 400 });
      if (this.fenced.has(key)) return Response.json({ error: "fenced" }, { status: 409 });
      this.posts.set(key, (this.posts.get(key) ?? 0) + 1);
      if (this.mode === "error") return Response.json({ error: "boom" }, { status: 500 });
      const invoice = this.invoices.get(key) ?? {
        invoice_id: `INV-${this.invoices.size + 1}`,
        customer: String(args.customer),
        amount: Number(args.amount),
      };
      this.invoices.set(key, invoice);
      if (this.mode === "error_after_commit") return Response.json({ error: "lost after commit" }, { status: 502 });
      return Response.json(this.#result(invoice, key));
    }
    if (status !== null) {
      const key = decodeURIComponent(status[1] as string);
      const invoice = this.invoices.get(key);
      if (invoice !== undefined) return Response.json({ state: "committed", result: this.#result(invoice, key) });
      if (status[2] === "/fence") {
        this.fenced.add(key);
        return Response.json({ state: "fenced" });
      }
      return Response.json({ state: this.fenced.has(key) ? "fenced" : "not_found" });
    }
    return Response.json({ error: "no such endpoint" }, { status: 404 });
  }
}
