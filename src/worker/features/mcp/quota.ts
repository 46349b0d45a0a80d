import { all, int, one, run } from "../../kernel/sql";

/**
 * The MCP service's quotas (docs/mcp.md, "Storage and limits"). Each credential has its own cap,
 * far below the consumer's, so no one credential fills the consumer's table, and so has each
 * subject across its credentials (MCP sessions are only subject-bound credentials'), so minting
 * more credentials for one person (OAuth grants) does not multiply its share; a credential's
 * new entry beyond its cap, its subject's, or in a full table, takes the place of one of that credential's own
 * (its least recently used session, its oldest finished task) and never of another's; with none
 * of its own to give, the new entry is refused. A `working` task is never taken: it waits for
 * its approver until its ttl ends. The entries of a revoked or expired credential are free: the
 * revocation deletes them at once (McpStore.forgetCredential), and any left (a credential that
 * expired) are deleted here whenever room is needed.
 */

/** Sessions one consumer keeps. */
export const MAX_MCP_SESSIONS = 1024;

/** Sessions one credential keeps (one more ends its own least recently used). */
export const MAX_MCP_SESSIONS_PER_CREDENTIAL = 64;

/** Sessions the credentials of one subject keep together (one more ends the requesting credential's own least recently used). */
export const MAX_MCP_SESSIONS_PER_SUBJECT = 64;

/** A session unused this long has ended (Unix seconds): abandoned sessions free their place. */
export const MCP_SESSION_IDLE_SECONDS = 86_400;

/** Tasks one consumer keeps. */
export const MAX_MCP_TASKS = 1024;

/** Tasks one credential keeps (one more drops its own oldest finished task). */
export const MAX_MCP_TASKS_PER_CREDENTIAL = 64;

/** Tasks the credentials of one subject keep together (one more drops the requesting credential's own oldest finished task). */
export const MAX_MCP_TASKS_PER_SUBJECT = 64;

/** Whose new session or task needs a place: the credential, and the subject it is bound to. */
export interface Owner {
  readonly credentialId: string;
  readonly subjectId: string;
}

/** Whether a new session or task has its place: if not, the seconds until one may free up (its `Retry-After`). */
export type Room = { readonly fits: true } | { readonly fits: false; readonly retryAfterSeconds: number };

const FITS: Room = { fits: true };

/** Task calls running now whose task is not stored yet: their places are held. */
export interface HeldTasks {
  /** The caller's. */
  readonly own: number;
  /** The caller's subject's (all its credentials'). */
  readonly subject: number;
  /** Every credential's. */
  readonly all: number;
}

/** Credentials whose entries are free: revoked, or expired at `?` (the `credentials` table, credentials/store.ts). */
const ENDED_CREDENTIALS = "SELECT credential_id FROM credentials WHERE revoked_at IS NOT NULL OR expires_at <= ?";

function count(sql: SqlStorage, query: string, ...binds: string[]): number {
  const row = one(sql, query, ...binds);
  if (row === undefined) throw new Error("COUNT answered no row");
  return int(row, "n");
}

/** Entries held by the credential, its subject and the consumer, and the caps of each. */
interface Counts {
  readonly own: number;
  readonly subject: number;
  readonly total: number;
}

/** Entries of its own a credential must give up for one more: beyond its cap, its subject's, or the consumer's. */
function toGiveUp(held: Counts, caps: Counts): number {
  return Math.max(0, held.own - caps.own + 1, held.subject - caps.subject + 1, held.total - caps.total + 1);
}

const SESSION_CAPS: Counts = {
  own: MAX_MCP_SESSIONS_PER_CREDENTIAL,
  subject: MAX_MCP_SESSIONS_PER_SUBJECT,
  total: MAX_MCP_SESSIONS,
};
const TASK_CAPS: Counts = {
  own: MAX_MCP_TASKS_PER_CREDENTIAL,
  subject: MAX_MCP_TASKS_PER_SUBJECT,
  total: MAX_MCP_TASKS,
};

/** Seconds from `now` until every one of `times` has passed (each the first place a full set frees); at least 1. */
function secondsUntil(times: readonly (number | null)[], now: number): number {
  const known = times.filter((t): t is number => t !== null);
  return known.length === 0 ? 1 : Math.max(1, Math.max(...known) - now);
}

function earliest(sql: SqlStorage, query: string, ...binds: string[]): number | null {
  const value = one(sql, query, ...binds)?.["t"];
  return typeof value === "number" ? value : null;
}

/**
 * Makes the place of one more session of `owner` (in the caller's transaction): idle sessions
 * and those of ended credentials go, then the credential's own least recently used as needed.
 * Refused when the subject's share or the consumer's table is full of other credentials' sessions.
 */
export function sessionRoom(sql: SqlStorage, owner: Owner, now: number): Room {
  run(sql, "DELETE FROM mcp_sessions WHERE last_seen <= ?", now - MCP_SESSION_IDLE_SECONDS);
  run(sql, `DELETE FROM mcp_sessions WHERE credential_id IN (${ENDED_CREDENTIALS})`, now);
  const held: Counts = {
    own: count(sql, "SELECT COUNT(*) AS n FROM mcp_sessions WHERE credential_id = ?", owner.credentialId),
    subject: count(sql, "SELECT COUNT(*) AS n FROM mcp_sessions WHERE subject_id = ?", owner.subjectId),
    total: count(sql, "SELECT COUNT(*) AS n FROM mcp_sessions"),
  };
  const need = toGiveUp(held, SESSION_CAPS);
  if (need > held.own) {
    const idle = (query: string, ...binds: string[]): number | null => {
      const seen = earliest(sql, query, ...binds);
      return seen === null ? null : seen + MCP_SESSION_IDLE_SECONDS;
    };
    const subjectFull =
      held.subject >= MAX_MCP_SESSIONS_PER_SUBJECT
        ? idle("SELECT MIN(last_seen) AS t FROM mcp_sessions WHERE subject_id = ?", owner.subjectId)
        : null;
    const consumerFull = held.total >= MAX_MCP_SESSIONS ? idle("SELECT MIN(last_seen) AS t FROM mcp_sessions") : null;
    return { fits: false, retryAfterSeconds: secondsUntil([subjectFull, consumerFull], now) };
  }
  if (need > 0) {
    run(
      sql,
      "DELETE FROM mcp_sessions WHERE session_id IN (SELECT session_id FROM mcp_sessions WHERE credential_id = ? ORDER BY last_seen, rowid LIMIT ?)",
      owner.credentialId,
      need,
    );
  }
  return FITS;
}

/**
 * Makes the place of one more task of `owner` (in the caller's transaction), counting the
 * places `held` for task calls still running: expired tasks and those of ended credentials go,
 * then the credential's own oldest finished tasks as needed. Refused when only `working`
 * tasks, or other credentials' tasks, stand in the way; the wait is until the earliest of
 * those expires.
 */
export function taskRoom(sql: SqlStorage, owner: Owner, held: HeldTasks, now: number): Room {
  run(sql, "DELETE FROM mcp_tasks WHERE expires_at <= ?", now);
  run(sql, `DELETE FROM mcp_tasks WHERE credential_id IN (${ENDED_CREDENTIALS})`, now);
  const counts: Counts = {
    own: count(sql, "SELECT COUNT(*) AS n FROM mcp_tasks WHERE credential_id = ?", owner.credentialId) + held.own,
    subject: count(sql, "SELECT COUNT(*) AS n FROM mcp_tasks WHERE subject_id = ?", owner.subjectId) + held.subject,
    total: count(sql, "SELECT COUNT(*) AS n FROM mcp_tasks") + held.all,
  };
  const need = toGiveUp(counts, TASK_CAPS);
  if (need === 0) return FITS;
  const finished = all(
    sql,
    "SELECT seq FROM mcp_tasks WHERE credential_id = ? AND status <> 'working' ORDER BY seq LIMIT ?",
    owner.credentialId,
    need,
  );
  if (finished.length < need) {
    const ownFull =
      counts.own >= MAX_MCP_TASKS_PER_CREDENTIAL
        ? earliest(sql, "SELECT MIN(expires_at) AS t FROM mcp_tasks WHERE credential_id = ?", owner.credentialId)
        : null;
    const subjectFull =
      counts.subject >= MAX_MCP_TASKS_PER_SUBJECT
        ? earliest(sql, "SELECT MIN(expires_at) AS t FROM mcp_tasks WHERE subject_id = ?", owner.subjectId)
        : null;
    const consumerFull =
      counts.total >= MAX_MCP_TASKS ? earliest(sql, "SELECT MIN(expires_at) AS t FROM mcp_tasks") : null;
    return { fits: false, retryAfterSeconds: secondsUntil([ownFull, subjectFull, consumerFull], now) };
  }
  for (const row of finished) run(sql, "DELETE FROM mcp_tasks WHERE seq = ?", int(row, "seq"));
  return FITS;
}
