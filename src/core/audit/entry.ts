/**
 * The canonical bytes of an audit entry: its line in the export, and the Merkle leaf it is.
 * A verifier needs nothing but the export: each line, without its newline, is the entry.
 * @module
 */
import { canonicalMember } from "../json";
import type { ChainEntry } from "./chain";
import { leafHash } from "./merkle";

const encoder = new TextEncoder();

/**
 * The canonical JSON of an entry, one line without the newline: keys in code-point order, the
 * record as its stored canonical JSON text (not re-encoded, so the line carries the exact bytes
 * the chain digest committed to).
 */
export function entryLine(entry: ChainEntry): string {
  return (
    `{"at":${canonicalMember(entry.at, 1)},"entry_sha256":${canonicalMember(entry.entry_sha256, 1)},` +
    `"kind":${canonicalMember(entry.kind, 1)},"prev_sha256":${canonicalMember(entry.prev_sha256, 1)},` +
    `"record":${entry.record},"seq":${canonicalMember(entry.seq, 1)}}`
  );
}

/** The Merkle leaf hash of an entry (leaf index seq − 1): {@link leafHash} of its line's UTF-8. */
export function entryLeafHash(entry: ChainEntry): Uint8Array {
  return leafHash(encoder.encode(entryLine(entry)));
}
