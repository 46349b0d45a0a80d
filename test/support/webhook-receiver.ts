/**
 * A webhook receiver behind workerd's outbound fetch in the worker tests (`https://hooks.test/<path>`),
 * as a consumer's receiver would be written: every delivery is verified with the `standardwebhooks`
 * library (`new Webhook(secret).verify(body, headers)`) under the secret the test registered for
 * its path; a verified delivery takes effect once per `webhook-id` (a redelivery is answered 200
 * and has no second effect). It records each delivery's raw body and headers, and answers 500 for
 * the next N deliveries of a path when told to.
 *
 * Tests drive it at `https://hooks.test/_control` (`{ reset?, secret?: {path, secret}, fail?: {path,
 * count} }`) and read it at `/_state`.
 */
import { Webhook } from "standardwebhooks";

/** One delivery the receiver saw. */
export interface ReceivedDelivery {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Whether `standardwebhooks` verified it (the library's error message otherwise). */
  verified: boolean;
  error: string | null;
  /** What the receiver answered. */
  status: number;
}

/** One effect: the first verified, accepted delivery of a `webhook-id` at a path. */
export interface Effect {
  path: string;
  id: string;
  type: string;
}

interface Control {
  reset?: boolean;
  secret?: { path: string; secret: string };
  fail?: { path: string; count: number };
}

function headerRecord(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => (out[name.toLowerCase()] = value));
  return out;
}

export class WebhookReceiver {
  readonly #secrets = new Map<string, string>();
  readonly #fail = new Map<string, number>();
  readonly #done = new Set<string>();
  readonly received: ReceivedDelivery[] = [];
  readonly effects: Effect[] = [];

  reset(): void {
    this.#secrets.clear();
    this.#fail.clear();
    this.#done.clear();
    this.received.length = 0;
    this.effects.length = 0;
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.hostname !== "hooks.test") return new Response("no such host", { status: 502 });
    if (url.pathname === "/_control") {
      const control = (await request.json()) as Control;
      if (control.reset === true) this.reset();
      if (control.secret !== undefined) this.#secrets.set(control.secret.path, control.secret.secret);
      if (control.fail !== undefined) this.#fail.set(control.fail.path, control.fail.count);
      return Response.json({ ok: true });
    }
    if (url.pathname === "/_state") return Response.json({ received: this.received, effects: this.effects });
    const body = await request.text();
    const headers = headerRecord(request.headers);
    const path = url.pathname;
    let error: string | null = null;
    try {
      const secret = this.#secrets.get(path);
      if (secret === undefined) throw new Error("no secret registered for this path");
      new Webhook(secret).verify(body, headers);
    } catch (thrown) {
      error = thrown instanceof Error ? thrown.message : String(thrown);
    }
    const fail = this.#fail.get(path) ?? 0;
    if (error === null && fail > 0) this.#fail.set(path, fail - 1);
    const status = error !== null ? 401 : fail > 0 ? 500 : 200;
    this.received.push({ path, headers, body, verified: error === null, error, status });
    const id = headers["webhook-id"] ?? "";
    if (status === 200 && !this.#done.has(`${path} ${id}`)) {
      this.#done.add(`${path} ${id}`);
      this.effects.push({ path, id, type: (JSON.parse(body) as { type: string }).type });
    }
    return new Response(status === 200 ? "ok" : "refused", { status });
  }
}
