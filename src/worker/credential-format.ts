/**
 * The credential format: `tg_<kind>_<random>_<check>`.
 *
 * - `kind` says which routes the credential may call;
 * - `random` is 40 base62 characters from the platform CSPRNG, independent of the consumer;
 *   its first 16 characters are the public, log-safe credential id;
 * - `check` is the CRC-32 of everything before it in 6 base62 characters, so a typo or a
 *   forgery is refused in the Worker before any Durable Object wakes (GitHub token style).
 */

import { CREDENTIAL_KINDS, type CredentialKind } from "../contracts/access";

export { CREDENTIAL_KINDS, type CredentialKind };


const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_CHARS = 40;
const ID_CHARS = 16;
const CHECK_CHARS = 6;
const SHAPE = /^tg_(agent|approver|provider|runtime|auditor)_([0-9A-Za-z]{40})_([0-9A-Za-z]{6})$/;

let crcTable: Uint32Array | undefined;

function crc32(text: string): number {
  if (crcTable === undefined) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    crc = (crcTable[(crc ^ text.charCodeAt(i)) & 0xff] ?? 0) ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function checksum(body: string): string {
  let n = crc32(body);
  let out = "";
  for (let i = 0; i < CHECK_CHARS; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function randomBase62(length: number): string {
  let out = "";
  const bytes = new Uint8Array(length * 2);
  while (out.length < length) {
    crypto.getRandomValues(bytes);
    for (const b of bytes) {
      if (b < 248 && out.length < length) out += ALPHABET[b % 62];
    }
  }
  return out;
}

/** A well-formed credential, split into its parts. */
export interface ParsedCredential {
  kind: CredentialKind;
  credentialId: string;
  token: string;
}

/** Mints a fresh credential of a kind. The token is shown once; only its SHA-256 is stored. */
export function mintCredential(kind: CredentialKind): ParsedCredential {
  const random = randomBase62(RANDOM_CHARS);
  const body = `tg_${kind}_${random}`;
  return { kind, credentialId: `cred_${random.slice(0, ID_CHARS)}`, token: `${body}_${checksum(body)}` };
}

/** Parses a token's shape and checksum; `null` for anything malformed. Does no I/O. */
export function parseCredential(token: string): ParsedCredential | null {
  const m = SHAPE.exec(token);
  if (m === null) return null;
  const kind = m[1] as CredentialKind;
  const random = m[2] as string;
  if (checksum(`tg_${kind}_${random}`) !== m[3]) return null;
  return { kind, credentialId: `cred_${random.slice(0, ID_CHARS)}`, token };
}

/**
 * Extracts the bearer token of an `Authorization` header, or `null`. The scheme is
 * case-insensitive and followed by one or more spaces (RFC 9110 §11.4); the token is 1–512
 * visible ASCII characters. A repeated header (joined with `, `) has no valid token.
 */
export function bearerToken(header: string | null): string | null {
  if (header === null) return null;
  const m = /^bearer +([!-~]{1,512})$/i.exec(header);
  return m === null ? null : (m[1] as string);
}
