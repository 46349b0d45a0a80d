import { credentialKinds, type CredentialKind, type Operation } from "../../../contracts/access";
import { mintCredential, parseCredential } from "../../credential-format";
import { UNAUTHENTICATED, problem } from "../../problem";
import { fail, ok, type Outcome } from "../../result";
import { digestsEqual, sha256Bytes } from "../../timing-safe";
import { CredentialTable, type StoredCredential } from "./store";

/** An authenticated caller, from the stored credential record (never from the request). */
export interface Caller {
  credentialId: string;
  kind: CredentialKind;
  subjectId: string | null;
}

/**
 * Credentials of one consumer: minted here, stored only as SHA-256, checked here (inside the
 * consumer's object, so a revocation takes effect on the next request).
 */
export class CredentialPlane {
  readonly #table: CredentialTable;
  readonly #cache = new Map<string, StoredCredential | null>();

  constructor(sql: SqlStorage) {
    this.#table = new CredentialTable(sql);
  }

  /** Mints and stores a credential; the returned secret is never stored or shown again. */
  create(kind: CredentialKind, subjectId: string | null, now: number): { credential_id: string; secret: string } {
    const minted = mintCredential(kind);
    this.#table.insert(minted.credentialId, kind, subjectId, sha256Bytes(minted.token), now);
    this.#cache.delete(minted.credentialId);
    return { credential_id: minted.credentialId, secret: minted.token };
  }

  /** Revokes at once; `false` if no such (unrevoked) credential. */
  revoke(credentialId: string, now: number): boolean {
    this.#cache.delete(credentialId);
    return this.#table.revoke(credentialId, now);
  }

  /** Whether a credential is still live (a WebSocket checks on every message). */
  isLive(credentialId: string): boolean {
    return this.#table.isLive(credentialId);
  }

  #load(credentialId: string): StoredCredential | null {
    const cached = this.#cache.get(credentialId);
    if (cached !== undefined) return cached;
    const stored = this.#table.get(credentialId);
    this.#cache.set(credentialId, stored);
    return stored;
  }

  /**
   * Authenticates a bearer token for an operation of the access table. Every failure to
   * authenticate is the same problem; a genuine credential of the wrong kind is `FORBIDDEN`.
   */
  authenticate(token: string, operation: Operation): Outcome<Caller> {
    const parsed = parseCredential(token);
    if (parsed === null) return fail(UNAUTHENTICATED);
    const stored = this.#load(parsed.credentialId);
    const presented = sha256Bytes(token);
    if (stored === null || stored.revoked || stored.kind !== parsed.kind) {
      digestsEqual(presented, presented);
      return fail(UNAUTHENTICATED);
    }
    if (!digestsEqual(presented, stored.secretSha256)) return fail(UNAUTHENTICATED);
    if (!credentialKinds(operation).includes(stored.kind)) {
      return fail(problem("FORBIDDEN", `A ${stored.kind} credential may not call this route.`));
    }
    return ok({ credentialId: parsed.credentialId, kind: stored.kind, subjectId: stored.subjectId });
  }
}
