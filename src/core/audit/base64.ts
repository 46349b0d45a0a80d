/**
 * Standard padded base64 (RFC 4648 §4), the encoding of C2SP checkpoints, signed notes and note
 * keys. Decoding is strict: only the canonical text of some bytes decodes (padding present,
 * no whitespace, zero trailing bits), so one value has one spelling in a signed text.
 * @module
 */

import { decodeWith, encodeWith, valuesOf } from "../wire/base64url";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const VALUES = valuesOf(ALPHABET);

/** Encodes bytes as standard padded base64. */
export function encodeBase64(bytes: Uint8Array): string {
  return encodeWith(ALPHABET, bytes, true);
}

/** Decodes canonical standard padded base64, or returns null for any other text. */
export function decodeBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0) return null;
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return decodeWith(VALUES, text.slice(0, text.length - pad));
}
