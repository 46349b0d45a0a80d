import type { CredentialKind } from "../../../contracts/access";
import type { Migration } from "../migrations";
import { one, run } from "../sql";

/** The credentials plane's table (part of schema v1). */
export const CREDENTIAL_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
  CREATE TABLE credentials (
    credential_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    subject_id TEXT,
    secret_sha256 BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  );`,
  },
];

/** A stored credential: only the SHA-256 of its secret is kept. */
export interface StoredCredential {
  kind: CredentialKind;
  subjectId: string | null;
  secretSha256: Uint8Array;
  revoked: boolean;
}

/** All SQL of the credentials table; every call runs inside the caller's transaction. */
export class CredentialTable {
  constructor(private readonly sql: SqlStorage) {}

  insert(credentialId: string, kind: CredentialKind, subjectId: string | null, secretSha256: Uint8Array, now: number): void {
    run(
      this.sql,
      "INSERT INTO credentials (credential_id, kind, subject_id, secret_sha256, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, NULL)",
      credentialId,
      kind,
      subjectId,
      secretSha256.slice().buffer,
      now,
    );
  }

  /** Revokes; `false` if no such unrevoked credential. */
  revoke(credentialId: string, now: number): boolean {
    const row = one(this.sql, "SELECT revoked_at FROM credentials WHERE credential_id = ?", credentialId);
    if (row === undefined || row.revoked_at !== null) return false;
    run(this.sql, "UPDATE credentials SET revoked_at = ? WHERE credential_id = ?", now, credentialId);
    return true;
  }

  get(credentialId: string): StoredCredential | null {
    const row = one(this.sql, "SELECT kind, subject_id, secret_sha256, revoked_at FROM credentials WHERE credential_id = ?", credentialId);
    if (row === undefined) return null;
    return {
      kind: row.kind as CredentialKind,
      subjectId: row.subject_id as string | null,
      secretSha256: new Uint8Array(row.secret_sha256 as ArrayBuffer),
      revoked: row.revoked_at !== null,
    };
  }

  /** Whether a credential exists and is not revoked (read afresh: a socket outlives the cache). */
  isLive(credentialId: string): boolean {
    const row = one(this.sql, "SELECT revoked_at FROM credentials WHERE credential_id = ?", credentialId);
    return row !== undefined && row.revoked_at === null;
  }
}
