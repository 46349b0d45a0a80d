import { credentialKinds, type CredentialKind, type Operation } from "../../../contracts/access";
import {
  actsForPrincipal,
  principalModeOf,
  type CreateCredentialRequest,
  type PrincipalMode,
} from "../../../contracts/credential";
import { canonicalJson, compareCodePoints } from "../../../core/json";
import { credentialShape, mintCredential, type TokenKeys } from "./format";
import { UNAUTHENTICATED, problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import { misconfigured } from "../../required-secrets";
import { digestsEqual, sha256Bytes, textsEqual } from "../../http/timing-safe";
import type { AuditChain } from "../audit/service";
import { LruMap } from "../../lru";
import { CredentialStore, type CredentialBinding, type StoredCredential } from "./store";
import type { ObjectKernel } from "../../kernel/kernel";

/** An authenticated caller, from the stored credential record (never from the request). */
export interface Caller {
  credentialId: string;
  kind: CredentialKind;
  subjectId: string | null;
  /** Agent and runtime credentials: how calls get their principal. */
  principal: PrincipalMode | null;
  /** Agent and runtime credentials: the roles its calls may assert. */
  roles: readonly string[];
  /** Agent and runtime credentials: the tools (and `capability:` entries) it may use (`null`: all; identity/scope.ts). */
  tools: readonly string[] | null;
}

/** Credentials a consumer's object keeps decoded at once. */
export const CREDENTIAL_CACHE_ENTRIES = 256;

/** What the service reads of the kernel: its table, the clock, and the consumer's name (tokens are tagged for it). */
type CredentialKernel = Pick<ObjectKernel, "sql" | "now" | "consumerName">;

/** The binding a credential request asks for (the contract already checked its combinations). */
export function bindingOf(request: CreateCredentialRequest): CredentialBinding {
  const roles = [...new Set(request.roles ?? [])].sort(compareCodePoints);
  return {
    kind: request.kind,
    subjectId: request.subject_id ?? null,
    principal: actsForPrincipal(request.kind) ? principalModeOf(request) : null,
    roles,
    tools: request.tools === undefined ? null : [...new Set(request.tools)].sort(compareCodePoints),
    expiresAt: request.expires_at ?? null,
  };
}

/**
 * Credentials of one consumer: minted here, stored only as SHA-256, checked here (inside the
 * consumer's object, so a revocation takes effect on the next request). Decoded records are
 * cached in a bounded LRU map.
 */
export class CredentialService {
  readonly #table: CredentialStore;
  readonly #kernel: CredentialKernel;
  readonly #keys: TokenKeys;
  readonly #cache = new LruMap<string, StoredCredential | null>(CREDENTIAL_CACHE_ENTRIES);
  /**
   * The token whose SHA-256 matched a cached record, by that record: the next call with the same
   * token is compared in constant time instead of hashed again. Keyed by the record object, so an
   * entry ends with it (evicted, reloaded, revoked).
   */
  readonly #matched = new WeakMap<StoredCredential, string>();

  constructor(kernel: CredentialKernel, keys: TokenKeys) {
    this.#kernel = kernel;
    this.#keys = keys;
    this.#table = new CredentialStore(kernel.sql);
  }

  /** Decoded credentials held in memory (bounded by {@link CREDENTIAL_CACHE_ENTRIES}). */
  get cached(): number {
    return this.#cache.size;
  }

  /** Mints and stores a credential; the returned secret is never stored or shown again. */
  create(consumer: string, binding: CredentialBinding, now: number): { credential_id: string; secret: string } {
    const minted = mintCredential(binding.kind, consumer, this.#keys);
    this.#table.insert(minted.credentialId, binding, sha256Bytes(minted.token), now);
    this.#cache.delete(minted.credentialId);
    return { credential_id: minted.credentialId, secret: minted.token };
  }

  /**
   * Issues a credential and audits it, inside the caller's transaction; answers the creation
   * view with its secret, shown this once. An expiry already past is refused.
   */
  issue(consumer: string, binding: CredentialBinding, now: number, audit: AuditChain): Outcome<string> {
    if (binding.expiresAt !== null && binding.expiresAt <= now)
      return fail(problem("INVALID_REQUEST", "$.expires_at: already in the past."));
    if (this.#keys.current === null) return fail(misconfigured("TOOLGATE_TOKEN_KEY", "no credential can be issued"));
    const view = {
      kind: binding.kind,
      subject_id: binding.subjectId,
      principal: binding.principal,
      roles: [...binding.roles],
      tools: binding.tools === null ? null : [...binding.tools],
      expires_at: binding.expiresAt,
    };
    const created = this.create(consumer, binding, now);
    audit.append("credential.created", now, { credential_id: created.credential_id, ...view });
    return ok(canonicalJson({ ...created, ...view }));
  }

  /** Revokes at once; `false` if no such (unrevoked) credential. */
  revoke(credentialId: string, now: number): boolean {
    this.#cache.delete(credentialId);
    return this.#table.revoke(credentialId, now);
  }

  /** Whether a credential is still live: not revoked, not expired (a WebSocket checks on every message). */
  isLive(credentialId: string): boolean {
    return this.#table.isLive(credentialId, this.#kernel.now());
  }

  /** When a credential expires (Unix seconds; `null`: never, or no such credential): a live stream of it closes then. */
  expiresAt(credentialId: string): number | null {
    return this.#table.get(credentialId)?.expiresAt ?? null;
  }

  /** The caller a live credential is (not revoked, not expired), by id: a runtime socket's, for each envelope. */
  liveCaller(credentialId: string): Caller | null {
    const stored = this.#load(credentialId);
    if (stored === null || stored.revoked || (stored.expiresAt !== null && stored.expiresAt <= this.#kernel.now()))
      return null;
    const { kind, subjectId, principal, roles, tools } = stored;
    return { credentialId, kind, subjectId, principal, roles, tools };
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
   * authenticate (malformed, forged, unknown, revoked, expired) is the same problem; a genuine
   * credential of the wrong kind is `FORBIDDEN`.
   */
  authenticate(token: string, operation: Operation): Outcome<Caller> {
    // The Worker checked the keyed tag for this consumer; the stored SHA-256 decides here.
    const parsed = this.#kernel.consumerName() === undefined ? null : credentialShape(token);
    if (parsed === null) return fail(UNAUTHENTICATED);
    const stored = this.#load(parsed.credentialId);
    const matched = stored === null ? undefined : this.#matched.get(stored);
    if (stored === null || matched === undefined || !textsEqual(matched, token)) {
      const presented = sha256Bytes(token);
      if (stored === null || stored.revoked || stored.kind !== parsed.kind) {
        digestsEqual(presented, presented);
        return fail(UNAUTHENTICATED);
      }
      if (!digestsEqual(presented, stored.secretSha256)) return fail(UNAUTHENTICATED);
      this.#matched.set(stored, token);
    }
    if (stored.revoked || stored.kind !== parsed.kind) return fail(UNAUTHENTICATED);
    if (stored.expiresAt !== null && stored.expiresAt <= this.#kernel.now()) return fail(UNAUTHENTICATED);
    if (!credentialKinds(operation).includes(stored.kind)) {
      return fail(problem("FORBIDDEN", `A ${stored.kind} credential may not call this route.`));
    }
    const { kind, subjectId, principal, roles, tools } = stored;
    return ok({ credentialId: parsed.credentialId, kind, subjectId, principal, roles, tools });
  }
}
