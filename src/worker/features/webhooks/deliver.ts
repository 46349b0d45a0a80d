/**
 * Delivery of the queued webhook messages, from the object's alarm. Each endpoint's deliveries
 * go strictly in order: only the first pending one (the head) is attempted, so a later message
 * waits until the earlier one is delivered or given up (an `approval.requested` always reaches a
 * receiver before its `approval.decided`). A run attempts at most {@link DELIVERIES_PER_RUN}
 * deliveries, each bounded by {@link ATTEMPT_TIMEOUT_MS}; a failed attempt is retried after
 * {@link RETRY_DELAYS_SECONDS}, and after {@link MAX_ATTEMPTS} the delivery is `failed`. Every
 * attempt is logged: its status code, duration and error class, never the secret, the
 * signature or the receiver's answer.
 * @module
 */
import type { WebhookAttemptError } from "../../../contracts/webhook";
import type { ObjectKernel } from "../../kernel/kernel";
import type { SecretVault } from "../secrets/vault";
import { signedHeaders } from "./sign";
import type { StoredDelivery, StoredEndpoint, WebhookStore } from "./store";
import { TargetRefused } from "../../targets/fetch";

/** Attempts of one delivery before it is given up. */
export const MAX_ATTEMPTS = 8;
/** Seconds to wait after failed attempt n (index n − 1) before attempt n + 1. */
export const RETRY_DELAYS_SECONDS = [5, 30, 120, 600, 3600, 7200, 14_400] as const;
/** Deliveries one alarm run attempts at most (the rest wait for the next run, armed at once). */
export const DELIVERIES_PER_RUN = 16;
/** How long one attempt may take before it counts as a `timeout`. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Finished deliveries (and their messages) are kept this long in the log. */
export const RETENTION_SECONDS = 30 * 86_400;
/** Finished deliveries one run deletes at most once they are past {@link RETENTION_SECONDS}. */
const PRUNE_PER_RUN = 128;

/** What delivery uses of the kernel: the object's clock (due times and the log), wall milliseconds (the `webhook-timestamp` a receiver checks, durations), the outbound fetch under the target rule, one transaction step. */
type DeliveryKernel = Pick<ObjectKernel, "now" | "wallMs" | "fetch" | "transaction">;

/** The name an endpoint's secret is sealed under (no consumer secret's name has a colon). */
export function sealName(endpointId: string): string {
  return `webhook:${endpointId}`;
}

/** Each endpoint's head delivery, with the endpoint. */
function heads(tables: WebhookStore): Array<{ endpoint: StoredEndpoint; head: StoredDelivery }> {
  return tables.endpoints().flatMap((endpoint) => {
    const head = tables.head(endpoint.endpointId);
    return head === undefined ? [] : [{ endpoint, head }];
  });
}

/** The Unix second the next attempt is due (`null`: nothing pending). */
export function nextDue(tables: WebhookStore): number | null {
  const due = heads(tables).map(({ head }) => head.nextAttemptAt ?? head.createdAt);
  return due.length === 0 ? null : Math.min(...due);
}

function isTimeout(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    "name" in error &&
    (error.name === "TimeoutError" || error.name === "AbortError")
  );
}

/** One POST of a head delivery: its status code and error class. */
async function post(
  kernel: DeliveryKernel,
  tables: WebhookStore,
  vault: SecretVault,
  endpoint: StoredEndpoint,
  head: StoredDelivery,
  startedMs: number,
): Promise<{ statusCode: number | null; error: WebhookAttemptError | null }> {
  const body = tables.body(head.messageId, endpoint.includeArguments);
  if (body === undefined) throw new Error("a pending delivery has no message");
  const secret = await vault.unseal(sealName(endpoint.endpointId), endpoint.sealed);
  if (secret === undefined) return { statusCode: null, error: "secret_unavailable" };
  const headers = {
    "content-type": "application/json",
    "user-agent": "toolgate-webhooks/1",
    ...signedHeaders(secret, head.messageId, Math.floor(startedMs / 1000), body),
  };
  try {
    // A redirect is not followed: it could lead anywhere the endpoint's URL rule would refuse.
    const response = await kernel.fetch(
      new Request(endpoint.url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      }),
    );
    await response.body?.cancel();
    return {
      statusCode: response.status,
      error: response.status >= 200 && response.status < 300 ? null : "http_status",
    };
  } catch (error) {
    // `target_refused`: the endpoint's URL breaks the target rule (stored before it): nothing was sent.
    return {
      statusCode: null,
      error: error instanceof TargetRefused ? "target_refused" : isTimeout(error) ? "timeout" : "network",
    };
  }
}

/** Seconds to wait after failed attempt `n` (the last delay repeats should the attempts outnumber the table). */
export function retryDelay(n: number): number {
  return RETRY_DELAYS_SECONDS[Math.min(n, RETRY_DELAYS_SECONDS.length) - 1] ?? 0;
}

/** Attempts one head delivery and logs the attempt (nothing when its endpoint was deleted meanwhile). */
async function attempt(
  kernel: DeliveryKernel,
  tables: WebhookStore,
  vault: SecretVault,
  endpoint: StoredEndpoint,
  head: StoredDelivery,
): Promise<void> {
  const startedMs = kernel.wallMs();
  const { statusCode, error } = await post(kernel, tables, vault, endpoint, head, startedMs);
  const durationMs = Math.max(0, Math.round(kernel.wallMs() - startedMs));
  const n = head.attempts + 1;
  const at = kernel.now();
  const state = error === null ? "delivered" : n >= MAX_ATTEMPTS ? "failed" : "pending";
  const nextAttemptAt = state === "pending" ? at + retryDelay(n) : null;
  kernel.transaction(() =>
    tables.recordAttempt(head.deliveryId, n, { at, statusCode, durationMs, error, state, nextAttemptAt }),
  );
}

/**
 * One alarm run: old log rows pruned, then rounds of due heads (one per endpoint, in parallel
 * across endpoints) until nothing is due or the run's budget is spent. Answers the Unix second
 * the next attempt is due (`null`: nothing pending).
 */
export async function deliverDue(
  kernel: DeliveryKernel,
  tables: WebhookStore,
  vault: SecretVault,
): Promise<number | null> {
  kernel.transaction(() => tables.prune(kernel.now() - RETENTION_SECONDS, PRUNE_PER_RUN));
  let budget = DELIVERIES_PER_RUN;
  while (budget > 0) {
    const now = kernel.now();
    const due = heads(tables)
      .filter(({ head }) => (head.nextAttemptAt ?? head.createdAt) <= now)
      .slice(0, budget);
    if (due.length === 0) break;
    budget -= due.length;
    await Promise.all(due.map(({ endpoint, head }) => attempt(kernel, tables, vault, endpoint, head)));
  }
  return nextDue(tables);
}
