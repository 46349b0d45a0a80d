import { entryDigest, GENESIS_SHA256, verifyChain, type ChainVerification } from "../../../core/audit";
import { canonicalJson, readJson, type Json } from "../../../core/json";
import { STORED_JSON } from "../sql";
import { AuditStore } from "./store";

/** Largest page of the audit chain one request may read. */
export const MAX_AUDIT_PAGE = 500;

/** One entry of a consumer's audit chain, as served to auditors. */
export interface AuditEntry {
  seq: number;
  kind: string;
  at: number;
  record: Json;
  prev_sha256: string;
  entry_sha256: string;
}

/**
 * The consumer's hash chain. Any plane appends to it (tool-call audits, approval decisions,
 * capability events…) with its own `kind`; appends must run inside the caller's transaction.
 * The digests and the verification are the core's (`core/audit`).
 */
export class AuditChain {
  readonly #store: AuditStore;
  #head: { seq: number; sha256: string } | undefined;

  constructor(sql: SqlStorage) {
    this.#store = new AuditStore(sql);
  }

  #loadHead(): { seq: number; sha256: string } {
    this.#head ??= this.#store.head() ?? { seq: 0, sha256: GENESIS_SHA256 };
    return this.#head;
  }

  /** Forgets the cached head (after a rolled-back transaction). */
  reset(): void {
    this.#head = undefined;
  }

  /** Appends one record; returns its sequence number. */
  append(kind: string, at: number, record: unknown): number {
    const head = this.#loadHead();
    const seq = head.seq + 1;
    const recordText = canonicalJson(record);
    const sha = entryDigest(seq, kind, at, recordText, head.sha256);
    this.#store.insert({ seq, kind, at, record: recordText, prev_sha256: head.sha256, entry_sha256: sha });
    this.#head = { seq, sha256: sha };
    return seq;
  }

  /** Entries with `seq > after`, oldest first, at most `limit`, and where the next page starts. */
  page(after: number, limit: number): { entries: AuditEntry[]; next_after: number | null } {
    const size = Math.max(1, Math.min(limit, MAX_AUDIT_PAGE));
    const rows = this.#store.after(after, size + 1);
    const entries = rows.slice(0, size).map((entry) => {
      const parsed = readJson(entry.record, STORED_JSON);
      if (!parsed.ok) throw new Error("stored audit record is not strict JSON");
      return { ...entry, record: parsed.value };
    });
    const last = entries[entries.length - 1];
    return { entries, next_after: rows.length > size && last !== undefined ? last.seq : null };
  }

  /** Recomputes every link of the chain from the stored text. */
  verify(): ChainVerification {
    return verifyChain(this.#store.entries());
  }
}
