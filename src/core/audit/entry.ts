/**
 * The canonical bytes of an audit entry: its line in the export, and the Merkle leaf it is.
 * A verifier needs nothing but the export: each line, without its newline, is the entry.
 * @module
 */
import { canonicalJson, canonicalMember, PyFloat, readJson } from "../json";
import type { ChainEntry } from "./chain";
import { leafHashWith, type Sha256Bytes } from "./merkle";
import { sha256 } from "@noble/hashes/sha2.js";

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

/** The Merkle leaf hash of an entry (leaf index seq − 1): {@link leafHash} of its line's UTF-8 (`sha`: the SHA-256 to use). */
export function entryLeafHash(entry: ChainEntry, sha: Sha256Bytes = sha256): Uint8Array {
  return leafHashWith(encoder.encode(entryLine(entry)), sha);
}

/** The longest entry line {@link readEntryLine} reads (the stored JSON cap of the Worker). */
export const MAX_ENTRY_LINE_BYTES = 1 << 20;

/**
 * The entry an export line (or a tile's entry) holds, or null unless the text is exactly
 * {@link entryLine} of what it reads back to: one spelling per entry, so the fields read are the
 * bytes the leaf hash and the chain digest committed to.
 */
export function readEntryLine(line: string | Uint8Array): ChainEntry | null {
  const read = readJson(line, { maxBytes: MAX_ENTRY_LINE_BYTES, maxDepth: 40 });
  if (!read.ok) return null;
  const value = read.value;
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof PyFloat) return null;
  const { seq, kind, at, record, prev_sha256, entry_sha256 } = value;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || typeof at !== "number" || !Number.isSafeInteger(at))
    return null;
  if (
    typeof kind !== "string" ||
    typeof prev_sha256 !== "string" ||
    typeof entry_sha256 !== "string" ||
    record === undefined
  )
    return null;
  let recordText: string;
  try {
    recordText = canonicalJson(record);
  } catch {
    return null;
  }
  const entry: ChainEntry = { seq, kind, at, record: recordText, prev_sha256, entry_sha256 };
  const text = typeof line === "string" ? line : new TextDecoder().decode(line);
  return entryLine(entry) === text ? entry : null;
}
