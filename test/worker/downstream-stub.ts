/**
 * A test-only refunds service for the HTTP tools, run by Miniflare in Node behind the
 * `DOWNSTREAM` service binding. It enforces idempotency keys and honours fences (a fenced key
 * never executes; see docs/http-api.md). State lives in this process; `POST /_control` scripts the next
 * answers (`{"mode":"ok"|"rate_limit"|"fail_after_commit"|"error"|"hold"}`, `{"release":true}`) and `GET /_effects` counts
 * committed refunds, so tests can see side effects.
 */
interface Committed {
  result: { data: Record<string, string>; resource_revision: string; observed_at: string; request_id: string; receipt_id: string };
}

const committed = new Map<string, Committed>();
/** Keys the gate fenced: never executed from then on. */
const fenced = new Set<string>();
let mode: "ok" | "rate_limit" | "fail_after_commit" | "error" | "hold" = "ok";
let release: (() => void) | undefined;
let held: Promise<void> | undefined;
let waiting = 0;
let effects = 0;
let lastIdempotencyKey: string | null = null;

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

/** The service binding's handler. */
export async function downstreamStub(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === "/_control" && request.method === "POST") {
    const body = (await request.json()) as { mode?: typeof mode; reset?: boolean; release?: boolean };
    if (body.release === true) {
      release?.();
      return json({ released: true });
    }
    if (body.reset === true) {
      committed.clear();
      fenced.clear();
      effects = 0;
      lastIdempotencyKey = null;
    }
    mode = body.mode ?? "ok";
    if (mode === "hold") held = new Promise((resolve) => (release = resolve));
    return json({ mode });
  }
  if (url.pathname === "/_effects") return json({ effects, waiting, last_idempotency_key: lastIdempotencyKey });
  if (url.pathname === "/refunds" && request.method === "POST") {
    const raw = request.headers.get("idempotency-key");
    lastIdempotencyKey = raw;
    const key = raw === null ? null : raw.replace(/^"|"$/g, "");
    if (mode === "rate_limit") return json({ error: "slow down" }, 429);
    if (mode === "error") return json({ error: "boom" }, 500);
    if (key === null) return json({ error: "idempotency key required" }, 400);
    const args = (await request.json()) as { order_ref: string; reason: string };
    if (mode === "hold" && held !== undefined) {
      waiting += 1;
      await held;
      waiting -= 1;
    }
    let entry = committed.get(key);
    if (entry === undefined && fenced.has(key)) return json({ error: "idempotency key fenced" }, 409);
    if (entry === undefined) {
      effects += 1;
      entry = {
        result: {
          data: { refund_id: `RF-${effects}`, order_ref: args.order_ref, reason: args.reason },
          resource_revision: `rf-${effects}-r1`,
          observed_at: "2026-07-19T00:00:00Z",
          request_id: `refunds-request-${effects}`,
          receipt_id: `refunds-receipt-${effects}`,
        },
      };
      committed.set(key, entry);
    }
    if (mode === "fail_after_commit") return json({ error: "gateway timeout" }, 504);
    return json(entry.result);
  }
  if (url.pathname.startsWith("/refunds/status/")) {
    const fence = url.pathname.endsWith("/fence") && request.method === "POST";
    const key = decodeURIComponent(url.pathname.slice("/refunds/status/".length, fence ? -"/fence".length : undefined));
    const entry = committed.get(key);
    if (entry !== undefined) return json({ state: "committed", result: entry.result });
    if (fence) fenced.add(key);
    return json({ state: fenced.has(key) ? "fenced" : "not_found" });
  }
  if (url.pathname === "/refunds/lookup" && request.method === "POST") {
    if (mode === "rate_limit") return json({ error: "slow down" }, 429);
    const args = (await request.json()) as { refund_id: string };
    return json({ data: { refund_id: args.refund_id, state: "submitted" }, resource_revision: null, observed_at: "2026-07-19T00:00:00Z", request_id: "lookup-1" });
  }
  return json({ error: "not found" }, 404);
}
