/**
 * The C2SP `tlog-tiles` layout of the audit log's Merkle tree: tile paths, the bytes of hash
 * tiles and entry bundles, and which tree nodes a set of full tiles holds. Tiles are 8 levels
 * high: tile (L, N) holds the 256 tree nodes of level 8·L with indexes [256·N, 256·N + 256),
 * and any node of levels 8·L … 8·L + 7 above them is hashed up from those. The Worker archives
 * full tiles only, so every function here is about full tiles (width 256) unless it says so.
 * @module
 */
import { nodeHash } from "./merkle";

/** Levels of the tree one tile spans. */
export const TILE_HEIGHT = 8;
/** Hashes (or entries) in a full tile: 2^TILE_HEIGHT. */
export const TILE_WIDTH = 256;
/** The largest entry an entry bundle can carry: its length prefix is a big-endian uint16. */
export const MAX_BUNDLE_ENTRY_BYTES = 65_535;

const HASH_BYTES = 32;

function checkIndex(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`);
}

function checkWidth(width: number): void {
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH) throw new RangeError("a tile's width is 1 to 256");
}

/** Leaves one tile of `level` spans: 256^(level + 1). */
export function tileSpan(level: number): number {
  return TILE_WIDTH ** (level + 1);
}

/**
 * The `<N>` of a tile path: the index in zero-padded 3-digit path elements, all but the last
 * prefixed with `x` (1234067 → `x001/x234/067`, 5 → `005`).
 */
export function tileIndexPath(index: number): string {
  checkIndex("index", index);
  const groups: string[] = [];
  let rest = index;
  do {
    groups.unshift(String(rest % 1000).padStart(3, "0"));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  return groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join("/");
}

function widthSuffix(width: number): string {
  checkWidth(width);
  return width === TILE_WIDTH ? "" : `.p/${width}`;
}

/** `tile/<L>/<N>[.p/<W>]`: the hash tile of level `level`, index `index`. */
export function hashTilePath(level: number, index: number, width: number = TILE_WIDTH): string {
  if (!Number.isInteger(level) || level < 0 || level > 63) throw new RangeError("a tile's level is 0 to 63");
  return `tile/${level}/${tileIndexPath(index)}${widthSuffix(width)}`;
}

/** `tile/entries/<N>[.p/<W>]`: the entry bundle of the entries with indexes [256·N, 256·N + W). */
export function entryTilePath(index: number, width: number = TILE_WIDTH): string {
  return `tile/entries/${tileIndexPath(index)}${widthSuffix(width)}`;
}

/** A hash tile's bytes: its hashes concatenated, 32 bytes each. */
export function encodeHashTile(hashes: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(hashes.length * HASH_BYTES);
  hashes.forEach((hash, i) => {
    if (hash.length !== HASH_BYTES) throw new RangeError("a tile hash is 32 bytes");
    out.set(hash, i * HASH_BYTES);
  });
  return out;
}

/** The hashes of a hash tile of `width` hashes, or null when the bytes are not exactly that. */
export function decodeHashTile(bytes: Uint8Array, width: number = TILE_WIDTH): Uint8Array[] | null {
  checkWidth(width);
  if (bytes.length !== width * HASH_BYTES) return null;
  return Array.from({ length: width }, (_, i) => bytes.slice(i * HASH_BYTES, (i + 1) * HASH_BYTES));
}

/**
 * An entry bundle: each entry as a big-endian uint16 length and its bytes. Null when an entry is
 * longer than {@link MAX_BUNDLE_ENTRY_BYTES} (the format cannot carry it).
 */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Uint8Array | null {
  let length = 0;
  for (const entry of entries) {
    if (entry.length > MAX_BUNDLE_ENTRY_BYTES) return null;
    length += 2 + entry.length;
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const entry of entries) {
    out[at] = entry.length >> 8;
    out[at + 1] = entry.length & 0xff;
    out.set(entry, at + 2);
    at += 2 + entry.length;
  }
  return out;
}

/** The entries of a bundle of exactly `width` entries, or null for any other bytes. */
export function decodeEntryBundle(bytes: Uint8Array, width: number = TILE_WIDTH): Uint8Array[] | null {
  checkWidth(width);
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length || out.length === width) return null;
    const length = ((bytes[at] as number) << 8) | (bytes[at + 1] as number);
    if (at + 2 + length > bytes.length) return null;
    out.push(bytes.slice(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return out.length === width ? out : null;
}

/** Where tree node (`level`, `index`) lies in the tiles: the tile, and the stretch of its hashes under the node. */
export interface NodeInTile {
  readonly tileLevel: number;
  readonly tileIndex: number;
  /** The first of the tile's hashes under the node. */
  readonly start: number;
  /** How many of the tile's hashes are under it: 2^(level − 8·tileLevel). */
  readonly count: number;
}

/** The tile that holds the complete node (`level`, `index`) of the tree. */
export function nodeInTile(level: number, index: number): NodeInTile {
  checkIndex("level", level);
  checkIndex("index", index);
  const tileLevel = Math.floor(level / TILE_HEIGHT);
  const count = 2 ** (level - TILE_HEIGHT * tileLevel);
  const first = index * count;
  return { tileLevel, tileIndex: Math.floor(first / TILE_WIDTH), start: first % TILE_WIDTH, count };
}

/** The hash of the complete subtree over `count` (a power of two) consecutive tile hashes from `start`. */
export function subtreeOfTile(hashes: readonly Uint8Array[], start: number, count: number): Uint8Array {
  let level = hashes.slice(start, start + count);
  if (level.length !== count || count < 1 || (count & (count - 1)) !== 0)
    throw new RangeError("a subtree covers a power of two of the tile's hashes");
  while (level.length > 1) {
    const up: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) up.push(nodeHash(level[i] as Uint8Array, level[i + 1] as Uint8Array));
    level = up;
  }
  return level[0] as Uint8Array;
}

/**
 * With the full tiles of the first `entries` leaves archived (a multiple of 256; at level L the
 * tiles wholly below it), the tree nodes of `level` that those tiles hold: indexes below the
 * answer. A node of levels 8·L … 8·L + 7 is held by a tile of level L once that tile is full.
 */
export function archivedNodeBound(level: number, entries: number): number {
  checkIndex("level", level);
  checkIndex("entries", entries);
  const span = tileSpan(Math.floor(level / TILE_HEIGHT));
  const covered = Math.floor(entries / span) * span;
  return Math.floor(covered / 2 ** level);
}

/**
 * The hash tiles that become full with entry tile `entryTile`: the level-0 tile of the same index,
 * and each tile of a higher level whose last leaf is that tile's last leaf.
 */
export function tilesCompletedBy(entryTile: number): Array<{ level: number; index: number }> {
  checkIndex("entryTile", entryTile);
  const end = (entryTile + 1) * TILE_WIDTH;
  const out = [{ level: 0, index: entryTile }];
  for (let level = 1; tileSpan(level) <= end; level++) {
    if (end % tileSpan(level) === 0) out.push({ level, index: end / tileSpan(level) - 1 });
  }
  return out;
}
