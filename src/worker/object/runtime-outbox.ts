import { all, one, run, text } from "./sql";

/** What keeping an event did. */
export type OutboxAdd = "stored" | "duplicate";

/**
 * The consumer's durable event outbox: `event` envelopes (their canonical wire text) wait here,
 * in arrival order, until an `event_ack` names their event id.
 */
export class RuntimeOutbox {
  constructor(private readonly sql: SqlStorage) {}

  /** Keeps an event; an event id already waiting (or a re-sent one) keeps its first text and place. */
  add(eventId: string, envelopeText: string, now: number): OutboxAdd {
    if (one(this.sql, "SELECT 1 AS present FROM runtime_outbox WHERE event_id = ?", eventId) !== undefined) return "duplicate";
    run(this.sql, "INSERT INTO runtime_outbox (event_id, envelope, received_at) VALUES (?, ?, ?)", eventId, envelopeText, now);
    return "stored";
  }

  /** Clears an event; `false` when no such event waits (an unknown or repeated ack is a no-op). */
  ack(eventId: string): boolean {
    if (one(this.sql, "SELECT 1 AS present FROM runtime_outbox WHERE event_id = ?", eventId) === undefined) return false;
    run(this.sql, "DELETE FROM runtime_outbox WHERE event_id = ?", eventId);
    return true;
  }

  /** Every unacknowledged event's envelope text, oldest first. */
  pending(): string[] {
    return all(this.sql, "SELECT envelope FROM runtime_outbox ORDER BY seq").map((row) => text(row, "envelope"));
  }
}
