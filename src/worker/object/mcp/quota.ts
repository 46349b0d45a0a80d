import { all, int, one, run } from "../sql";

/**
 * The MCP plane's quotas (docs/mcp.md, "Storage and limits"). Each credential has its own cap,
 * far below the consumer's, so no one credential fills the consumer's table; a credential's
 * new entry beyond its cap, or in a full table, takes the place of one of that credential's own
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

/** A session unused this long has ended (Unix seconds): abandoned sessions free their place. */
export const MCP_SESSION_IDLE_SECONDS = 86_400;

/** Tasks one consumer keeps. */
export const MAX_MCP_TASKS = 1024;

/** Tasks one credential keeps (one more drops its own oldest finished task). */
export const MAX_MCP_TASKS_PER_CREDENTIAL = 64;

/** Whether a new session or task has its place: if not, the seconds until one may free up (its `Retry-After`). */
export type Room = { readonly fits: true } | { readonly fits: false; readonly retryAfterSeconds: number };

const FITS: Room = { fits: true };

/** Task calls running now whose task is not stored yet: their places are held. */
export interface HeldTasks {
  /** The caller's. */
  readonly own: number;
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

/** Entries of its own a credential must give up for one more: beyond its cap, or beyond the consumer's. */
function toGiveUp(own: number, total: number, perCredential: number, perConsumer: number): number {
  return Math.max(0, own - perCredential + 1, total - perConsumer + 1);
}

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
 * Makes the place of one more session of `credentialId` (in the caller's transaction): idle
 * sessions end, then the credential's own least recently used go as needed. Refused when the
 * consumer's table is full of other credentials' sessions.
 */
export function sessionRoom(sql: SqlStorage, credentialId: string, now: number): Room {
  run(sql, "DELETE FROM mcp_sessions WHERE last_seen <= ?", now - MCP_SESSION_IDLE_SECONDS);
  run(sql, `DELETE FROM mcp_sessions WHERE credential_id IN (${ENDED_CREDENTIALS})`, now);
  const own = count(sql, "SELECT COUNT(*) AS n FROM mcp_sessions WHERE credential_id = ?", credentialId);
  const need = toGiveUp(own, count(sql, "SELECT COUNT(*) AS n FROM mcp_sessions"), MAX_MCP_SESSIONS_PER_CREDENTIAL, MAX_MCP_SESSIONS);
  if (need > own) {
    const idleAt = earliest(sql, "SELECT MIN(last_seen) AS t FROM mcp_sessions");
    return { fits: false, retryAfterSeconds: secondsUntil([idleAt === null ? null : idleAt + MCP_SESSION_IDLE_SECONDS], now) };
  }
  if (need > 0) {
    run(sql, "DELETE FROM mcp_sessions WHERE session_id IN (SELECT session_id FROM mcp_sessions WHERE credential_id = ? ORDER BY last_seen, rowid LIMIT ?)", credentialId, need);
  }
  return FITS;
}

/**
 * Makes the place of one more task of `credentialId` (in the caller's transaction), counting
 * the places `held` for task calls still running: expired tasks go, then the credential's own
 * oldest finished tasks as needed. Refused when only `working` tasks, or other credentials'
 * tasks, stand in the way; the wait is until the earliest of those expires.
 */
export function taskRoom(sql: SqlStorage, credentialId: string, held: HeldTasks, now: number): Room {
  run(sql, "DELETE FROM mcp_tasks WHERE expires_at <= ?", now);
  run(sql, `DELETE FROM mcp_tasks WHERE credential_id IN (${ENDED_CREDENTIALS})`, now);
  const own = count(sql, "SELECT COUNT(*) AS n FROM mcp_tasks WHERE credential_id = ?", credentialId) + held.own;
  const total = count(sql, "SELECT COUNT(*) AS n FROM mcp_tasks") + held.all;
  const need = toGiveUp(own, total, MAX_MCP_TASKS_PER_CREDENTIAL, MAX_MCP_TASKS);
  if (need === 0) return FITS;
  const finished = all(sql, "SELECT seq FROM mcp_tasks WHERE credential_id = ? AND status <> 'working' ORDER BY seq LIMIT ?", credentialId, need);
  if (finished.length < need) {
    const ownFull = own >= MAX_MCP_TASKS_PER_CREDENTIAL ? earliest(sql, "SELECT MIN(expires_at) AS t FROM mcp_tasks WHERE credential_id = ?", credentialId) : null;
    const consumerFull = total >= MAX_MCP_TASKS ? earliest(sql, "SELECT MIN(expires_at) AS t FROM mcp_tasks") : null;
    return { fits: false, retryAfterSeconds: secondsUntil([ownFull, consumerFull], now) };
  }
  for (const row of finished) run(sql, "DELETE FROM mcp_tasks WHERE seq = ?", int(row, "seq"));
  return FITS;
}
