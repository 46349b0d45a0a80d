/**
 * Unpadded URL-safe base64 (RFC 4648 §5) for conversation-surface segments.
 *
 * Only canonical text decodes: no padding, no stray characters, and zero trailing bits, so that
 * decoding and re-encoding give back the same text, as the surface parser demands.
 * @module
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const VALUES = valuesOf(ALPHABET);

/** Each character of a base64 alphabet and its 6-bit value. */
export function valuesOf(alphabet: string): ReadonlyMap<string, number> {
  return new Map<string, number>([...alphabet].map((c, i) => [c, i]));
}

/** Encodes bytes in a base64 alphabet, padded with `=` to a multiple of 4 or not at all. */
export function encodeWith(alphabet: string, bytes: Uint8Array, pad: boolean): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, bytes.length - i + 1);
    for (let k = 0; k < chars; k++) out += alphabet[(n >> (18 - 6 * k)) & 63] ?? "";
    if (pad) out += "=".repeat(4 - chars);
  }
  return out;
}

/**
 * Decodes unpadded base64 text in an alphabet (`values`), or returns null for a character
 * outside it or non-zero trailing bits (which would re-encode differently: not canonical).
 */
export function decodeWith(values: ReadonlyMap<string, number>, text: string): Uint8Array | null {
  if (text.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let buffer = 0;
  let o = 0;
  for (const c of text) {
    const v = values.get(c);
    if (v === undefined) return null;
    buffer = ((buffer << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  if ((buffer & ((1 << bits) - 1)) !== 0) return null;
  return out;
}

/** Encodes bytes as unpadded URL-safe base64. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return encodeWith(ALPHABET, bytes, false);
}

/** Decodes canonical unpadded URL-safe base64, or returns null for any other text. */
export function decodeBase64Url(text: string): Uint8Array | null {
  return decodeWith(VALUES, text);
}
