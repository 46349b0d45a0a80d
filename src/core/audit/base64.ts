/**
 * Standard padded base64 (RFC 4648 §4), the encoding of C2SP checkpoints, signed notes and note
 * keys. Decoding is strict: only the canonical text of some bytes decodes (padding present,
 * no whitespace, zero trailing bits), so one value has one spelling in a signed text.
 * @module
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const VALUES = new Map<string, number>([...ALPHABET].map((c, i) => [c, i]));

/** Encodes bytes as standard padded base64. */
export function encodeBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const rest = bytes.length - i;
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = rest >= 3 ? 4 : rest + 1;
    for (let k = 0; k < chars; k++) out += ALPHABET[(n >> (18 - 6 * k)) & 63];
    out += "=".repeat(4 - chars);
  }
  return out;
}

/** Decodes canonical standard padded base64, or returns null for any other text. */
export function decodeBase64(text: string): Uint8Array | null {
  if (text.length % 4 !== 0) return null;
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const body = text.slice(0, text.length - pad);
  const out = new Uint8Array((text.length / 4) * 3 - pad);
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (const c of body) {
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
