/**
 * The audit archive (docs/audit.md, "The archive"): once a signed checkpoint is in the witness
 * bucket, the full C2SP `tlog-tiles` tiles of the entries it covers are written to `AUDIT_TILES`
 * and those entries' rows (and the tree rows the hash tiles hold) are deleted from SQLite. Runs
 * from the object's alarm, a few tiles per run, one tile at a time: read and check the rows,
 * write the tiles and read them back, then delete the rows in one transaction that also moves the
 * archive's mark (and drops the checkpoints older than the witnessed one: the witness holds them). A crash anywhere before that transaction leaves the rows, and the next run
 * writes the same tiles again (same bytes); a run that finds the mark moved does nothing.
 * @module
 */
import {
  archivedNodeBound,
  encodeEntryBundle,
  encodeHashTile,
  entryDigest,
  entryLine,
  entryTilePath,
  GENESIS_SHA256,
  hashTilePath,
  leafHashWith,
  sameBytes,
  TILE_HEIGHT,
  TILE_WIDTH,
  tilesCompletedBy,
} from "../../../core/audit";
import { fastSha256, fastSha256Hex } from "../../sha256";
import { witness, witnessKey, type AuditLogDeps } from "./log";
import type { AuditStore } from "./store";
import type { TileBucket } from "./tiles";

/** Entry tiles (256 entries each) one alarm run archives at most; more left asks for the alarm again. */
export const ARCHIVE_TILES_PER_RUN = 4;
/** The newest entries that always stay in SQLite (`TOOLGATE_AUDIT_KEEP_ENTRIES` overrides it). */
export const AUDIT_KEEP_ENTRIES = 4096;

const encoder = new TextEncoder();

/** The number of newest entries kept in SQLite: the var when it is a decimal integer, else the default. */
export function keepEntries(value: string | undefined): number {
  return value !== undefined && /^(0|[1-9][0-9]{0,8})$/.test(value) ? Number(value) : AUDIT_KEEP_ENTRIES;
}

/**
 * Where the archive may reach: the entries of full tiles at most `witnessed` (a witnessed
 * checkpoint's size; default the latest checkpoint's) and at most the tree's size less `keep`;
 * null when not one more tile fits.
 */
export function archiveLimit(store: AuditStore, treeSize: number, keep: number, witnessed?: number): number | null {
  const covered = witnessed ?? store.latestCheckpoint()?.size ?? 0;
  const limit = Math.floor(Math.min(covered, treeSize - keep) / TILE_WIDTH) * TILE_WIDTH;
  return limit >= store.archive().entries + TILE_WIDTH ? limit : null;
}

/** The latest checkpoint's size when it is in the witness bucket byte for byte (written now if missing), else null. */
async function witnessedLatest(deps: AuditLogDeps, bucket: R2Bucket): Promise<number | null> {
  const latest = deps.chain.store.latestCheckpoint();
  if (latest === undefined) return null;
  await witness(deps, latest);
  const object = await bucket.get(witnessKey(deps.consumer, latest.size));
  return object !== null && (await object.text()) === latest.note ? latest.size : null;
}

/** The tiles of one entry tile, checked against the chain and the tree: what to write, and what moves. */
interface TilePlan {
  readonly objects: Array<{ path: string; bytes: Uint8Array }>;
  readonly held: boolean;
  readonly lastSha256: string;
}

/**
 * Reads entry tile `tile`'s rows and the hash tiles it completes, and checks every entry (its
 * sequence, its link, its digest, its leaf against the stored leaf hash): only an intact stretch
 * of the chain is archived. Answers the reason when something does not hold.
 */
function planTile(store: AuditStore, tile: number): TilePlan | string {
  const first = tile * TILE_WIDTH;
  const rows = store.between(first, first + TILE_WIDTH, TILE_WIDTH);
  const leaves = store.nodes(0, first, first + TILE_WIDTH);
  if (rows.length !== TILE_WIDTH || leaves.length !== TILE_WIDTH)
    return "the tile's entries or leaf hashes are not all stored";
  let prev = tile === 0 ? GENESIS_SHA256 : store.archive().lastSha256;
  const lines: Uint8Array[] = [];
  for (const [i, row] of rows.entries()) {
    const line = encoder.encode(entryLine(row));
    // The runtime's digest for the long inputs (an entry is about 1 KB): the same bytes either way.
    const leaf = leafHashWith(line, fastSha256);
    const stored = leaves[i]?.hash ?? new Uint8Array(0);
    if (
      row.seq !== first + i + 1 ||
      row.prev_sha256 !== prev ||
      entryDigest(row.seq, row.kind, row.at, row.record, prev, fastSha256Hex) !== row.entry_sha256
    ) {
      return `entry ${first + i + 1} does not verify`;
    }
    if (!sameBytes(leaf, stored)) return `entry ${row.seq} does not match its leaf hash`;
    prev = row.entry_sha256;
    lines.push(line);
  }
  const objects: TilePlan["objects"] = [];
  for (const { level, index } of tilesCompletedBy(tile)) {
    const hashes =
      level === 0 ? leaves : store.nodes(level * TILE_HEIGHT, index * TILE_WIDTH, (index + 1) * TILE_WIDTH);
    if (hashes.length !== TILE_WIDTH) return `the hash tile (${level}, ${index}) is not all stored`;
    objects.push({ path: hashTilePath(level, index), bytes: encodeHashTile(hashes.map((node) => node.hash)) });
  }
  const bundle = encodeEntryBundle(lines);
  if (bundle !== null) objects.unshift({ path: entryTilePath(tile), bytes: bundle });
  return { objects, held: bundle === null, lastSha256: prev };
}

/** Archives entry tile `tile`; answers whether it did (false: the chain does not verify there, or another run moved the mark). */
async function archiveTile(
  deps: AuditLogDeps,
  tiles: TileBucket,
  prefix: string,
  tile: number,
  witnessed: number,
): Promise<boolean> {
  const store = deps.chain.store;
  const plan = deps.transaction(() => planTile(store, tile));
  if (typeof plan === "string") {
    console.error(`toolgate: audit archive stopped at entry tile ${tile}: ${plan}`);
    return false;
  }
  for (const object of plan.objects) await tiles.putVerified(prefix + object.path, object.bytes);
  return deps.transaction(() => {
    if (store.archive().entries !== tile * TILE_WIDTH) return false;
    const entries = (tile + 1) * TILE_WIDTH;
    const bounds: Array<{ from: number; to: number }> = [];
    for (let level = 0; 2 ** level <= entries; level++)
      bounds.push({ from: archivedNodeBound(level, tile * TILE_WIDTH), to: archivedNodeBound(level, entries) });
    store.archived(tile, plan.held, bounds, witnessed, { prefix, entries, lastSha256: plan.lastSha256 });
    return true;
  });
}

/**
 * One archive run (the alarm): up to `maxTiles` entry tiles below the latest checkpoint, once that
 * checkpoint is in the witness bucket. Needs both buckets (`AUDIT_TILES`, `AUDIT_WITNESS`).
 * Answers whether tiles remain that this run left (the caller asks for the alarm again).
 */
export async function archiveRun(
  deps: AuditLogDeps,
  keep: number,
  maxTiles: number = ARCHIVE_TILES_PER_RUN,
): Promise<boolean> {
  const tiles = deps.chain.tiles;
  if (tiles === undefined || deps.witness === undefined) return false;
  const store = deps.chain.store;
  if (deps.transaction(() => archiveLimit(store, deps.chain.tree.size(), keep)) === null) return false;
  const witnessed = await witnessedLatest(deps, deps.witness);
  if (witnessed === null) return false;
  const limit = () => deps.transaction(() => archiveLimit(store, deps.chain.tree.size(), keep, witnessed));
  for (let done = 0; done < maxTiles; done++) {
    if (limit() === null) return false;
    const archive = deps.transaction(() => store.archive());
    const prefix = archive.entries > 0 ? archive.prefix : `consumers/${deps.consumer}/`;
    if (!(await archiveTile(deps, tiles, prefix, archive.entries / TILE_WIDTH, witnessed))) return false;
  }
  return limit() !== null;
}
