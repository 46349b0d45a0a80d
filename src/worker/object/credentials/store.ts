import type { CredentialKind } from "../../../contracts/access";
import type { PrincipalMode } from "../../../contracts/credential";
import { canonicalJson } from "../../../core/json";
import type { Migration } from "../migrations";
import { intOrNull, one, run, storedStrings, textOrNull } from "../sql";

/** The credentials plane's table (schema v1) and its bindings (v4: principal mode, roles, tool scope, expiry). */
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
  {
    version: 4,
    sql: `
  ALTER TABLE credentials ADD COLUMN principal TEXT;
  ALTER TABLE credentials ADD COLUMN roles TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE credentials ADD COLUMN tools TEXT;
  ALTER TABLE credentials ADD COLUMN expires_at INTEGER;`,
  },
];

/** What a credential is bound to, fixed at issue. */
export interface CredentialBinding {
  kind: CredentialKind;
  subjectId: string | null;
  /** Agent credentials: how calls get their principal (`null` for other kinds). */
  principal: PrincipalMode | null;
  /** Agent credentials: the roles its calls may assert (sorted). */
  roles: readonly string[];
  /** Agent credentials: the only tools it may call; `null` for every tool. */
  tools: readonly string[] | null;
  /** Unix seconds after which it is refused; `null` for never. */
  expiresAt: number | null;
}

/** A stored credential: only the SHA-256 of its secret is kept. */
export interface StoredCredential extends CredentialBinding {
  secretSha256: Uint8Array;
  revoked: boolean;
}

const MODES: readonly PrincipalMode[] = ["subject", "host", "token"];

function modeOf(kind: CredentialKind, subjectId: string | null, stored: string | null): PrincipalMode | null {
  if (kind !== "agent") return null;
  // Credentials issued before principal modes (schema < v4) keep what they were bound to.
  if (stored === null) return subjectId === null ? "host" : "subject";
  if (!MODES.includes(stored as PrincipalMode)) throw new Error("stored principal mode is unknown");
  return stored as PrincipalMode;
}

/** All SQL of the credentials table; every call runs inside the caller's transaction. */
export class CredentialTable {
  constructor(private readonly sql: SqlStorage) {}

  insert(credentialId: string, binding: CredentialBinding, secretSha256: Uint8Array, now: number): void {
    run(
      this.sql,
      `INSERT INTO credentials (credential_id, kind, subject_id, secret_sha256, created_at, revoked_at, principal, roles, tools, expires_at)
       VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)`,
      credentialId,
      binding.kind,
      binding.subjectId,
      secretSha256.slice().buffer,
      now,
      binding.principal,
      canonicalJson([...binding.roles]),
      binding.tools === null ? null : canonicalJson([...binding.tools]),
      binding.expiresAt,
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
    const row = one(this.sql, "SELECT kind, subject_id, secret_sha256, revoked_at, principal, roles, tools, expires_at FROM credentials WHERE credential_id = ?", credentialId);
    if (row === undefined) return null;
    const kind = row.kind as CredentialKind;
    const subjectId = textOrNull(row, "subject_id");
    const tools = textOrNull(row, "tools");
    return {
      kind,
      subjectId,
      principal: modeOf(kind, subjectId, textOrNull(row, "principal")),
      roles: storedStrings(row.roles as string, "credential roles"),
      tools: tools === null ? null : storedStrings(tools, "credential tools"),
      expiresAt: intOrNull(row, "expires_at"),
      secretSha256: new Uint8Array(row.secret_sha256 as ArrayBuffer),
      revoked: row.revoked_at !== null,
    };
  }

  /** Whether a credential exists, is not revoked and has not expired (read afresh: a socket outlives the cache). */
  isLive(credentialId: string, now: number): boolean {
    const row = one(this.sql, "SELECT revoked_at, expires_at FROM credentials WHERE credential_id = ?", credentialId);
    return row !== undefined && row.revoked_at === null && (row.expires_at === null || (row.expires_at as number) > now);
  }
}
