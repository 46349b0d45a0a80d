/**
 * The approver console's sessions (schema v12): one row per signed-in browser. The session id
 * is a bearer secret in an `HttpOnly` cookie; only its SHA-256 is stored, so a copy of the
 * storage signs nobody in.
 * @module
 */
import type { Migration } from "../../kernel/schema";
import { int, one, run, text } from "../../kernel/sql";

/** The console service's table. */
export const CONSOLE_MIGRATIONS: readonly Migration[] = [
  {
    version: 12,
    sql: `
  CREATE TABLE console_sessions (
    session_sha256 TEXT PRIMARY KEY,
    credential_id TEXT NOT NULL,
    approver_id TEXT NOT NULL,
    csrf_token TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX console_sessions_by_credential ON console_sessions (credential_id, created_at);
  CREATE INDEX console_sessions_by_expiry ON console_sessions (expires_at);`,
  },
];

/** One stored session. */
export interface StoredSession {
  readonly sessionSha256: string;
  readonly credentialId: string;
  readonly approverId: string;
  readonly csrfToken: string;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly expiresAt: number;
}

/** All SQL of `console_sessions`; every call runs inside the caller's transaction. */
export class ConsoleSessionStore {
  constructor(private readonly sql: SqlStorage) {}

  insert(session: StoredSession): void {
    run(
      this.sql,
      "INSERT INTO console_sessions (session_sha256, credential_id, approver_id, csrf_token, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      session.sessionSha256,
      session.credentialId,
      session.approverId,
      session.csrfToken,
      session.createdAt,
      session.lastSeenAt,
      session.expiresAt,
    );
  }

  get(sessionSha256: string): StoredSession | undefined {
    const row = one(this.sql, "SELECT * FROM console_sessions WHERE session_sha256 = ?", sessionSha256);
    if (row === undefined) return undefined;
    return {
      sessionSha256: text(row, "session_sha256"),
      credentialId: text(row, "credential_id"),
      approverId: text(row, "approver_id"),
      csrfToken: text(row, "csrf_token"),
      createdAt: int(row, "created_at"),
      lastSeenAt: int(row, "last_seen_at"),
      expiresAt: int(row, "expires_at"),
    };
  }

  /** Records activity (the idle timeout counts from here). */
  touch(sessionSha256: string, now: number): void {
    run(
      this.sql,
      "UPDATE console_sessions SET last_seen_at = ? WHERE session_sha256 = ? AND last_seen_at < ?",
      now,
      sessionSha256,
      now,
    );
  }

  delete(sessionSha256: string): void {
    run(this.sql, "DELETE FROM console_sessions WHERE session_sha256 = ?", sessionSha256);
  }

  /** Deletes every session past its absolute lifetime or idle since `idleBefore`. */
  purge(now: number, idleBefore: number): void {
    run(this.sql, "DELETE FROM console_sessions WHERE expires_at <= ? OR last_seen_at <= ?", now, idleBefore);
  }

  /** Keeps the newest `keep` sessions of a credential, deleting the older ones. */
  trim(credentialId: string, keep: number): void {
    run(
      this.sql,
      "DELETE FROM console_sessions WHERE credential_id = ? AND session_sha256 NOT IN (SELECT session_sha256 FROM console_sessions WHERE credential_id = ? ORDER BY created_at DESC, session_sha256 LIMIT ?)",
      credentialId,
      credentialId,
      keep,
    );
  }

  /** Sessions stored now (tests and limits read it). */
  count(): number {
    const row = one(this.sql, "SELECT COUNT(*) AS n FROM console_sessions");
    return row === undefined ? 0 : int(row, "n");
  }
}
