/**
 * A test-only refunds service for the gate's HTTP tools (`submit_refund`, `lookup_refund`),
 * implementing the downstream protocol of docs/http-api.md: it enforces idempotency keys,
 * answers status queries and honours fences. It knows the truth the gate cannot: how many
 * times each key was POSTed and which refunds were committed. Used behind the `DOWNSTREAM`
 * service binding in workerd (`npm test` and the reliability suite) and as a loopback HTTP
 * server for `wrangler dev`. Scripted through `POST /_control`
 * (`{"mode"?, "delayMs"?, "reset"?, "release"?}`); `GET /_effects` and `GET /_stats` report.
 */
import { createServer, type Server } from "node:http";

interface Receipt {
  data: { refund_id: string; order_ref: string; reason: string };
  resource_revision: string;
  observed_at: string;
  request_id: string;
  receipt_id: string;
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
  }

  /** Answers one request. */
  async handle(method: string, path: string, idempotencyKey: string | null, body: string): Promise<{ status: number; body: unknown }> {
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
      if (receipt === undefined && this.fenced.has(key)) return { status: 409, body: { error: "idempotency key fenced" } };
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
      return { status: 200, body: { data: { refund_id: args.refund_id, state: "submitted" }, resource_revision: null, observed_at: "2026-07-19T00:00:00Z", request_id: "lookup-1" } };
    }
    return { status: 404, body: { error: "not found" } };
  }

  /** The service-binding handler (workerd tests). */
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/_control") {
      const control = (await request.json()) as { mode?: RefundsMode; delayMs?: number; release?: boolean; reset?: boolean };
      if (control.reset === true) this.reset();
      if (control.release === true) this.release();
      else if (control.mode === "hold") this.hold();
      else if (control.mode !== undefined) this.mode = control.mode;
      if (control.delayMs !== undefined) this.delayMs = control.delayMs;
      return Response.json({ mode: this.mode });
    }
    if (url.pathname === "/_effects") {
      return Response.json({ effects: this.effects, waiting: this.#waiting, last_idempotency_key: this.#lastIdempotencyKey });
    }
    if (url.pathname === "/_stats") {
      return Response.json({ effects: this.effects, duplicates: this.duplicates(), posts: Object.fromEntries(this.posts), committed: [...this.committed.keys()] });
    }
    const answer = await this.handle(request.method, url.pathname, request.headers.get("idempotency-key"), await request.text());
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { "content-type": "application/json" } });
  }

  /** Serves the service on 127.0.0.1 (black-box tests); answers the server and its base URL. */
  async listen(): Promise<{ server: Server; base: string }> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const key = req.headers["idempotency-key"];
        this.handle(req.method ?? "GET", (req.url ?? "/").split("?")[0] ?? "/", typeof key === "string" ? key : null, Buffer.concat(chunks).toString())
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
