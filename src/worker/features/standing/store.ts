import { STANDING_STATES, type StandingApprovalView } from "../../../contracts/standing-approval";
import type { ExpiryRule, Migration } from "../../kernel/schema";
import { all, int, intOrNull, one, run, text, textOrNull, type SqlRow } from "../../kernel/sql";

/**
 * The standing approvals' table (schema v20): one row per grant; `used_calls` counts the calls it
 * covered, raised only by the conditional update of {@link StandingStore.consume}.
 */
export const STANDING_MIGRATIONS: readonly Migration[] = [
  {
    version: 20,
    sql: `
  CREATE TABLE standing_approvals (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    standing_id TEXT NOT NULL UNIQUE,
    tool TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    approver_id TEXT NOT NULL,
    constraint_cel TEXT,
    granted_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    max_calls INTEGER NOT NULL,
    used_calls INTEGER NOT NULL DEFAULT 0,
    revoked_at INTEGER,
    revoked_by TEXT
  );
  CREATE INDEX standing_approvals_live ON standing_approvals (subject_id, tool, seq) WHERE revoked_at IS NULL;
  CREATE INDEX standing_approvals_end ON standing_approvals (COALESCE(revoked_at, expires_at));`,
  },
];

/** An ended grant (revoked or past its window) is kept as long as the consumer keeps records, then swept. */
export const STANDING_EXPIRY: readonly ExpiryRule[] = [
  {
    table: "standing_approvals",
    key: "seq",
    age: "COALESCE(revoked_at, expires_at)",
    keep: (window) => window,
  },
];

/** One stored grant. */
export interface StandingRow {
  readonly id: string;
  readonly tool: string;
  readonly subjectId: string;
  readonly approverId: string;
  readonly constraint: string | null;
  readonly grantedAt: number;
  readonly expiresAt: number;
  readonly maxCalls: number;
  readonly usedCalls: number;
  readonly revokedAt: number | null;
  readonly revokedBy: string | null;
}

function rowOf(row: SqlRow): StandingRow {
  return {
    id: text(row, "standing_id"),
    tool: text(row, "tool"),
    subjectId: text(row, "subject_id"),
    approverId: text(row, "approver_id"),
    constraint: textOrNull(row, "constraint_cel"),
    grantedAt: int(row, "granted_at"),
    expiresAt: int(row, "expires_at"),
    maxCalls: int(row, "max_calls"),
    usedCalls: int(row, "used_calls"),
    revokedAt: intOrNull(row, "revoked_at"),
    revokedBy: textOrNull(row, "revoked_by"),
  };
}

/** Where a grant stands at `now` (a revocation first, then the count, then the window). */
export function stateOf(row: StandingRow, now: number): (typeof STANDING_STATES)[number] {
  if (row.revokedAt !== null) return "revoked";
  if (row.usedCalls >= row.maxCalls) return "exhausted";
  return row.expiresAt <= now ? "expired" : "active";
}

/** A grant as answered. */
export function viewOf(row: StandingRow, now: number): StandingApprovalView {
  return {
    standing_approval_id: row.id,
    state: stateOf(row, now),
    tool: row.tool,
    subject_id: row.subjectId,
    approver_id: row.approverId,
    constraint: row.constraint,
    granted_at: row.grantedAt,
    expires_at: row.expiresAt,
    max_calls: row.maxCalls,
    used_calls: row.usedCalls,
    revoked_at: row.revokedAt,
    revoked_by: row.revokedBy,
  };
}

const LIVE = "revoked_at IS NULL AND expires_at > ? AND used_calls < max_calls";

/** All SQL of the standing approvals' table. */
export class StandingStore {
  constructor(private readonly sql: SqlStorage) {}

  insert(row: StandingRow): void {
    run(
      this.sql,
      `INSERT INTO standing_approvals (standing_id, tool, subject_id, approver_id, constraint_cel, granted_at, expires_at, max_calls, used_calls)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)`,
      row.id,
      row.tool,
      row.subjectId,
      row.approverId,
      row.constraint,
      row.grantedAt,
      row.expiresAt,
      row.maxCalls,
    );
  }

  get(id: string): StandingRow | undefined {
    const row = one(this.sql, "SELECT * FROM standing_approvals WHERE standing_id = ?", id);
    return row === undefined ? undefined : rowOf(row);
  }

  /** How many grants are active at `now`. */
  activeCount(now: number): number {
    const row = one(this.sql, `SELECT COUNT(*) AS n FROM standing_approvals WHERE ${LIVE}`, now);
    return row === undefined ? 0 : int(row, "n");
  }

  /** The active grants of one subject and tool, oldest first. */
  live(subjectId: string, tool: string, now: number): StandingRow[] {
    return all(
      this.sql,
      `SELECT * FROM standing_approvals WHERE subject_id = ? AND tool = ? AND ${LIVE} ORDER BY seq`,
      subjectId,
      tool,
      now,
    ).map(rowOf);
  }

  /** The newest grants, at most `limit`. */
  newest(limit: number): StandingRow[] {
    return all(this.sql, "SELECT * FROM standing_approvals ORDER BY seq DESC LIMIT ?", limit).map(rowOf);
  }

  /**
   * Counts one covered call, only while the grant is still active: answers whether it did. The
   * caller's transaction holds the row, so two calls never take the same last use.
   */
  consume(id: string, now: number): boolean {
    run(
      this.sql,
      `UPDATE standing_approvals SET used_calls = used_calls + 1 WHERE standing_id = ? AND ${LIVE}`,
      id,
      now,
    );
    const row = one(this.sql, "SELECT changes() AS n");
    return row !== undefined && int(row, "n") === 1;
  }

  /** Revokes a grant not yet revoked: answers whether it did. */
  revoke(id: string, by: string, now: number): boolean {
    run(
      this.sql,
      "UPDATE standing_approvals SET revoked_at = ?, revoked_by = ? WHERE standing_id = ? AND revoked_at IS NULL",
      now,
      by,
      id,
    );
    const row = one(this.sql, "SELECT changes() AS n");
    return row !== undefined && int(row, "n") === 1;
  }
}
