import { sha256 } from "@noble/hashes/sha2.js";

const encoder = new TextEncoder();

/** SHA-256 of a string's UTF-8 bytes. */
export function sha256Bytes(text: string): Uint8Array {
  return sha256(encoder.encode(text));
}

/**
 * Constant-time equality of two 32-byte digests (`crypto.subtle.timingSafeEqual`; it throws on
 * a length mismatch, so callers hash both sides first).
 */
export function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== 32 || b.byteLength !== 32) return false;
  return crypto.subtle.timingSafeEqual(a, b);
}

/** Constant-time comparison of two secrets or hex digests: SHA-256 of both sides, then compare. */
export function secretsEqual(presented: string, expected: string): boolean {
  return digestsEqual(sha256Bytes(presented), sha256Bytes(expected));
}

/**
 * Constant-time equality of two texts of the same public length (a token against the one held
 * for its credential id): every code unit is compared, whatever differs first. Texts of
 * different lengths are unequal at once (a credential's format fixes its length).
 */
export function textsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let differ = 0;
  for (let i = 0; i < a.length; i++) differ |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return differ === 0;
}
