/**
 * Unpadded URL-safe base64 (RFC 4648 §5) for conversation-surface segments.
 *
 * Only canonical text decodes: no padding, no stray characters, and zero trailing bits, so that
 * decoding and re-encoding give back the same text, as the surface parser demands.
 * @module
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const VALUES = new Map<string, number>([...ALPHABET].map((c, i) => [c, i]));

/** Encodes bytes as unpadded URL-safe base64. */
export function encodeBase64Url(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] ?? 0;
    const b = bytes[i + 1] ?? 0;
    const c = bytes[i + 2] ?? 0;
    const n = (a << 16) | (b << 8) | c;
    const chars = i + 2 < bytes.length ? 4 : i + 1 < bytes.length ? 3 : 2;
    for (let k = 0; k < chars; k++) out += ALPHABET[(n >> (18 - 6 * k)) & 63];
  }
  return out;
}

/** Decodes canonical unpadded URL-safe base64, or returns null for any other text. */
export function decodeBase64Url(text: string): Uint8Array | null {
  if (text.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let buffer = 0;
  let o = 0;
  for (const c of text) {
    const v = VALUES.get(c);
    if (v === undefined) return null;
    buffer = ((buffer << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  // Non-zero leftover bits would re-encode differently: not canonical.
  if ((buffer & ((1 << bits) - 1)) !== 0) return null;
  return out;
}
