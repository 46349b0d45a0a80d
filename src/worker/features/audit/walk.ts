/**
 * One bounded step of the audit chain's verification walk: the links of at most `max` entries
 * after a verified position, recomputed with the core's digest (`core/audit`). The walk is
 * resumable: the step answers the position it reached, and the service turns that into a cursor.
 * @module
 */
import { entryDigest, type ChainEntry } from "../../../core/audit";
import type { VerifyPosition } from "./cursor";

/** What one step found. */
export interface WalkStep {
  /** No entry of this step (nor the anchor) failed. */
  readonly ok: boolean;
  /** The last verified position: entries `1..reached.seq`, the last with digest `reached.sha256`. */
  readonly reached: VerifyPosition;
  /** The first entry found not to match, or null. */
  readonly brokenAt: number | null;
  /** Whether entries remain after `reached` (only when `ok`). */
  readonly more: boolean;
}

/**
 * Verifies `rows` (the entries with `seq > from.seq`, oldest first, at most `max + 1` of them)
 * against the position `from`: each must carry the next sequence number, link to the previous
 * digest and hash to its own digest. Stops at the first entry that does not; only the first
 * `max` rows are verified, a row past them only says the walk is not at the head yet.
 */
export function walkStep(from: VerifyPosition, rows: readonly ChainEntry[], max: number): WalkStep {
  let reached = from;
  for (const entry of rows.slice(0, max)) {
    const seq = reached.seq + 1;
    const linked = entry.seq === seq && entry.prev_sha256 === reached.sha256;
    if (!linked || entryDigest(entry.seq, entry.kind, entry.at, entry.record, reached.sha256) !== entry.entry_sha256) {
      return { ok: false, reached, brokenAt: seq, more: false };
    }
    reached = { seq, sha256: entry.entry_sha256 };
  }
  return { ok: true, reached, brokenAt: null, more: rows.length > max };
}
