/**
 * The RFC 9162 §2.1 Merkle tree over audit entries: leaf and node hashes, the tree head, audit
 * paths and consistency proofs, and their verification. A tree is read through a
 * {@link NodeReader} of complete aligned subtrees, so the Worker can keep one row per complete
 * node in SQLite (O(log n) rows per append, O(log n) reads per proof) and an offline verifier can
 * use the in-memory {@link MerkleTree}.
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";

/**
 * The root of the empty tree: SHA-256 of no bytes (FIPS 180-4's digest of the empty message,
 * written out rather than hashed when the module starts).
 */
export const EMPTY_ROOT: Uint8Array = Uint8Array.of(
  0xe3,
  0xb0,
  0xc4,
  0x42,
  0x98,
  0xfc,
  0x1c,
  0x14,
  0x9a,
  0xfb,
  0xf4,
  0xc8,
  0x99,
  0x6f,
  0xb9,
  0x24,
  0x27,
  0xae,
  0x41,
  0xe4,
  0x64,
  0x9b,
  0x93,
  0x4c,
  0xa4,
  0x95,
  0x99,
  0x1b,
  0x78,
  0x52,
  0xb8,
  0x55,
);

/** SHA-256 of bytes (noble's by default; a host may pass its native one: the same digest). */
export type Sha256Bytes = (bytes: Uint8Array) => Uint8Array;

/** The hash of a leaf: SHA-256(0x00 ‖ entry), where `entry` is the entry's bytes. */
export function leafHash(entry: Uint8Array): Uint8Array {
  return leafHashWith(entry, sha256);
}

/** {@link leafHash} with a given SHA-256 (`sha`). */
export function leafHashWith(entry: Uint8Array, sha: Sha256Bytes): Uint8Array {
  const input = new Uint8Array(entry.length + 1);
  input.set(entry, 1);
  return sha(input);
}

/** The hash of an interior node: SHA-256(0x01 ‖ left ‖ right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const input = new Uint8Array(1 + left.length + right.length);
  input[0] = 1;
  input.set(left, 1);
  input.set(right, 1 + left.length);
  return sha256(input);
}

/**
 * Reads the hash of the complete aligned subtree covering leaves [index·2^level, (index+1)·2^level);
 * level 0 holds the leaf hashes. Only nodes that exist for the size in question are asked for.
 */
export interface NodeReader {
  node(level: number, index: number): Uint8Array;
}

/** The largest power of two strictly below `n` (n ≥ 2): RFC 9162's split point k. */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The least level with 2^level ≥ n. */
function log2(n: number): number {
  let level = 0;
  while (2 ** level < n) level++;
  return level;
}

// Sizes may exceed 2^32, where bitwise operators wrap: arithmetic only.
function isPowerOfTwo(n: number): boolean {
  return n > 0 && 2 ** log2(n) === n;
}

function checkCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`);
}

/**
 * MTH(D[start:end]), built from complete aligned subtrees. For the ranges RFC 9162's recursion
 * produces (start a multiple of the largest power of two ≤ the range's length) this reads
 * O(log n) nodes; any other range is still hashed correctly by the definition, with more reads.
 */
export function rangeHash(reader: NodeReader, start: number, end: number): Uint8Array {
  checkCount("start", start);
  checkCount("end", end);
  const n = end - start;
  if (n < 0) throw new RangeError("a range cannot end before it starts");
  if (n === 0) return EMPTY_ROOT;
  if (isPowerOfTwo(n) && start % n === 0) {
    const level = log2(n);
    return reader.node(level, start / n);
  }
  const k = split(n);
  return nodeHash(rangeHash(reader, start, start + k), rangeHash(reader, start + k, end));
}

/** The Merkle tree hash of the first `size` leaves (the tree head's root). */
export function rootHash(reader: NodeReader, size: number): Uint8Array {
  return rangeHash(reader, 0, size);
}

function path(reader: NodeReader, m: number, start: number, end: number, out: Uint8Array[]): void {
  const n = end - start;
  if (n <= 1) return;
  const k = split(n);
  if (m < start + k) {
    path(reader, m, start, start + k, out);
    out.push(rangeHash(reader, start + k, end));
  } else {
    path(reader, m, start + k, end, out);
    out.push(rangeHash(reader, start, start + k));
  }
}

/** The audit path PATH(index, D[0:size]) of RFC 9162 §2.1.3.1, nearest sibling first. */
export function inclusionProof(reader: NodeReader, index: number, size: number): Uint8Array[] {
  checkCount("index", index);
  checkCount("size", size);
  if (index >= size) throw new RangeError("the index must be below the tree size");
  const out: Uint8Array[] = [];
  path(reader, index, 0, size, out);
  return out;
}

function subproof(
  reader: NodeReader,
  m: number,
  start: number,
  end: number,
  complete: boolean,
  out: Uint8Array[],
): void {
  const n = end - start;
  if (m === end) {
    if (!complete) out.push(rangeHash(reader, start, end));
    return;
  }
  const k = split(n);
  if (m <= start + k) {
    subproof(reader, m, start, start + k, complete, out);
    out.push(rangeHash(reader, start + k, end));
  } else {
    subproof(reader, m, start + k, end, false, out);
    out.push(rangeHash(reader, start, start + k));
  }
}

/** The consistency proof PROOF(m, D[0:n]) of RFC 9162 §2.1.4.1; empty when m = n or m = 0. */
export function consistencyProof(reader: NodeReader, m: number, n: number): Uint8Array[] {
  checkCount("m", m);
  checkCount("n", n);
  if (m > n) throw new RangeError("the old size must not exceed the new size");
  const out: Uint8Array[] = [];
  if (m === 0 || m === n) return out;
  subproof(reader, m, 0, n, true, out);
  return out;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

function validSize(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

/**
 * RFC 9162 §2.1.3.2: whether `proof` shows the leaf hash `leaf` (already {@link leafHash}ed) at
 * `index` in the tree of `size` leaves whose root is `root`.
 */
export function verifyInclusion(
  leaf: Uint8Array,
  index: number,
  size: number,
  proof: Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!validSize(index) || !validSize(size) || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && equal(r, root);
}

/**
 * RFC 9162 §2.1.4.2: whether `proof` shows the tree of `m` leaves with root `oldRoot` is a prefix
 * of the tree of `n` leaves with root `newRoot`. For m = n the proof is empty and the roots equal;
 * for m = 0 the proof is empty and `oldRoot` is {@link EMPTY_ROOT}.
 */
export function verifyConsistency(
  m: number,
  n: number,
  proof: Uint8Array[],
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
): boolean {
  if (!validSize(m) || !validSize(n) || m > n) return false;
  if (m === 0) return proof.length === 0 && equal(oldRoot, EMPTY_ROOT);
  if (m === n) return proof.length === 0 && equal(oldRoot, newRoot);
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(m) ? [oldRoot, ...proof] : proof;
  let fn = m - 1;
  let sn = n - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0] as Uint8Array;
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return equal(fr, oldRoot) && equal(sr, newRoot) && sn === 0;
}

/** One complete node to store: the hash of the aligned subtree (level, index). */
export interface StoredNode {
  readonly level: number;
  readonly index: number;
  readonly hash: Uint8Array;
}

/**
 * The complete nodes that appending leaf hash `leaf` as leaf number `size` (0-based) completes:
 * the leaf itself, then each parent while the child's index is odd (its left sibling is read
 * from `reader`). Storing exactly these keeps every complete node, O(log n) rows per append.
 */
export function appendNodes(
  size: number,
  leaf: Uint8Array,
  reader: NodeReader,
): Array<{ level: number; index: number; hash: Uint8Array }> {
  checkCount("size", size);
  const out = [{ level: 0, index: size, hash: leaf }];
  let level = 0;
  let index = size;
  let hash = leaf;
  while (index % 2 === 1) {
    hash = nodeHash(reader.node(level, index - 1), hash);
    level++;
    index = (index - 1) / 2;
    out.push({ level, index, hash });
  }
  return out;
}

/** An in-memory tree of leaf hashes keeping complete nodes only, as the Worker's table does. */
export class MerkleTree implements NodeReader {
  private readonly levels: Uint8Array[][] = [];
  private count = 0;

  /** The number of leaves. */
  get size(): number {
    return this.count;
  }

  /** Appends a leaf hash (see {@link leafHash}); returns its index. */
  append(leaf: Uint8Array): number {
    const index = this.count;
    for (const stored of appendNodes(index, leaf, this)) {
      const row = this.levels[stored.level] ?? [];
      row[stored.index] = stored.hash;
      this.levels[stored.level] = row;
    }
    this.count++;
    return index;
  }

  /** The complete node (level, index); throws for one the tree does not have. */
  node(level: number, index: number): Uint8Array {
    const hash = this.levels[level]?.[index];
    if (hash === undefined) throw new RangeError(`the tree has no complete node (${level}, ${index})`);
    return hash;
  }

  /** The root of the first `size` leaves. */
  root(size: number = this.count): Uint8Array {
    if (!validSize(size) || size > this.count) throw new RangeError("the size exceeds the tree");
    return rootHash(this, size);
  }
}
