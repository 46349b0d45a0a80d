import type { ChainEntry } from "../../../core/audit";
import type { Migration } from "../../kernel/schema";
import { all, int, one, run, text, type SqlRow } from "../../kernel/sql";
import { leavesUpTo, nodePosition, rekeyStep, TREE_KEY_MIGRATION } from "./tree-key";

/** The audit service's table (part of schema v1). */
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
  {
    // v15: the archive of full C2SP tlog-tiles in the AUDIT_TILES bucket (docs/audit.md): entries
    // 1..entries (a multiple of 256) are in tiles under `prefix` and their rows deleted, except
    // those of held tiles (an entry too long for an entry bundle keeps its tile's rows here).
    version: 15,
    sql: `
  CREATE TABLE audit_archive (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    prefix TEXT NOT NULL,
    entries INTEGER NOT NULL,
    last_sha256 TEXT NOT NULL
  );
  CREATE TABLE audit_archive_held (
    tile INTEGER PRIMARY KEY
  );`,
  },
  TREE_KEY_MIGRATION,
];

/** What is archived: entries `1..entries` are in tiles under `prefix`; `lastSha256` is entry `entries`' digest. */
export interface ArchiveState {
  readonly prefix: string;
  readonly entries: number;
  readonly lastSha256: string;
}

/** Nothing archived yet. */
const NOTHING_ARCHIVED: ArchiveState = { prefix: "", entries: 0, lastSha256: "" };

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

  /** The newest entry's sequence and digest, if any (the archive's last entry when no row is newer). */
  head(): { seq: number; sha256: string } | undefined {
    const row = one(this.sql, "SELECT seq, entry_sha256 FROM audit_chain ORDER BY seq DESC LIMIT 1");
    const archived = this.archive();
    if (archived.entries > 0 && (row === undefined || int(row, "seq") <= archived.entries))
      return { seq: archived.entries, sha256: archived.lastSha256 };
    return row === undefined ? undefined : { seq: int(row, "seq"), sha256: text(row, "entry_sha256") };
  }

  /** What is archived to tiles (nothing: entries 0). */
  archive(): ArchiveState {
    const row = one(this.sql, "SELECT prefix, entries, last_sha256 FROM audit_archive WHERE id = 1");
    return row === undefined
      ? NOTHING_ARCHIVED
      : { prefix: text(row, "prefix"), entries: int(row, "entries"), lastSha256: text(row, "last_sha256") };
  }

  /** The held tiles (rows kept: an entry too long for a bundle) among tiles [from, to). */
  heldTiles(from: number, to: number): Set<number> {
    return new Set(
      all(this.sql, "SELECT tile FROM audit_archive_held WHERE tile >= ? AND tile < ?", from, to).map((row) =>
        int(row, "tile"),
      ),
    );
  }

  /** Entries with `after < seq ≤ until`, oldest first, at most `limit`. */
  between(after: number, until: number, limit: number): ChainEntry[] {
    return all(
      this.sql,
      "SELECT * FROM audit_chain WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
      after,
      until,
      limit,
    ).map(entryOf);
  }

  /** The stored nodes of `level` with indexes [from, to), in index order (a level's positions grow with its index). */
  nodes(level: number, from: number, to: number): Array<{ idx: number; hash: Uint8Array }> {
    if (to <= from) return [];
    return all(
      this.sql,
      "SELECT idx, hash FROM audit_tree WHERE pos >= ? AND pos <= ? AND level = ? ORDER BY pos",
      nodePosition(level, from),
      nodePosition(level, to - 1),
      level,
    ).map((row) => ({ idx: int(row, "idx"), hash: bytes(row, "hash") }));
  }

  /**
   * Records entry tile `tile` as archived (the caller wrote and read back its tiles): deletes its
   * entries' rows (unless `held`: then the tile is recorded as held), deletes each level's tree
   * rows from `bounds[level].from` (the bound of the archive before this tile: the rows below it
   * are gone) up to `bounds[level].to`, deletes the checkpoints older than `witnessed` (the
   * witness bucket holds them), and moves the archive to `state`.
   */
  archived(
    tile: number,
    held: boolean,
    bounds: ReadonlyArray<{ from: number; to: number }>,
    witnessed: number,
    state: ArchiveState,
  ): void {
    run(this.sql, "DELETE FROM audit_checkpoints WHERE size < ?", witnessed);
    if (held) run(this.sql, "INSERT OR IGNORE INTO audit_archive_held (tile) VALUES (?)", tile);
    else run(this.sql, "DELETE FROM audit_chain WHERE seq > ? AND seq <= ?", tile * 256, (tile + 1) * 256);
    bounds.forEach(({ from, to }, level) => {
      if (to > from)
        run(
          this.sql,
          "DELETE FROM audit_tree WHERE pos >= ? AND pos < ? AND level = ?",
          nodePosition(level, from),
          nodePosition(level, to),
          level,
        );
    });
    run(
      this.sql,
      "INSERT INTO audit_archive (id, prefix, entries, last_sha256) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET prefix = excluded.prefix, entries = excluded.entries, last_sha256 = excluded.last_sha256",
      state.prefix,
      state.entries,
      state.lastSha256,
    );
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

  /**
   * The newest entries of `kind` after `afterSeq` and at or after `since` whose record's top-level
   * `member` is `value`, newest first, at most `limit` (a replay's calls of one tool).
   */
  newestWith(
    kind: string,
    member: string,
    value: string,
    bounds: { afterSeq: number; since: number },
    limit: number,
  ): ChainEntry[] {
    return all(
      this.sql,
      "SELECT * FROM audit_chain WHERE seq > ? AND kind = ? AND at >= ? AND json_extract(record, ?) = ? ORDER BY seq DESC LIMIT ?",
      bounds.afterSeq,
      kind,
      bounds.since,
      `$.${member}`,
      value,
      limit,
    ).map(entryOf);
  }

  /** The newest entries after `afterSeq` of the tool call `callId` (its record's `provider_context.call_id`), at most `limit`, newest first. */
  newestOfCall(callId: string, afterSeq: number, limit: number): ChainEntry[] {
    return all(
      this.sql,
      "SELECT * FROM audit_chain WHERE seq > ? AND json_extract(record, '$.provider_context.call_id') = ? ORDER BY seq DESC LIMIT ?",
      afterSeq,
      callId,
      limit,
    ).map(entryOf);
  }

  /** Entries with `seq > after`, oldest first, at most `limit`. */
  after(after: number, limit: number): ChainEntry[] {
    return all(this.sql, "SELECT * FROM audit_chain WHERE seq > ? ORDER BY seq LIMIT ?", after, limit).map(entryOf);
  }

  /** One bounded step of schema v22's re-keying (./tree-key): answers whether rows remain. */
  rekeyStep(leaves?: number): boolean {
    return rekeyStep(this.sql, leaves);
  }

  /**
   * The number of leaves in the tree (the entries whose leaf hash is stored, or archived): the
   * last row is a node the newest leaf completed (the archive never deletes the highest one).
   */
  treeSize(): number {
    const row = one(this.sql, "SELECT pos FROM audit_tree ORDER BY pos DESC LIMIT 1");
    return Math.max(row === undefined ? 0 : leavesUpTo(int(row, "pos")), this.archive().entries);
  }

  /** The hash of a complete subtree; a missing one is a bug (callers ask only for existing nodes). */
  node(level: number, idx: number): Uint8Array {
    const row = one(this.sql, "SELECT hash FROM audit_tree WHERE pos = ?", nodePosition(level, idx));
    if (row === undefined) throw new Error(`audit tree node (${level}, ${idx}) is missing`);
    return bytes(row, "hash");
  }

  /** Stores the nodes one append completes, in one statement (an append completes at most 64). */
  putNodes(nodes: ReadonlyArray<{ level: number; index: number; hash: Uint8Array }>): void {
    if (nodes.length === 0) return;
    const values = nodes.map(() => "(?, ?, ?, ?)").join(", ");
    run(
      this.sql,
      `INSERT INTO audit_tree (pos, level, idx, hash) VALUES ${values}`,
      ...nodes.flatMap((node) => [nodePosition(node.level, node.index), node.level, node.index, blob(node.hash)]),
    );
  }

  /** The signed checkpoint of the largest size, if any. */
  latestCheckpoint(): StoredCheckpoint | undefined {
    const row = one(this.sql, "SELECT * FROM audit_checkpoints ORDER BY size DESC LIMIT 1");
    return row === undefined
      ? undefined
      : { size: int(row, "size"), root: bytes(row, "root"), note: text(row, "note"), signedAt: int(row, "signed_at") };
  }

  putCheckpoint(checkpoint: StoredCheckpoint): void {
    run(
      this.sql,
      "INSERT INTO audit_checkpoints (size, root, note, signed_at) VALUES (?, ?, ?, ?)",
      checkpoint.size,
      blob(checkpoint.root),
      checkpoint.note,
      checkpoint.signedAt,
    );
  }

  /** The stored digest of entry `seq`, if that entry exists. */
  digestAt(seq: number): string | undefined {
    const row = one(this.sql, "SELECT entry_sha256 FROM audit_chain WHERE seq = ?", seq);
    return row === undefined ? undefined : text(row, "entry_sha256");
  }
}
