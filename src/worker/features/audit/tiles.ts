/**
 * The audit log's archived tiles in R2 (binding `AUDIT_TILES`, docs/audit.md): C2SP
 * `tlog-tiles` hash tiles and entry bundles under `consumers/<consumer>/`, written and read back
 * by the archive (./archive.ts), read by pages, the export and proofs once the rows they replace
 * are deleted. A tile that should exist and does not, or does not decode, is a storage fault:
 * it throws (the request answers 500; nothing is guessed).
 * @module
 */
import {
  archivedNodeBound,
  decodeEntryBundle,
  decodeHashTile,
  entryTilePath,
  hashTilePath,
  nodeInTile,
  sameBytes,
  subtreeOfTile,
  type NodeInTile,
  type NodeReader,
} from "../../../core/audit";
import type { AuditStore } from "./store";

/** Hash tiles kept in memory (8 KiB each): the upper tree's tiles serve every proof. */
export const HASH_TILE_CACHE = 16;

const CONTENT_TYPE = "application/octet-stream";

/** One consumer object's view of the tiles bucket (tiles are immutable once written). */
export class TileBucket {
  readonly #hashTiles = new Map<string, Uint8Array[]>();

  constructor(private readonly bucket: R2Bucket) {}

  /** Writes one tile and reads it back; throws unless the object reads back byte for byte. */
  async putVerified(key: string, bytes: Uint8Array): Promise<void> {
    this.#hashTiles.delete(key);
    await this.bucket.put(key, bytes, { httpMetadata: { contentType: CONTENT_TYPE } });
    const back = await this.#bytes(key);
    if (back === null || !sameBytes(back, bytes)) throw new Error(`audit tile ${key} did not read back as written`);
  }

  async #bytes(key: string): Promise<Uint8Array | null> {
    const object = await this.bucket.get(key);
    return object === null ? null : new Uint8Array(await object.arrayBuffer());
  }

  /** The 256 hashes of the full hash tile (`level`, `index`) under `prefix`. */
  async hashTile(prefix: string, level: number, index: number): Promise<Uint8Array[]> {
    const key = prefix + hashTilePath(level, index);
    const cached = this.#hashTiles.get(key);
    if (cached !== undefined) {
      this.#hashTiles.delete(key);
      this.#hashTiles.set(key, cached);
      return cached;
    }
    const bytes = await this.#bytes(key);
    const hashes = bytes === null ? null : decodeHashTile(bytes);
    if (hashes === null) throw new Error(`audit tile ${key} is missing or not a full hash tile`);
    this.#hashTiles.set(key, hashes);
    for (const oldest of this.#hashTiles.keys()) {
      if (this.#hashTiles.size <= HASH_TILE_CACHE) break;
      this.#hashTiles.delete(oldest);
    }
    return hashes;
  }

  /** The 256 entries (export lines' bytes) of the full entry bundle `index` under `prefix`. */
  async entryTile(prefix: string, index: number): Promise<Uint8Array[]> {
    const key = prefix + entryTilePath(index);
    const bytes = await this.#bytes(key);
    const entries = bytes === null ? null : decodeEntryBundle(bytes);
    if (entries === null) throw new Error(`audit tile ${key} is missing or not a full entry bundle`);
    return entries;
  }
}

/**
 * Runs `compute` (a root or proof of the core's Merkle code) over the tree whose archived nodes
 * are in hash tiles. Which nodes such a computation reads depends only on the sizes, never on
 * the hashes, so a first run reads the stored nodes (all in one synchronous step, so an archive
 * run cannot delete them halfway) and notes the archived ones; their tiles are fetched, and a
 * second run reads only what the first one collected. Without archived nodes the first run's
 * answer is the answer.
 */
export async function overTree<T>(
  store: AuditStore,
  tiles: TileBucket | undefined,
  compute: (reader: NodeReader) => T,
): Promise<T> {
  const archive = store.archive();
  const known = new Map<string, Uint8Array>();
  const wanted = new Map<string, NodeInTile>();
  const placeholder = new Uint8Array(32);
  const first = compute({
    node(level: number, index: number): Uint8Array {
      const key = `${level}/${index}`;
      if (index >= archivedNodeBound(level, archive.entries)) {
        const hash = store.node(level, index);
        known.set(key, hash);
        return hash;
      }
      wanted.set(key, nodeInTile(level, index));
      return placeholder;
    },
  });
  if (wanted.size === 0) return first;
  if (tiles === undefined) throw new Error("the audit log has archived tiles but no AUDIT_TILES binding to read them");
  for (const [key, at] of wanted)
    known.set(key, subtreeOfTile(await tiles.hashTile(archive.prefix, at.tileLevel, at.tileIndex), at.start, at.count));
  return compute({
    node(level: number, index: number): Uint8Array {
      const hash = known.get(`${level}/${index}`);
      if (hash === undefined) throw new Error(`audit tree node (${level}, ${index}) was not read in the first pass`);
      return hash;
    },
  });
}
