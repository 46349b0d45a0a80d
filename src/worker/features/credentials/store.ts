import type { CredentialKind } from "../../../contracts/access";
import { actsForPrincipal, type PrincipalMode } from "../../../contracts/credential";
import { canonicalJson } from "../../../core/json";
import type { Migration } from "../../kernel/schema";
import { all, int, intOrNull, one, run, storedStrings, text, textOrNull } from "../../kernel/sql";

/**
 * The credentials service's table (schema v1), its bindings (v4: principal mode, roles, tool scope,
 * expiry) and the OAuth client a credential was minted for by a sign-in (v16, credentials/oauth-grant.ts).
 */
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
  {
    version: 16,
    sql: `
  ALTER TABLE credentials ADD COLUMN oauth_client_id TEXT;
  CREATE INDEX credentials_oauth_subject ON credentials (subject_id, oauth_client_id) WHERE oauth_client_id IS NOT NULL;`,
  },
];

/** What a credential is bound to, fixed at issue. */
export interface CredentialBinding {
  kind: CredentialKind;
  subjectId: string | null;
  /** Agent and runtime credentials: how calls get their principal (`null` for other kinds). */
  principal: PrincipalMode | null;
  /** Agent and runtime credentials: the roles its calls may assert (sorted). */
  roles: readonly string[];
  /** Agent and runtime credentials: the only tools (and capabilities) it may use; `null` for all. */
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
  if (!actsForPrincipal(kind)) return null;
  // Credentials issued before principal modes (agent: schema < v4; runtime: before runtime
  // credentials had them, all without a subject) keep what they were bound to: a runtime one
  // is a host credential with no roles, acting for any subject as it always did.
  if (stored === null) return subjectId === null ? "host" : "subject";
  if (!MODES.includes(stored as PrincipalMode)) throw new Error("stored principal mode is unknown");
  return stored as PrincipalMode;
}

/** All SQL of the credentials table; every call runs inside the caller's transaction. */
export class CredentialStore {
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
    const row = one(
      this.sql,
      "SELECT kind, subject_id, secret_sha256, revoked_at, principal, roles, tools, expires_at FROM credentials WHERE credential_id = ?",
      credentialId,
    );
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
    return (
      row !== undefined && row.revoked_at === null && (row.expires_at === null || (row.expires_at as number) > now)
    );
  }

  /** Marks a credential as minted by an OAuth sign-in for `clientId`. */
  markOAuth(credentialId: string, clientId: string): void {
    run(this.sql, "UPDATE credentials SET oauth_client_id = ? WHERE credential_id = ?", clientId, credentialId);
  }

  /** The OAuth client a credential was minted for, or `null` (not an OAuth grant's credential). */
  oauthClientOf(credentialId: string): string | null {
    const row = one(this.sql, "SELECT oauth_client_id FROM credentials WHERE credential_id = ?", credentialId);
    return row === undefined ? null : textOrNull(row, "oauth_client_id");
  }

  /** A subject's live OAuth grant credentials (not revoked, not expired), oldest first. */
  liveOAuth(subjectId: string, now: number): Array<{ credentialId: string; clientId: string }> {
    const rows = all(
      this.sql,
      `SELECT credential_id, oauth_client_id FROM credentials
       WHERE subject_id = ? AND oauth_client_id IS NOT NULL AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)
       ORDER BY created_at, rowid`,
      subjectId,
      now,
    );
    return rows.map((row) => ({ credentialId: text(row, "credential_id"), clientId: text(row, "oauth_client_id") }));
  }

  /**
   * Up to `limit` credentials issued after `afterId` (`null`: from the first), in issue order
   * (`rowid`: rows are never deleted). Never the secret's hash.
   */
  listed(afterId: string | null, limit: number): ListedCredential[] {
    const columns = "credential_id, kind, subject_id, principal, roles, tools, created_at, expires_at, revoked_at";
    const rows =
      afterId === null
        ? all(this.sql, `SELECT ${columns} FROM credentials ORDER BY rowid LIMIT ?`, limit)
        : all(
            this.sql,
            `SELECT ${columns} FROM credentials WHERE rowid > (SELECT rowid FROM credentials WHERE credential_id = ?) ORDER BY rowid LIMIT ?`,
            afterId,
            limit,
          );
    return rows.map((row) => {
      const kind = text(row, "kind") as CredentialKind;
      const subjectId = textOrNull(row, "subject_id");
      const tools = textOrNull(row, "tools");
      return {
        credentialId: text(row, "credential_id"),
        kind,
        subjectId,
        principal: modeOf(kind, subjectId, textOrNull(row, "principal")),
        roles: storedStrings(text(row, "roles"), "credential roles"),
        tools: tools === null ? null : storedStrings(tools, "credential tools"),
        expiresAt: intOrNull(row, "expires_at"),
        createdAt: int(row, "created_at"),
        revokedAt: intOrNull(row, "revoked_at"),
      };
    });
  }
}

/** A credential as the admin lists it: its binding and its life, no secret. */
export interface ListedCredential extends CredentialBinding {
  credentialId: string;
  createdAt: number;
  revokedAt: number | null;
}
