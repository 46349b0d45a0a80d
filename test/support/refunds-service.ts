/**
 * A test-only refunds service for the gate's HTTP tools (`submit_refund`, `lookup_refund`),
 * implementing the downstream protocol of docs/http-api.md: it enforces idempotency keys,
 * answers status queries and honours fences. It knows the truth the gate cannot: how many
 * times each key was POSTed and which refunds were committed. Every tool request must carry
 * the gate's signed identity (docs/http-tools.md): an unsigned, tampered, stale, replayed or
 * wrong-key request is refused with 401 before anything runs, a statement naming another tool
 * or key with 403. Used behind the `DOWNSTREAM` service binding in workerd (`npm test` and the
 * reliability suite) and as a loopback HTTP server for `wrangler dev`. Scripted through
 * `POST /_control` (`{"mode"?, "delayMs"?, "reset"?, "release"?, "serve"?}`; `serve`: the only
 * consumers whose keys it holds, `null` for all); `GET /_effects`, `GET /_stats` and
 * `GET /_identities` (verified statements and refusals) report. The `/_` paths are unsigned.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import {
  publishedKey,
  TEST_SIGNING_SECRET,
  verifyToolgateRequest,
  type IdentityStatement,
} from "./identity-verifier.ts";

interface Receipt {
  data: { refund_id: string; order_ref: string; reason: string };
  resource_revision: string;
  observed_at: string;
  request_id: string;
  receipt_id: string;
}

/** A request the service verified, and the statement it carried. */
export interface VerifiedRequest {
  method: string;
  path: string;
  keyid: string;
  statement: IdentityStatement;
}

/** A request the service refused before running anything. */
export interface RefusedRequest {
  method: string;
  path: string;
  status: 401 | 403;
  reason: string;
}

/** The tool (and status_ref) a tool endpoint serves; `null` for any other path. */
function endpointOf(method: string, path: string): { tool: string; statusRef?: string } | null {
  if (method === "POST" && path === "/refunds") return { tool: "submit_refund" };
  if (method === "POST" && path === "/refunds/lookup") return { tool: "lookup_refund" };
  const status = /^\/refunds\/status\/([^/]+)(\/fence)?$/.exec(path);
  if (status === null || status[1] === undefined || (method === "POST") !== (status[2] !== undefined)) return null;
  return { tool: "submit_refund", statusRef: decodeURIComponent(status[1]) };
}

/** Header fields by lower-case name (a fetch `Headers` of any realm, or Node's incoming headers). */
function headerRecord(headers: Iterable<[string, string]> | IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = Symbol.iterator in headers ? [...(headers as Iterable<[string, string]>)] : Object.entries(headers);
  for (const [name, value] of entries)
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

/** How the next POSTs behave. */
export type RefundsMode = "ok" | "error" | "hold" | "error_after_commit" | "rate_limit";

/** The service's state and behaviour (one per test process). */
export class RefundsService {
  readonly posts = new Map<string, number>();
  readonly committed = new Map<string, Receipt>();
  /** Keys the gate fenced: a later POST with one is refused and never executes. */
  readonly fenced = new Set<string>();
  mode: RefundsMode = "ok";
  /** Fixed delay before a POST answers (holds a write in flight). */
  delayMs = 0;
  /** Extra random delay in [0, jitterMs). */
  jitterMs = 0;
  #effects = 0;
  /** POSTs waiting in a hold, and the last `Idempotency-Key` header as sent. */
  #waiting = 0;
  #lastIdempotencyKey: string | null = null;
  #release: (() => void) | undefined;
  #held: Promise<void> | undefined;
  #random: () => number = Math.random;
  /**
   * The gate's `TOOLGATE_SIGNING_KEY` (the test bindings' by default); a black-box test that
   * starts `wrangler dev` with another key sets it here (or binds this one).
   */
  signingSecret: string;
  /** Consumers whose published keys the service holds (`null`: every consumer's). */
  #serve: Set<string> | null = null;
  readonly #nonces = new Set<string>();
  /** Requests verified, in order, with their statements. */
  readonly verified: VerifiedRequest[] = [];
  /** Requests refused before anything ran. */
  readonly refused: RefusedRequest[] = [];

  constructor(options: { signingSecret?: string } = {}) {
    this.signingSecret = options.signingSecret ?? TEST_SIGNING_SECRET;
  }

  /** Uses a seeded random source for the jitter. */
  seed(random: () => number): void {
    this.#random = random;
  }

  /** Number of committed refunds (side effects). */
  get effects(): number {
    return this.#effects;
  }

  /** Keys POSTed more than once (a write the gate dispatched twice). */
  duplicates(): string[] {
    return [...this.posts].filter(([, n]) => n > 1).map(([k]) => k);
  }

  /** Holds every following POST until {@link release}. */
  hold(): void {
    this.mode = "hold";
    this.#held = new Promise((resolve) => (this.#release = resolve));
  }

  release(): void {
    this.mode = "ok";
    this.#release?.();
  }

  /** Forgets every key, receipt, fence, count and scripted behaviour. */
  reset(): void {
    this.mode = "ok";
    this.delayMs = 0;
    this.posts.clear();
    this.committed.clear();
    this.fenced.clear();
    this.#effects = 0;
    this.#lastIdempotencyKey = null;
    this.#serve = null;
    this.#nonces.clear();
    this.verified.length = 0;
    this.refused.length = 0;
  }

  /**
   * Verifies a tool request's identity and that it names this endpoint's tool (and key); answers
   * the refusal, or `null` to run it. Nothing of a refused request is counted or executed.
   */
  async admit(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: Uint8Array,
  ): Promise<RefusedRequest | null> {
    const path = new URL(url).pathname;
    // The public key the gate publishes for each consumer served: what a real downstream holds.
    const keysOf = (consumer: string) =>
      this.#serve === null || this.#serve.has(consumer) ? [publishedKey(this.signingSecret, consumer)] : undefined;
    const fresh = (nonce: string) => {
      if (this.#nonces.has(nonce)) return false;
      this.#nonces.add(nonce);
      return true;
    };
    const checked = await verifyToolgateRequest({ method, url, headers, body }, keysOf, fresh);
    const endpoint = endpointOf(method, path);
    let refusal: RefusedRequest | null = null;
    if (!checked.ok) refusal = { method, path, status: 401, reason: checked.reason };
    else if (endpoint !== null && checked.statement.tool !== endpoint.tool)
      refusal = { method, path, status: 403, reason: "statement names another tool" };
    else if (endpoint?.statusRef !== undefined && checked.statement.status_ref !== endpoint.statusRef)
      refusal = { method, path, status: 403, reason: "statement names another status_ref" };
    if (refusal !== null) {
      this.refused.push(refusal);
      return refusal;
    }
    if (checked.ok) this.verified.push({ method, path, keyid: checked.keyid, statement: checked.statement });
    return null;
  }

  /** Answers one request. */
  async handle(
    method: string,
    path: string,
    idempotencyKey: string | null,
    body: string,
  ): Promise<{ status: number; body: unknown }> {
    if (method === "POST" && path === "/refunds") {
      this.#lastIdempotencyKey = idempotencyKey;
      const key = idempotencyKey === null ? null : idempotencyKey.replace(/^"|"$/g, "");
      if (key === null) return { status: 400, body: { error: "idempotency key required" } };
      // A rate-limited request did not start: it is not counted, and the gate may send it again.
      if (this.mode === "rate_limit") return { status: 429, body: { error: "slow down" } };
      this.posts.set(key, (this.posts.get(key) ?? 0) + 1);
      if (this.mode === "error") return { status: 500, body: { error: "boom" } };
      if (this.mode === "hold" && this.#held !== undefined) {
        this.#waiting += 1;
        await this.#held;
        this.#waiting -= 1;
      }
      const wait = this.delayMs + (this.jitterMs > 0 ? Math.floor(this.#random() * this.jitterMs) : 0);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const args = JSON.parse(body) as { order_ref: string; reason: string };
      let receipt = this.committed.get(key);
      if (receipt === undefined && this.fenced.has(key))
        return { status: 409, body: { error: "idempotency key fenced" } };
      if (receipt === undefined) {
        this.#effects += 1;
        const n = this.#effects;
        receipt = {
          data: { refund_id: `RF-${n}`, order_ref: args.order_ref, reason: args.reason },
          resource_revision: `rf-${n}-r1`,
          observed_at: "2026-07-19T00:00:00Z",
          request_id: `refunds-request-${n}`,
          receipt_id: `refunds-receipt-${n}`,
        };
        this.committed.set(key, receipt);
      }
      if (this.mode === "error_after_commit") return { status: 504, body: { error: "gateway timeout" } };
      return { status: 200, body: receipt };
    }
    if (path.startsWith("/refunds/status/")) {
      const fence = method === "POST" && path.endsWith("/fence");
      const key = decodeURIComponent(path.slice("/refunds/status/".length, fence ? -"/fence".length : undefined));
      const receipt = this.committed.get(key);
      if (receipt !== undefined) return { status: 200, body: { state: "committed", result: receipt } };
      if (fence) this.fenced.add(key);
      return { status: 200, body: { state: this.fenced.has(key) ? "fenced" : "not_found" } };
    }
    if (method === "POST" && path === "/refunds/lookup") {
      if (this.mode === "rate_limit") return { status: 429, body: { error: "slow down" } };
      const args = JSON.parse(body) as { refund_id: string };
      return {
        status: 200,
        body: {
          data: { refund_id: args.refund_id, state: "submitted" },
          resource_revision: null,
          observed_at: "2026-07-19T00:00:00Z",
          request_id: "lookup-1",
        },
      };
    }
    return { status: 404, body: { error: "not found" } };
  }

  /** The service-binding handler (workerd tests). */
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/_control") {
      const control = (await request.json()) as {
        mode?: RefundsMode;
        delayMs?: number;
        release?: boolean;
        reset?: boolean;
        serve?: string[] | null;
      };
      if (control.reset === true) this.reset();
      if (control.serve !== undefined) this.#serve = control.serve === null ? null : new Set(control.serve);
      if (control.release === true) this.release();
      else if (control.mode === "hold") this.hold();
      else if (control.mode !== undefined) this.mode = control.mode;
      if (control.delayMs !== undefined) this.delayMs = control.delayMs;
      return Response.json({ mode: this.mode });
    }
    if (url.pathname === "/_effects") {
      return Response.json({
        effects: this.effects,
        waiting: this.#waiting,
        last_idempotency_key: this.#lastIdempotencyKey,
      });
    }
    if (url.pathname === "/_stats") {
      return Response.json({
        effects: this.effects,
        duplicates: this.duplicates(),
        posts: Object.fromEntries(this.posts),
        committed: [...this.committed.keys()],
      });
    }
    if (url.pathname === "/_identities") return Response.json({ verified: this.verified, refused: this.refused });
    const body = new Uint8Array(await request.arrayBuffer());
    const refusal = await this.admit(request.method, request.url, headerRecord(request.headers), body);
    if (refusal !== null) return Response.json({ error: refusal.reason }, { status: refusal.status });
    const answer = await this.handle(
      request.method,
      url.pathname,
      request.headers.get("idempotency-key"),
      new TextDecoder().decode(body),
    );
    return new Response(JSON.stringify(answer.body), {
      status: answer.status,
      headers: { "content-type": "application/json" },
    });
  }

  /** Serves the service on 127.0.0.1 (black-box tests); answers the server and its base URL. */
  async listen(): Promise<{ server: Server; base: string }> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const key = req.headers["idempotency-key"];
        const method = req.method ?? "GET";
        const body = Buffer.concat(chunks);
        // The target URI as the gate addressed it: TOOLGATE_DOWNSTREAM_URL is this server's base.
        this.admit(
          method,
          `http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`,
          headerRecord(req.headers),
          body,
        )
          .then((refusal) =>
            refusal !== null
              ? { status: refusal.status, body: { error: refusal.reason } }
              : this.handle(
                  method,
                  (req.url ?? "/").split("?")[0] ?? "/",
                  typeof key === "string" ? key : null,
                  body.toString(),
                ),
          )
          .then((answer) => {
            res.writeHead(answer.status, { "content-type": "application/json" });
            res.end(JSON.stringify(answer.body));
          })
          .catch(() => {
            res.writeHead(500);
            res.end();
          });
      });
    });
    server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    return { server, base: `http://127.0.0.1:${port}` };
  }
}
