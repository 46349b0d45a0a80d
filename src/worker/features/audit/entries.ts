/**
 * Reading the chain's entries across the archive boundary: entries up to the archived count come
 * from their entry bundles in R2 (./tiles.ts), the rest (and a held tile's) from `audit_chain`.
 * Every SQLite read of one call happens in one synchronous step before any R2 read, so an archive
 * run that deletes rows meanwhile changes nothing the call answers.
 * @module
 */
import { entryLine, readEntryLine, TILE_WIDTH, type ChainEntry } from "../../../core/audit";
import type { AuditStore } from "./store";
import type { TileBucket } from "./tiles";

/** One entry as read: its export line, and the entry (null when an archived line is not an entry's canonical line). */
export interface ReadEntry {
  readonly line: string;
  readonly entry: ChainEntry | null;
}

type Part = { readonly rows: ChainEntry[] } | { readonly tile: number; readonly start: number; readonly count: number };

const decoder = new TextDecoder();

/**
 * The entries after `after`, oldest first, at most `limit`: like `AuditStore.after` (the next
 * stored entries, so a missing row shows as a jump in `seq`), with archived entries read from
 * their tiles.
 */
export async function readEntries(
  store: AuditStore,
  tiles: TileBucket | undefined,
  after: number,
  limit: number,
): Promise<ReadEntry[]> {
  const archive = store.archive();
  if (after >= archive.entries) return store.after(after, limit).map(stored);
  const held = store.heldTiles(Math.floor(after / TILE_WIDTH), archive.entries / TILE_WIDTH);
  const parts: Part[] = [];
  let position = after;
  let left = limit;
  while (left > 0 && position < archive.entries) {
    const tile = Math.floor(position / TILE_WIDTH);
    const end = (tile + 1) * TILE_WIDTH;
    if (held.has(tile)) {
      const rows = store.between(position, end, left);
      parts.push({ rows });
      left -= rows.length;
      position = end;
    } else {
      const count = Math.min(end - position, left);
      parts.push({ tile, start: position - tile * TILE_WIDTH, count });
      left -= count;
      position += count;
    }
  }
  if (left > 0) parts.push({ rows: store.after(archive.entries, left) });
  const out: ReadEntry[] = [];
  for (const part of parts) {
    if ("rows" in part) {
      out.push(...part.rows.map(stored));
      continue;
    }
    if (tiles === undefined)
      throw new Error("the audit log has archived tiles but no AUDIT_TILES binding to read them");
    const lines = await tiles.entryTile(archive.prefix, part.tile);
    for (const bytes of lines.slice(part.start, part.start + part.count))
      out.push({ line: decoder.decode(bytes), entry: readEntryLine(bytes) });
  }
  return out;
}

function stored(entry: ChainEntry): ReadEntry {
  return { line: entryLine(entry), entry };
}
