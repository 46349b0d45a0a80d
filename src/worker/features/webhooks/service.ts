/**
 * The consumer's webhook endpoints and their outbox. `enqueue` is a durable listener of the
 * object's event bus: inside the transaction that made an event it stores one message (its
 * `webhook-id` fixed for life, its body written once) and one delivery per endpoint that takes
 * the event, then asks the alarm for now; `deliver` (./deliver) sends them from the alarm.
 * @module
 */
import { canonicalJson } from "../../../core/json";
import { formatUtcSecond } from "../../../core/tool-result/utc-time";
import {
  EVENT_TYPES,
  withoutArguments,
  type ApprovalEventData,
  type CallEventData,
  type GateEvent,
} from "../../../contracts/events";
import type { WebhookDeliveryView, WebhookEndpointRequest, WebhookEndpointView } from "../../../contracts/webhook";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { ObjectKernel } from "../../kernel/kernel";
import { cursorCodec, safeIntegerKey } from "../../kernel/cursor";
import { listPage, seqKey } from "../../kernel/list-page";
import { randomHex } from "../../kernel/random-id";
import type { SecretVault } from "../secrets/vault";
import { checkUrl } from "../tools/build";
import { deliverDue, nextDue, sealName } from "./deliver";
import { newSecret } from "./sign";
import { WebhookStore, type StoredDelivery, type StoredEndpoint } from "./store";

/** Endpoints a consumer may have. */
export const MAX_WEBHOOK_ENDPOINTS = 16;
/** Pending deliveries one endpoint may queue; a message beyond that is logged `failed` (`backlog_full`) at once. */
export const MAX_WEBHOOK_BACKLOG = 1000;

/** What the service uses of the kernel: its tables, the audit chain, the target rule, the clocks, the outbound fetch, one transaction step and the alarm's webhooks slot. */
type WebhookKernel = Pick<
  ObjectKernel,
  "sql" | "audit" | "targets" | "now" | "wallMs" | "fetch" | "transaction" | "alarms"
>;

/** The delivery log's cursors: the `seq` the next page (newest first) starts before. */
const DELIVERIES_CURSOR = cursorCodec<number>({
  prefix: "webhook-deliveries:v1:",
  maxChars: 200,
  write: String,
  read: safeIntegerKey(/^[1-9][0-9]{0,15}$/),
  detail: "The cursor is not one this route answered; start again without it.",
});

function endpointView(endpoint: StoredEndpoint): WebhookEndpointView {
  return {
    endpoint_id: endpoint.endpointId,
    url: endpoint.url,
    events: [...endpoint.events],
    include_arguments: endpoint.includeArguments,
    description: endpoint.description,
    created_at: endpoint.createdAt,
  };
}

/** The consumer's webhooks: endpoints, the outbox, the delivery log. */
export class WebhookService {
  readonly #kernel: WebhookKernel;
  /** Seals the endpoints' secrets (the consumer secrets' vault, under names of their own). */
  readonly #vault: SecretVault;
  readonly #tables: WebhookStore;
  /** Delivery runs, one after the other (an alarm and a test's run never attempt the same head twice). */
  #runs: Promise<unknown> = Promise.resolve();

  /** The gate's public origin (`TOOLGATE_PUBLIC_URL`), for the console links of approvals; null: none. */
  readonly #origin: string | null;

  constructor(kernel: WebhookKernel, vault: SecretVault, origin: string | null = null) {
    this.#kernel = kernel;
    this.#vault = vault;
    this.#origin = origin;
    this.#tables = new WebhookStore(kernel.sql);
  }

  /** Creates an endpoint (`request`: validated at the object's boundary); its signing secret is answered this once and stored sealed. */
  async create(request: WebhookEndpointRequest): Promise<Outcome<string>> {
    const vault = this.#vault;
    const targets = this.#kernel.targets;
    if (!vault.enabled)
      return fail(
        problem(
          "WEBHOOKS_NOT_CONFIGURED",
          "The gate has no TOOLGATE_SECRETS_KEY: webhook signing secrets cannot be stored.",
        ),
      );
    const refused = checkUrl(request.url, "/url", targets);
    // The data tools' rule (https; loopback http only where the Worker allows it), worded for webhooks.
    if (refused !== null)
      return fail({
        ...problem("INVALID_REQUEST", refused.message.replace("a target URL", "a webhook URL")),
        path: refused.pointer,
      });
    if (this.#tables.endpoints().length >= MAX_WEBHOOK_ENDPOINTS)
      return fail(problem("QUOTA_EXCEEDED", `A consumer has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints.`));
    const endpointId = `ep_${randomHex(16)}`;
    const secret = newSecret();
    const sealed = await vault.seal(sealName(endpointId), secret);
    const now = this.#kernel.now();
    const events = EVENT_TYPES.filter((type) => request.events.includes(type));
    const endpoint: StoredEndpoint = {
      endpointId,
      url: request.url,
      events,
      includeArguments: request.include_arguments,
      description: request.description ?? null,
      sealed,
      createdAt: now,
    };
    const added = this.#kernel.transaction(() => {
      if (this.#tables.endpoints().length >= MAX_WEBHOOK_ENDPOINTS) return false;
      this.#tables.addEndpoint(endpoint, canonicalJson(events));
      // The origin only: a receiver's URL may carry a token in its path or query.
      this.#kernel.audit.append("webhook.created", now, {
        endpoint_id: endpointId,
        origin: new URL(request.url).origin,
        events,
        include_arguments: request.include_arguments,
      });
      return true;
    });
    if (!added)
      return fail(problem("QUOTA_EXCEEDED", `A consumer has at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints.`));
    return ok(canonicalJson({ ...endpointView(endpoint), secret }));
  }

  /** One page of the endpoints, oldest first. */
  list(cursor: string | null, pageItems: number): Outcome<string> {
    const page = listPage(
      "webhooks",
      this.#tables.endpoints(),
      (endpoint) => seqKey(endpoint.seq ?? 0),
      cursor,
      pageItems,
    );
    return page.ok
      ? ok(canonicalJson({ endpoints: page.value.items.map(endpointView), next_cursor: page.value.next_cursor }))
      : page;
  }

  get(endpointId: string): Outcome<string> {
    const endpoint = this.#tables.endpoint(endpointId);
    return endpoint === undefined
      ? fail(problem("NOT_FOUND", "No such webhook endpoint."))
      : ok(canonicalJson(endpointView(endpoint)));
  }

  /** Deletes an endpoint, its secret and its deliveries (pending ones are never sent). */
  delete(endpointId: string): Outcome<null> {
    const now = this.#kernel.now();
    const deleted = this.#kernel.transaction(() => {
      const had = this.#tables.deleteEndpoint(endpointId);
      if (had) this.#kernel.audit.append("webhook.deleted", now, { endpoint_id: endpointId });
      return had;
    });
    if (!deleted) return fail(problem("NOT_FOUND", "No such webhook endpoint."));
    this.rearm();
    return ok(null);
  }

  /**
   * The durable listener (inside the event's transaction): one message if any endpoint takes
   * the event, one delivery per such endpoint, and the alarm asked for now.
   */
  enqueue(event: GateEvent, now: number): void {
    const endpoints = this.#tables.endpoints().filter((endpoint) => endpoint.events.includes(event.type));
    if (endpoints.length === 0) return;
    const messageId = `msg_${randomHex(16)}`;
    const timestamp = formatUtcSecond(now);
    const data = this.#withLinks(event);
    const body = canonicalJson({ type: event.type, timestamp, data: withoutArguments(data) });
    const withArguments = event.data.arguments !== undefined && endpoints.some((endpoint) => endpoint.includeArguments);
    this.#tables.addMessage(
      messageId,
      event.type,
      now,
      body,
      withArguments ? canonicalJson({ type: event.type, timestamp, data }) : null,
    );
    for (const endpoint of endpoints) {
      const full = this.#tables.pendingCount(endpoint.endpointId) >= MAX_WEBHOOK_BACKLOG;
      this.#tables.addDelivery(
        `dlv_${randomHex(16)}`,
        endpoint.endpointId,
        messageId,
        now,
        full ? "backlog_full" : null,
      );
    }
    this.#kernel.alarms.set("webhooks", this.#kernel.wallMs());
  }

  /** An event's data as delivered: an approval's carries its console page where the gate knows its public origin. */
  #withLinks(event: GateEvent): (ApprovalEventData & { console_url?: string }) | CallEventData {
    const origin = this.#origin;
    if (origin === null || (event.type !== "approval.requested" && event.type !== "approval.decided"))
      return event.data;
    return { ...event.data, console_url: `${origin}/console/approvals/${event.data.approval_id}` };
  }

  /** A new delivery of a finished delivery's message to its endpoint: the same `webhook-id` and body. */
  redeliver(deliveryId: string): Outcome<string> {
    const now = this.#kernel.now();
    const done = this.#kernel.transaction((): Outcome<string> => {
      const previous = this.#tables.delivery(deliveryId);
      if (previous === undefined) return fail(problem("NOT_FOUND", "No such webhook delivery."));
      if (previous.state === "pending")
        return fail(
          problem(
            "WEBHOOK_DELIVERY_PENDING",
            "The delivery is still pending: it will be attempted without a redelivery.",
          ),
        );
      if (this.#tables.pendingCount(previous.endpointId) >= MAX_WEBHOOK_BACKLOG)
        return fail(problem("QUOTA_EXCEEDED", `An endpoint queues at most ${MAX_WEBHOOK_BACKLOG} pending deliveries.`));
      const id = `dlv_${randomHex(16)}`;
      this.#tables.addDelivery(id, previous.endpointId, previous.messageId, now, null, previous.deliveryId);
      return ok(id);
    });
    if (!done.ok) return done;
    this.#kernel.alarms.set("webhooks", this.#kernel.wallMs());
    return ok(canonicalJson(this.#view(this.#stored(done.value))));
  }

  /** One page of the delivery log, newest first (`endpointId` null: every endpoint's). */
  deliveries(endpointId: string | null, cursor: string | null, pageItems: number): Outcome<string> {
    if (endpointId !== null && this.#tables.endpoint(endpointId) === undefined)
      return fail(problem("NOT_FOUND", "No such webhook endpoint."));
    let before = Number.MAX_SAFE_INTEGER;
    if (cursor !== null) {
      const seq = DELIVERIES_CURSOR.read(cursor);
      if (!seq.ok) return seq;
      before = seq.value;
    }
    const limit = Math.max(1, pageItems);
    const rows = this.#tables.deliveries(endpointId, before, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const next = rows.length > limit && last !== undefined ? DELIVERIES_CURSOR.encode(last.seq) : null;
    return ok(canonicalJson({ deliveries: page.map((d) => this.#view(d)), next_cursor: next }));
  }

  /** Sends what is due (serialised: a run waits for the one before it), then re-arms the alarm. */
  deliver(): Promise<void> {
    const run = this.#runs.then(() => deliverDue(this.#kernel, this.#tables, this.#vault));
    this.#runs = run.catch(() => undefined);
    return run.then((due) => this.#arm(due));
  }

  /** Asks the alarm for the next due delivery (after a start, when the alarm's other deadlines were forgotten). */
  rearm(): void {
    const due = nextDue(this.#tables);
    if (due !== null) this.#arm(due);
  }

  #arm(due: number | null): void {
    this.#kernel.alarms.set(
      "webhooks",
      due === null ? null : this.#kernel.wallMs() + Math.max(0, due - this.#kernel.now()) * 1000,
    );
  }

  #stored(deliveryId: string): StoredDelivery {
    const stored = this.#tables.delivery(deliveryId);
    if (stored === undefined) throw new Error("a delivery just stored is missing");
    return stored;
  }

  #view(delivery: StoredDelivery): WebhookDeliveryView {
    return {
      delivery_id: delivery.deliveryId,
      endpoint_id: delivery.endpointId,
      message_id: delivery.messageId,
      event_type: delivery.type,
      state: delivery.state,
      failure: delivery.failure,
      attempts: this.#tables.attempts(delivery.deliveryId).map((a) => ({
        attempt: a.attempt,
        at: a.at,
        status_code: a.statusCode,
        duration_ms: a.durationMs,
        error: a.error,
      })),
      next_attempt_at: delivery.state === "pending" ? delivery.nextAttemptAt : null,
      created_at: delivery.createdAt,
      finished_at: delivery.finishedAt,
      redelivery_of: delivery.redeliveryOf,
    };
  }
}

/** The origin of `TOOLGATE_PUBLIC_URL`, or null when it is unset or not an http(s) URL. */
export function publicOrigin(value: string | undefined): string | null {
  if (value === undefined) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  return url.protocol === "https:" || url.protocol === "http:" ? url.origin : null;
}
