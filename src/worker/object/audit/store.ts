import type { ChainEntry } from "../../../core/audit";
import type { Migration } from "../migrations";
import { all, int, one, run, text, type SqlRow } from "../sql";

/** The audit plane's table (part of schema v1). */
export const AUDIT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
  CREATE TABLE audit_chain (
    seq INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    at INTEGER NOT NULL,
    record TEXT NOT NULL,
    prev_sha256 TEXT NOT NULL,
    entry_sha256 TEXT NOT NULL
  );`,
  },
];

function entryOf(row: SqlRow): ChainEntry {
  return {
    seq: int(row, "seq"),
    kind: text(row, "kind"),
    at: int(row, "at"),
    record: text(row, "record"),
    prev_sha256: text(row, "prev_sha256"),
    entry_sha256: text(row, "entry_sha256"),
  };
}

/** All SQL of the audit chain; every call runs inside the caller's transaction. */
export class AuditStore {
  constructor(private readonly sql: SqlStorage) {}

  /** The newest entry's sequence and digest, if any. */
  head(): { seq: number; sha256: string } | undefined {
    const row = one(this.sql, "SELECT seq, entry_sha256 FROM audit_chain ORDER BY seq DESC LIMIT 1");
    return row === undefined ? undefined : { seq: int(row, "seq"), sha256: text(row, "entry_sha256") };
  }

  insert(entry: ChainEntry): void {
    run(
      this.sql,
      "INSERT INTO audit_chain (seq, kind, at, record, prev_sha256, entry_sha256) VALUES (?, ?, ?, ?, ?, ?)",
      entry.seq,
      entry.kind,
      entry.at,
      entry.record,
      entry.prev_sha256,
      entry.entry_sha256,
    );
  }

  /** Entries with `seq > after`, oldest first, at most `limit`. */
  after(after: number, limit: number): ChainEntry[] {
    return all(this.sql, "SELECT * FROM audit_chain WHERE seq > ? ORDER BY seq LIMIT ?", after, limit).map(entryOf);
  }

  /** The stored digest of entry `seq`, if that entry exists. */
  digestAt(seq: number): string | undefined {
    const row = one(this.sql, "SELECT entry_sha256 FROM audit_chain WHERE seq = ?", seq);
    return row === undefined ? undefined : text(row, "entry_sha256");
  }
}
