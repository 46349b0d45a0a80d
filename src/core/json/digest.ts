import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { canonicalJson } from "./canonical";

const encoder = new TextEncoder();

/** Lowercase hex SHA-256 of a string's UTF-8 bytes (Python `hashlib.sha256(s.encode()).hexdigest()`). */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(encoder.encode(text)));
}

/** The reference's `_digest`: SHA-256 over the canonical JSON text. */
export function digestJson(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
