/**
 * The consumer audit chain, as pure functions: the digest each entry commits to and the check
 * of a whole chain. The Worker appends and serves entries; an auditor verifies the pages of
 * `GET …/audit` offline with the same code.
 * @module
 */
import { sha256Hex } from "../json";

/** The previous-digest value of the first entry. */
export const GENESIS_SHA256 = "0".repeat(64);

/** One stored entry: `record` is the canonical JSON text the entry committed to. */
export interface ChainEntry {
  readonly seq: number;
  readonly kind: string;
  readonly at: number;
  readonly record: string;
  readonly prev_sha256: string;
  readonly entry_sha256: string;
}

/** The result of verifying a chain. */
export interface ChainVerification {
  readonly ok: boolean;
  readonly count: number;
  /** The last entry's digest (the genesis value for an empty chain). */
  readonly head: string;
}

/**
 * The digest an entry commits to: the canonical JSON of its sequence, kind, time, record and
 * the previous entry's digest, so a changed, removed or reordered entry breaks every later one.
 * `recordText` is canonical JSON already; `kind` is written as a JSON string. `hash`: the
 * SHA-256 to use (hex of the text's UTF-8; a host may pass its native one: the same digest).
 */
export function entryDigest(
  seq: number,
  kind: string,
  at: number,
  recordText: string,
  prev: string,
  hash: (text: string) => string = sha256Hex,
): string {
  return hash(
    `{"at":${at},"kind":${JSON.stringify(kind)},"prev_sha256":"${prev}","record":${recordText},"seq":${seq}}`,
  );
}

/** Recomputes every link of a chain, oldest entry first, starting at sequence 1. */
export function verifyChain(entries: Iterable<ChainEntry>): ChainVerification {
  let prev = GENESIS_SHA256;
  let expectedSeq = 1;
  let ok = true;
  let count = 0;
  for (const entry of entries) {
    if (
      entry.seq !== expectedSeq ||
      entry.prev_sha256 !== prev ||
      entryDigest(entry.seq, entry.kind, entry.at, entry.record, prev) !== entry.entry_sha256
    ) {
      ok = false;
    }
    prev = entry.entry_sha256;
    expectedSeq = entry.seq + 1;
    count++;
  }
  return { ok, count, head: prev };
}
