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
  {
    // v9: the Merkle tree over the chain's entries (complete aligned subtrees only: level 0 are
    // the leaf hashes, node (level, idx) covers leaves [idx·2^level, (idx+1)·2^level)) and the
    // signed checkpoints (C2SP signed notes; the signing key is never stored here).
    version: 9,
    sql: `
  CREATE TABLE audit_tree (
    level INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    hash BLOB NOT NULL,
    PRIMARY KEY (level, idx)
  ) WITHOUT ROWID;
  CREATE TABLE audit_checkpoints (
    size INTEGER PRIMARY KEY,
    root BLOB NOT NULL,
    note TEXT NOT NULL,
    signed_at INTEGER NOT NULL
  );`,
  },
];

/** One stored signed checkpoint. */
export interface StoredCheckpoint {
  readonly size: number;
  readonly root: Uint8Array;
  readonly note: string;
  readonly signedAt: number;
}

function bytes(row: SqlRow, column: string): Uint8Array {
  const v = row[column];
  if (!(v instanceof ArrayBuffer)) throw new Error(`column ${column} is not a blob`);
  return new Uint8Array(v);
}

function blob(value: Uint8Array): ArrayBuffer {
  return value.slice().buffer;
}

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

  /** The number of leaves in the tree (the entries whose leaf hash is stored). */
  treeSize(): number {
    const row = one(this.sql, "SELECT idx FROM audit_tree WHERE level = 0 ORDER BY idx DESC LIMIT 1");
    return row === undefined ? 0 : int(row, "idx") + 1;
  }

  /** The hash of a complete subtree; a missing one is a bug (callers ask only for existing nodes). */
  node(level: number, idx: number): Uint8Array {
    const row = one(this.sql, "SELECT hash FROM audit_tree WHERE level = ? AND idx = ?", level, idx);
    if (row === undefined) throw new Error(`audit tree node (${level}, ${idx}) is missing`);
    return bytes(row, "hash");
  }

  putNode(level: number, idx: number, hash: Uint8Array): void {
    run(this.sql, "INSERT INTO audit_tree (level, idx, hash) VALUES (?, ?, ?)", level, idx, blob(hash));
  }

  /** The signed checkpoint of the largest size, if any. */
  latestCheckpoint(): StoredCheckpoint | undefined {
    const row = one(this.sql, "SELECT * FROM audit_checkpoints ORDER BY size DESC LIMIT 1");
    return row === undefined ? undefined : { size: int(row, "size"), root: bytes(row, "root"), note: text(row, "note"), signedAt: int(row, "signed_at") };
  }

  putCheckpoint(checkpoint: StoredCheckpoint): void {
    run(this.sql, "INSERT INTO audit_checkpoints (size, root, note, signed_at) VALUES (?, ?, ?, ?)", checkpoint.size, blob(checkpoint.root), checkpoint.note, checkpoint.signedAt);
  }

  /** The stored digest of entry `seq`, if that entry exists. */
  digestAt(seq: number): string | undefined {
    const row = one(this.sql, "SELECT entry_sha256 FROM audit_chain WHERE seq = ?", seq);
    return row === undefined ? undefined : text(row, "entry_sha256");
  }
}
