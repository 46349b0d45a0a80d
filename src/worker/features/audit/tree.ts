/**
 * The audit chain's RFC 9162 Merkle tree in the object's SQLite (`audit_tree`): leaf `seq − 1`
 * is `leafHash(utf8(entryLine(entry)))`, and an append stores exactly the complete subtrees it
 * completes (`appendNodes`, O(log n) rows), so roots and proofs read O(log n) rows.
 * @module
 */
import { appendNodes, entryLeafHash, type ChainEntry, type NodeReader } from "../../../core/audit";
import type { AuditStore } from "./store";
import { fastSha256 } from "../../sha256";

/** Entries one backfill step adds to the tree (one transaction each). */
export const BACKFILL_STEP = 512;

/** The tree of one consumer's chain; calls run inside the caller's transaction. */
export class AuditTree implements NodeReader {
  #size: number | undefined;
  /**
   * The newest stored node of each level (the tree's right edge): the left siblings the next
   * append combines, so an append reads no row. Nodes never change once stored; the edge is
   * forgotten with the size ({@link reset}).
   */
  #edge: Array<{ index: number; hash: Uint8Array } | undefined> = [];

  constructor(private readonly store: AuditStore) {}

  /** Leaves stored (cached; {@link reset} after a rolled-back transaction). */
  size(): number {
    this.#size ??= this.store.treeSize();
    return this.#size;
  }

  reset(): void {
    this.#size = undefined;
    this.#edge = [];
  }

  node(level: number, index: number): Uint8Array {
    const edge = this.#edge[level];
    return edge !== undefined && edge.index === index ? edge.hash : this.store.node(level, index);
  }

  /** Adds entry `entry.seq` as the next leaf; the tree must hold exactly the entries before it. */
  append(entry: ChainEntry): Uint8Array {
    const size = this.size();
    if (size !== entry.seq - 1)
      throw new Error(`the audit tree holds ${size} leaves; entry ${entry.seq} cannot be appended`);
    const leaf = entryLeafHash(entry, fastSha256);
    const nodes = appendNodes(size, leaf, this);
    this.store.putNodes(nodes);
    for (const node of nodes) this.#edge[node.level] = { index: node.index, hash: node.hash };
    this.#size = size + 1;
    return leaf;
  }

  /**
   * One bounded step of building the tree of a chain stored before the tree existed (schema
   * v9): at most `max` stored entries after the tree's last leaf. Returns whether entries remain.
   */
  backfill(max: number = BACKFILL_STEP): boolean {
    const rows = this.store.after(this.size(), max + 1);
    for (const entry of rows.slice(0, max)) this.append(entry);
    return rows.length > max;
  }
}
