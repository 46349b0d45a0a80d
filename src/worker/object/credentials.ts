import { mintCredential, parseCredential, type CredentialKind } from "../credential-format";
import { UNAUTHENTICATED, problem } from "../problem";
import { fail, ok, type Outcome } from "../result";
import { digestsEqual, sha256Bytes } from "../timing-safe";
import { one, run } from "./sql";

/** An authenticated caller, from the stored credential record (never from the request). */
export interface Caller {
  credentialId: string;
  kind: CredentialKind;
  subjectId: string | null;
}

interface StoredCredential {
  kind: CredentialKind;
  subjectId: string | null;
  secretSha256: Uint8Array;
  revoked: boolean;
}

/**
 * Credentials of one consumer: minted here, stored only as SHA-256, checked here (inside the
 * consumer's object, so a revocation takes effect on the next request).
 */
export class CredentialStore {
  readonly #cache = new Map<string, StoredCredential | null>();

  constructor(private readonly sql: SqlStorage) {}

  /** Mints and stores a credential; the returned secret is never stored or shown again. */
  create(kind: CredentialKind, subjectId: string | null, now: number): { credential_id: string; secret: string } {
    const minted = mintCredential(kind);
    const hash = sha256Bytes(minted.token);
    run(
      this.sql,
      "INSERT INTO credentials (credential_id, kind, subject_id, secret_sha256, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, NULL)",
      minted.credentialId,
      kind,
      subjectId,
      hash.slice().buffer,
      now,
    );
    this.#cache.delete(minted.credentialId);
    return { credential_id: minted.credentialId, secret: minted.token };
  }

  /** Revokes at once; `false` if no such (unrevoked) credential. */
  revoke(credentialId: string, now: number): boolean {
    const row = one(this.sql, "SELECT revoked_at FROM credentials WHERE credential_id = ?", credentialId);
    this.#cache.delete(credentialId);
    if (row === undefined || row.revoked_at !== null) return false;
    run(this.sql, "UPDATE credentials SET revoked_at = ? WHERE credential_id = ?", now, credentialId);
    return true;
  }

  #load(credentialId: string): StoredCredential | null {
    const cached = this.#cache.get(credentialId);
    if (cached !== undefined) return cached;
    const row = one(this.sql, "SELECT kind, subject_id, secret_sha256, revoked_at FROM credentials WHERE credential_id = ?", credentialId);
    const stored =
      row === undefined
        ? null
        : {
            kind: row.kind as CredentialKind,
            subjectId: row.subject_id as string | null,
            secretSha256: new Uint8Array(row.secret_sha256 as ArrayBuffer),
            revoked: row.revoked_at !== null,
          };
    this.#cache.set(credentialId, stored);
    return stored;
  }

  /**
   * Authenticates a bearer token for a route class. Every failure to authenticate is the same
   * problem; a genuine credential of the wrong kind is `FORBIDDEN`.
   */
  authenticate(token: string, kinds: readonly CredentialKind[]): Outcome<Caller> {
    const parsed = parseCredential(token);
    if (parsed === null) return fail(UNAUTHENTICATED);
    const stored = this.#load(parsed.credentialId);
    const presented = sha256Bytes(token);
    if (stored === null || stored.revoked || stored.kind !== parsed.kind) {
      digestsEqual(presented, presented);
      return fail(UNAUTHENTICATED);
    }
    if (!digestsEqual(presented, stored.secretSha256)) return fail(UNAUTHENTICATED);
    if (!kinds.includes(stored.kind)) {
      return fail(problem("FORBIDDEN", `A ${stored.kind} credential may not call this route.`));
    }
    return ok({ credentialId: parsed.credentialId, kind: stored.kind, subjectId: stored.subjectId });
  }
}
