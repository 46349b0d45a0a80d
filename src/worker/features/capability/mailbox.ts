import { all, int, one, run, text, type SqlRow } from "../../kernel/sql";

/** Completions lost for one actor: since its last drain, and in all. */
export interface MailboxDrops {
  sinceDrain: number;
  total: number;
}

/** What one actor's drain takes: its queued completions (wire JSON, oldest first) and its drop counts. */
export interface MailboxTake {
  envelopes: string[];
  drops: MailboxDrops;
}

/**
 * Per-actor completion mailboxes (migration v4; v16 records each completion's capability, so a
 * scoped credential drains only the capabilities its scope names). The engine has one completion queue for the
 * whole consumer; the host moves each completion it produces into the mailbox of the
 * completion's actor, so a drain hands a caller only its own actor's completions and another
 * actor's stay until that actor drains. Each mailbox holds a bounded number of completions;
 * one that does not fit is dropped and counted for its actor. Every call runs inside the
 * caller's transaction.
 */
export class CompletionMailbox {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * Queues one completion for its actor, with its request's capability (`null` when the engine
   * no longer held the request: only an unscoped drain takes it); `false` (and a counted drop)
   * when the mailbox already holds `capacity`.
   */
  deliver(
    actorId: string,
    capabilityId: string | null,
    completionSequence: bigint,
    envelope: string,
    capacity: number,
  ): boolean {
    const held = one(this.sql, "SELECT COUNT(*) AS n FROM capability_mailbox WHERE actor_id = ?", actorId);
    if (held !== undefined && int(held, "n") >= capacity) {
      this.countDrop(actorId);
      return false;
    }
    run(
      this.sql,
      "INSERT INTO capability_mailbox (actor_id, completion_sequence, envelope, capability_id) VALUES (?, ?, ?, ?)",
      actorId,
      completionSequence.toString(),
      envelope,
      capabilityId,
    );
    return true;
  }

  /** Counts one completion of the actor that was lost (saturating at 2^53 − 1, never wrapping). */
  countDrop(actorId: string): void {
    run(
      this.sql,
      `INSERT INTO capability_mailbox_drops (actor_id, since_drain, total) VALUES (?, 1, 1)
       ON CONFLICT (actor_id) DO UPDATE SET since_drain = MIN(since_drain + 1, ${Number.MAX_SAFE_INTEGER}), total = MIN(total + 1, ${Number.MAX_SAFE_INTEGER})`,
      actorId,
    );
  }

  /**
   * Takes (removes) the actor's queued completions, oldest first — of every capability, or
   * (`capabilities`, a credential's scope) only of those — and resets its since-drain drop count.
   */
  take(actorId: string, capabilities: readonly string[] | null): MailboxTake {
    const inScope = (row: SqlRow) =>
      capabilities === null || (typeof row.capability_id === "string" && capabilities.includes(row.capability_id));
    const rows = all(
      this.sql,
      "SELECT row_id, envelope, capability_id FROM capability_mailbox WHERE actor_id = ? ORDER BY row_id",
      actorId,
    ).filter(inScope);
    for (const row of rows) run(this.sql, "DELETE FROM capability_mailbox WHERE row_id = ?", int(row, "row_id"));
    const counts = one(this.sql, "SELECT since_drain, total FROM capability_mailbox_drops WHERE actor_id = ?", actorId);
    run(this.sql, "UPDATE capability_mailbox_drops SET since_drain = 0 WHERE actor_id = ?", actorId);
    return {
      envelopes: rows.map((row) => text(row, "envelope")),
      drops:
        counts === undefined
          ? { sinceDrain: 0, total: 0 }
          : { sinceDrain: int(counts, "since_drain"), total: int(counts, "total") },
    };
  }
}

/** DDL of the mailbox tables (part of the capability service's migration v4). */
export const MAILBOX_TABLES = `
  CREATE TABLE capability_mailbox (
    row_id INTEGER PRIMARY KEY AUTOINCREMENT,
    actor_id TEXT NOT NULL,
    completion_sequence TEXT NOT NULL,
    envelope TEXT NOT NULL
  );
  CREATE INDEX capability_mailbox_by_actor ON capability_mailbox (actor_id, row_id);
  CREATE TABLE capability_mailbox_drops (
    actor_id TEXT PRIMARY KEY,
    since_drain INTEGER NOT NULL,
    total INTEGER NOT NULL
  );`;

/** The capability of each queued completion (migration v16; `NULL` for those queued before it). */
export const MAILBOX_CAPABILITY_COLUMN = "ALTER TABLE capability_mailbox ADD COLUMN capability_id TEXT;";
