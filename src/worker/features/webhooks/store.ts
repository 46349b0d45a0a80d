import type { EventType } from "../../../contracts/events";
import type { WebhookAttemptError } from "../../../contracts/webhook";
import type { Migration } from "../../kernel/schema";
import type { SealedSecret } from "../secrets/store";
import { all, int, intOrNull, one, run, storedStrings, text, textOrNull, type SqlRow } from "../../kernel/sql";

/**
 * The webhooks service's tables (schema v11): the consumer's endpoints (each secret sealed), one
 * message per event some endpoint takes (its `webhook-id` fixed for life, its body written once),
 * one delivery per message and endpoint (a queue per endpoint in `seq` order), and every attempt.
 */
export const WEBHOOK_MIGRATIONS: readonly Migration[] = [
  {
    version: 11,
    sql: `
  CREATE TABLE webhook_endpoints (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    endpoint_id TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    include_arguments INTEGER NOT NULL,
    description TEXT,
    secret_iv BLOB NOT NULL,
    secret_ciphertext BLOB NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE webhook_messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    occurred_at INTEGER NOT NULL,
    body TEXT NOT NULL,
    body_with_arguments TEXT
  );
  CREATE TABLE webhook_deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id TEXT NOT NULL UNIQUE,
    endpoint_id TEXT NOT NULL,
    message_id TEXT NOT NULL,
    state TEXT NOT NULL,
    failure TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    created_at INTEGER NOT NULL,
    finished_at INTEGER,
    redelivery_of TEXT
  );
  CREATE INDEX webhook_deliveries_queue ON webhook_deliveries (endpoint_id, seq) WHERE state = 'pending';
  CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, seq);
  CREATE INDEX webhook_deliveries_message ON webhook_deliveries (message_id);
  CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at) WHERE finished_at IS NOT NULL;
  CREATE TABLE webhook_attempts (
    delivery_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    at INTEGER NOT NULL,
    status_code INTEGER,
    duration_ms INTEGER NOT NULL,
    error TEXT,
    PRIMARY KEY (delivery_id, attempt)
  ) WITHOUT ROWID;`,
  },
];

/** An endpoint as stored. */
export interface StoredEndpoint {
  /** The list's order (the table's autoincrement); absent on an endpoint not yet stored. */
  readonly seq?: number;
  readonly endpointId: string;
  readonly url: string;
  readonly events: readonly EventType[];
  readonly includeArguments: boolean;
  readonly description: string | null;
  readonly sealed: SealedSecret;
  readonly createdAt: number;
}

/** A delivery as stored, with its message's type. */
export interface StoredDelivery {
  readonly seq: number;
  readonly deliveryId: string;
  readonly endpointId: string;
  readonly messageId: string;
  readonly type: EventType;
  readonly state: "pending" | "delivered" | "failed";
  readonly failure: "attempts_exhausted" | "backlog_full" | null;
  readonly attempts: number;
  readonly nextAttemptAt: number | null;
  readonly createdAt: number;
  readonly finishedAt: number | null;
  readonly redeliveryOf: string | null;
}

/** One logged attempt. */
export interface StoredAttempt {
  readonly attempt: number;
  readonly at: number;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: WebhookAttemptError | null;
}

/** What an attempt came to, as the delivery step records it. */
export interface AttemptRecord {
  readonly at: number;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: WebhookAttemptError | null;
  /** `delivered`, `failed` (given up) or `pending` again at `nextAttemptAt`. */
  readonly state: StoredDelivery["state"];
  readonly nextAttemptAt: number | null;
}

function blob(row: SqlRow, column: string): Uint8Array {
  const v = row[column];
  if (!(v instanceof ArrayBuffer)) throw new Error(`column ${column} is not a blob`);
  return new Uint8Array(v);
}

function endpointOf(row: SqlRow): StoredEndpoint {
  return {
    seq: int(row, "seq"),
    endpointId: text(row, "endpoint_id"),
    url: text(row, "url"),
    events: storedStrings(text(row, "events"), "webhook events") as EventType[],
    includeArguments: int(row, "include_arguments") === 1,
    description: textOrNull(row, "description"),
    sealed: { iv: blob(row, "secret_iv"), ciphertext: blob(row, "secret_ciphertext") },
    createdAt: int(row, "created_at"),
  };
}

function deliveryOf(row: SqlRow): StoredDelivery {
  return {
    seq: int(row, "seq"),
    deliveryId: text(row, "delivery_id"),
    endpointId: text(row, "endpoint_id"),
    messageId: text(row, "message_id"),
    type: text(row, "type") as EventType,
    state: text(row, "state") as StoredDelivery["state"],
    failure: textOrNull(row, "failure") as StoredDelivery["failure"],
    attempts: int(row, "attempts"),
    nextAttemptAt: intOrNull(row, "next_attempt_at"),
    createdAt: int(row, "created_at"),
    finishedAt: intOrNull(row, "finished_at"),
    redeliveryOf: textOrNull(row, "redelivery_of"),
  };
}

const DELIVERY = "SELECT d.*, m.type FROM webhook_deliveries d JOIN webhook_messages m ON m.message_id = d.message_id";

/** All SQL of the webhook tables; every call runs inside the caller's transaction. */
export class WebhookStore {
  constructor(private readonly sql: SqlStorage) {}

  addEndpoint(endpoint: StoredEndpoint, eventsJson: string): void {
    const { sealed } = endpoint;
    run(
      this.sql,
      "INSERT INTO webhook_endpoints (endpoint_id, url, events, include_arguments, description, secret_iv, secret_ciphertext, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      endpoint.endpointId,
      endpoint.url,
      eventsJson,
      endpoint.includeArguments ? 1 : 0,
      endpoint.description,
      sealed.iv.slice().buffer,
      sealed.ciphertext.slice().buffer,
      endpoint.createdAt,
    );
  }

  endpoints(): StoredEndpoint[] {
    return all(this.sql, "SELECT * FROM webhook_endpoints ORDER BY seq").map(endpointOf);
  }

  endpoint(endpointId: string): StoredEndpoint | undefined {
    const row = one(this.sql, "SELECT * FROM webhook_endpoints WHERE endpoint_id = ?", endpointId);
    return row === undefined ? undefined : endpointOf(row);
  }

  /** Removes an endpoint with its deliveries and their attempts; messages no delivery needs go too. */
  deleteEndpoint(endpointId: string): boolean {
    if (this.endpoint(endpointId) === undefined) return false;
    run(
      this.sql,
      "DELETE FROM webhook_messages WHERE message_id IN (SELECT message_id FROM webhook_deliveries WHERE endpoint_id = ?) AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o WHERE o.message_id = webhook_messages.message_id AND o.endpoint_id <> ?)",
      endpointId,
      endpointId,
    );
    run(
      this.sql,
      "DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT delivery_id FROM webhook_deliveries WHERE endpoint_id = ?)",
      endpointId,
    );
    run(this.sql, "DELETE FROM webhook_deliveries WHERE endpoint_id = ?", endpointId);
    run(this.sql, "DELETE FROM webhook_endpoints WHERE endpoint_id = ?", endpointId);
    return true;
  }

  addMessage(
    messageId: string,
    type: EventType,
    occurredAt: number,
    body: string,
    bodyWithArguments: string | null,
  ): void {
    run(
      this.sql,
      "INSERT INTO webhook_messages (message_id, type, occurred_at, body, body_with_arguments) VALUES (?, ?, ?, ?, ?)",
      messageId,
      type,
      occurredAt,
      body,
      bodyWithArguments,
    );
  }

  /** The body an endpoint gets (with arguments only where the message kept them). */
  body(messageId: string, withArguments: boolean): string | undefined {
    const row = one(this.sql, "SELECT body, body_with_arguments FROM webhook_messages WHERE message_id = ?", messageId);
    if (row === undefined) return undefined;
    return (withArguments ? textOrNull(row, "body_with_arguments") : null) ?? text(row, "body");
  }

  /** Queues a delivery (`failure` set: stored as failed at once, never attempted). */
  addDelivery(
    deliveryId: string,
    endpointId: string,
    messageId: string,
    now: number,
    failure: "backlog_full" | null,
    redeliveryOf: string | null = null,
  ): void {
    const pending = failure === null;
    run(
      this.sql,
      "INSERT INTO webhook_deliveries (delivery_id, endpoint_id, message_id, state, failure, next_attempt_at, created_at, finished_at, redelivery_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      deliveryId,
      endpointId,
      messageId,
      pending ? "pending" : "failed",
      failure,
      pending ? now : null,
      now,
      pending ? null : now,
      redeliveryOf,
    );
  }

  /** Pending deliveries of an endpoint (its backlog). */
  pendingCount(endpointId: string): number {
    return int(
      one(
        this.sql,
        "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? AND state = 'pending'",
        endpointId,
      ) ?? { n: 0 },
      "n",
    );
  }

  /** The first pending delivery of an endpoint: the only one of its queue that may be attempted. */
  head(endpointId: string): StoredDelivery | undefined {
    const row = one(
      this.sql,
      `${DELIVERY} WHERE d.endpoint_id = ? AND d.state = 'pending' ORDER BY d.seq LIMIT 1`,
      endpointId,
    );
    return row === undefined ? undefined : deliveryOf(row);
  }

  delivery(deliveryId: string): StoredDelivery | undefined {
    const row = one(this.sql, `${DELIVERY} WHERE d.delivery_id = ?`, deliveryId);
    return row === undefined ? undefined : deliveryOf(row);
  }

  /** Up to `limit` deliveries before `beforeSeq`, newest first, of one endpoint or all. */
  deliveries(endpointId: string | null, beforeSeq: number, limit: number): StoredDelivery[] {
    const where = endpointId === null ? "d.seq < ?" : "d.endpoint_id = ? AND d.seq < ?";
    const binds = endpointId === null ? [beforeSeq, limit] : [endpointId, beforeSeq, limit];
    return all(this.sql, `${DELIVERY} WHERE ${where} ORDER BY d.seq DESC LIMIT ?`, ...binds).map(deliveryOf);
  }

  attempts(deliveryId: string): StoredAttempt[] {
    return all(this.sql, "SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt", deliveryId).map(
      (row) => ({
        attempt: int(row, "attempt"),
        at: int(row, "at"),
        statusCode: intOrNull(row, "status_code"),
        durationMs: int(row, "duration_ms"),
        error: textOrNull(row, "error") as WebhookAttemptError | null,
      }),
    );
  }

  /** Logs attempt `attempt` of a delivery and moves it on; false when the delivery is gone (its endpoint was deleted meanwhile). */
  recordAttempt(deliveryId: string, attempt: number, record: AttemptRecord): boolean {
    if (
      one(
        this.sql,
        "SELECT 1 AS present FROM webhook_deliveries WHERE delivery_id = ? AND state = 'pending' AND attempts = ?",
        deliveryId,
        attempt - 1,
      ) === undefined
    )
      return false;
    run(
      this.sql,
      "INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, duration_ms, error) VALUES (?, ?, ?, ?, ?, ?)",
      deliveryId,
      attempt,
      record.at,
      record.statusCode,
      record.durationMs,
      record.error,
    );
    const finished = record.state === "pending" ? null : record.at;
    const failure = record.state === "failed" ? "attempts_exhausted" : null;
    run(
      this.sql,
      "UPDATE webhook_deliveries SET attempts = ?, state = ?, failure = ?, next_attempt_at = ?, finished_at = ? WHERE delivery_id = ?",
      attempt,
      record.state,
      failure,
      record.nextAttemptAt,
      finished,
      deliveryId,
    );
    return true;
  }

  /** Deletes up to `limit` deliveries finished before `cutoff`, their attempts, and the messages no delivery needs any more. */
  prune(cutoff: number, limit: number): void {
    const old = all(
      this.sql,
      "SELECT delivery_id, message_id FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < ? ORDER BY finished_at LIMIT ?",
      cutoff,
      limit,
    );
    for (const row of old) {
      const deliveryId = text(row, "delivery_id");
      const messageId = text(row, "message_id");
      run(this.sql, "DELETE FROM webhook_attempts WHERE delivery_id = ?", deliveryId);
      run(this.sql, "DELETE FROM webhook_deliveries WHERE delivery_id = ?", deliveryId);
      run(
        this.sql,
        "DELETE FROM webhook_messages WHERE message_id = ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = ?)",
        messageId,
        messageId,
      );
    }
  }
}
