import { canonicalJson, readJson, sha256Hex, type Json } from "../../core/json";
import { all, int, one, STORED_JSON, text } from "./sql";

/** The previous-digest value of the first entry. */
export const GENESIS_SHA256 = "0".repeat(64);

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

/** Result of verifying the whole chain. */
export interface AuditVerification {
  ok: boolean;
  count: number;
  head: string;
}

/**
 * The digest an entry commits to: the canonical JSON of its sequence, kind, time, record and
 * the previous entry's digest, so a changed, removed or reordered entry breaks every later one.
 */
export function entryDigest(seq: number, kind: string, at: number, recordText: string, prev: string): string {
  return sha256Hex(`{"at":${at},"kind":${JSON.stringify(kind)},"prev_sha256":"${prev}","record":${recordText},"seq":${seq}}`);
}

/**
 * The consumer's hash chain. Any plane appends to it (tool-call audits, approval decisions,
 * capability events…) with its own `kind`; appends must run inside the caller's transaction.
 */
export class AuditChain {
  #head: { seq: number; sha256: string } | undefined;

  constructor(private readonly sql: SqlStorage) {}

  #loadHead(): { seq: number; sha256: string } {
    if (this.#head === undefined) {
      const row = one(this.sql, "SELECT seq, entry_sha256 FROM audit_chain ORDER BY seq DESC LIMIT 1");
      this.#head = row === undefined ? { seq: 0, sha256: GENESIS_SHA256 } : { seq: int(row, "seq"), sha256: text(row, "entry_sha256") };
    }
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
    this.sql.exec(
      "INSERT INTO audit_chain (seq, kind, at, record, prev_sha256, entry_sha256) VALUES (?, ?, ?, ?, ?, ?)",
      seq,
      kind,
      at,
      recordText,
      head.sha256,
      sha,
    );
    this.#head = { seq, sha256: sha };
    return seq;
  }

  /** Entries with `seq > after`, oldest first, at most `limit`, and where the next page starts. */
  page(after: number, limit: number): { entries: AuditEntry[]; next_after: number | null } {
    const size = Math.max(1, Math.min(limit, MAX_AUDIT_PAGE));
    const rows = all(this.sql, "SELECT * FROM audit_chain WHERE seq > ? ORDER BY seq LIMIT ?", after, size + 1);
    const entries = rows.slice(0, size).map((row) => {
      const parsed = readJson(text(row, "record"), STORED_JSON);
      if (!parsed.ok) throw new Error("stored audit record is not strict JSON");
      return {
        seq: int(row, "seq"),
        kind: text(row, "kind"),
        at: int(row, "at"),
        record: parsed.value,
        prev_sha256: text(row, "prev_sha256"),
        entry_sha256: text(row, "entry_sha256"),
      };
    });
    const last = entries[entries.length - 1];
    return { entries, next_after: rows.length > size && last !== undefined ? last.seq : null };
  }

  /** Recomputes every link of the chain from the stored text. */
  verify(): AuditVerification {
    let prev = GENESIS_SHA256;
    let expectedSeq = 1;
    let ok = true;
    let count = 0;
    for (const row of this.sql.exec("SELECT * FROM audit_chain ORDER BY seq")) {
      const seq = row.seq as number;
      const sha = row.entry_sha256 as string;
      if (
        seq !== expectedSeq ||
        row.prev_sha256 !== prev ||
        entryDigest(seq, row.kind as string, row.at as number, row.record as string, prev) !== sha
      ) {
        ok = false;
      }
      prev = sha;
      expectedSeq = seq + 1;
      count++;
    }
    return { ok, count, head: prev };
  }
}
