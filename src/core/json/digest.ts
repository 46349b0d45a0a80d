import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { canonicalJson } from "./canonical";

const encoder = new TextEncoder();
// Digested texts are small (a few KiB); encoding them into one reused buffer saves an allocation
// per digest. Hashing is synchronous, so the buffer is never shared by two digests at once.
const SCRATCH_LIMIT = 256 * 1024;
let scratch = new Uint8Array(8 * 1024);

/** Lowercase hex SHA-256 of a string's UTF-8 bytes (Python `hashlib.sha256(s.encode()).hexdigest()`). */
export function sha256Hex(text: string): string {
  const worst = text.length * 3;
  if (worst > SCRATCH_LIMIT) return bytesToHex(sha256(encoder.encode(text)));
  if (worst > scratch.length) scratch = new Uint8Array(worst);
  const { written } = encoder.encodeInto(text, scratch);
  return bytesToHex(sha256(scratch.subarray(0, written)));
}

/** The reference's `_digest`: SHA-256 over the canonical JSON text. */
export function digestJson(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
