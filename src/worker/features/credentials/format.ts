/**
 * The credential format: `tg_<kind>_<random>_<tag>`.
 *
 * - `kind` says which routes the credential may call;
 * - `random` is 40 base62 characters from the platform CSPRNG; its first 16 characters are the
 *   public, log-safe credential id;
 * - `tag` is the first 16 bytes (32 hex digits) of HMAC-SHA-256 under the Worker secret
 *   `TOOLGATE_TOKEN_KEY` over the consumer's name and everything before the tag. Without the key
 *   nobody can make a well-formed token, and a token is well-formed for one consumer only, so
 *   a forgery, a typo or another consumer's token is refused in the Worker before any Durable
 *   Object is touched. During a rotation tags under `TOOLGATE_TOKEN_KEY_PREVIOUS` are accepted
 *   too (new tokens are always tagged with the current key).
 */

import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { CREDENTIAL_KINDS, type CredentialKind } from "../../../contracts/access";
import { LruMap } from "../../lru";
import { textsEqual } from "../../http/timing-safe";

export { CREDENTIAL_KINDS, type CredentialKind };

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_CHARS = 40;
const ID_CHARS = 16;
const TAG_BYTES = 16;
const SHAPE = /^tg_(agent|approver|provider|runtime|auditor)_([0-9A-Za-z]{40})_([0-9a-f]{32})$/;

/** Shortest tag key accepted: a shorter (or unset) key admits no credential. */
export const MIN_TOKEN_KEY_CHARS = 32;

/** The tag keys a Worker accepts, current first; empty when the current key is unset or short. */
export interface TokenKeys {
  readonly current: string | null;
  readonly previous: string | null;
}

/** Reads the tag keys from the Worker's secrets. */
export function tokenKeys(env: { TOOLGATE_TOKEN_KEY?: string; TOOLGATE_TOKEN_KEY_PREVIOUS?: string }): TokenKeys {
  const usable = (key: string | undefined) => (key !== undefined && key.length >= MIN_TOKEN_KEY_CHARS ? key : null);
  const current = usable(env.TOOLGATE_TOKEN_KEY);
  return { current, previous: current === null ? null : usable(env.TOOLGATE_TOKEN_KEY_PREVIOUS) };
}

/** HMAC-SHA-256 states with a key's pads already hashed, per key (an isolate has one or two keys). */
const keyed = new LruMap<string, ReturnType<typeof hmac.create>>(4);

function tagBytes(key: string, consumer: string, body: string): Uint8Array {
  let base = keyed.get(key);
  if (base === undefined) {
    base = hmac.create(sha256, utf8ToBytes(key));
    keyed.set(key, base);
  }
  return base
    .clone()
    .update(utf8ToBytes(`toolgate credential v1\n${consumer}\n${body}`))
    .digest()
    .subarray(0, TAG_BYTES);
}

function tag(key: string, consumer: string, body: string): string {
  return bytesToHex(tagBytes(key, consumer, body));
}

/** Whether `presented` (TAG_BYTES bytes) is the tag under `key`: constant-time in the tag's bytes. */
function tagMatches(presented: Uint8Array, key: string, consumer: string, body: string): boolean {
  return crypto.subtle.timingSafeEqual(presented, tagBytes(key, consumer, body));
}

function randomBase62(length: number): string {
  let out = "";
  const bytes = new Uint8Array(length * 2);
  while (out.length < length) {
    crypto.getRandomValues(bytes);
    for (const b of bytes) {
      if (b < 248 && out.length < length) out += ALPHABET[b % 62] ?? "";
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

/**
 * Mints a fresh credential of a kind for a consumer, tagged with the current key. The token is
 * shown once; only its SHA-256 is stored. Throws when no key is configured (a deployment bug
 * the admin sees as a 500, never a token nobody can use).
 */
export function mintCredential(kind: CredentialKind, consumer: string, keys: TokenKeys): ParsedCredential {
  if (keys.current === null)
    throw new Error(`TOOLGATE_TOKEN_KEY is unset or shorter than ${MIN_TOKEN_KEY_CHARS} characters`);
  const random = randomBase62(RANDOM_CHARS);
  const body = `tg_${kind}_${random}`;
  return {
    kind,
    credentialId: `cred_${random.slice(0, ID_CHARS)}`,
    token: `${body}_${tag(keys.current, consumer, body)}`,
  };
}

/**
 * A token's parts by its shape alone (kind, id), or `null`. The consumer's object uses this:
 * the Worker checked the tag before forwarding, and the object compares the whole token's
 * SHA-256 with the stored one, so computing the tag again would add nothing.
 */
export function credentialShape(token: string): ParsedCredential | null {
  const m = SHAPE.exec(token);
  if (m === null) return null;
  const random = m[2] as string;
  return { kind: m[1] as CredentialKind, credentialId: `cred_${random.slice(0, ID_CHARS)}`, token };
}

/** Tokens whose tag held, per isolate: at most this many (consumer, credential id) pairs. */
export const TAGGED_TOKENS_CACHED = 1024;

/**
 * The last token whose tag held for a consumer and credential id, with the keys that checked it:
 * the same token again is compared in constant time instead of running HMAC-SHA-256 twice.
 */
const tagged = new LruMap<string, { token: string; current: string; previous: string | null }>(TAGGED_TOKENS_CACHED);

/** Tokens whose tag held, held by this isolate (bounded by {@link TAGGED_TOKENS_CACHED}). */
export function taggedTokensHeld(): number {
  return tagged.size;
}

/**
 * Parses a token's shape and checks its tag for this consumer under the current or the
 * previous key; `null` for anything else. Does no I/O; constant-time in the tag (and, for a
 * token whose tag held before under the same keys, in the whole token).
 */
export function parseCredential(token: string, consumer: string, keys: TokenKeys): ParsedCredential | null {
  const m = SHAPE.exec(token);
  if (m === null || keys.current === null) return null;
  const kind = m[1] as CredentialKind;
  const random = m[2] as string;
  const credentialId = `cred_${random.slice(0, ID_CHARS)}`;
  const slot = `${consumer}\n${credentialId}`;
  const seen = tagged.get(slot);
  if (
    seen !== undefined &&
    seen.current === keys.current &&
    seen.previous === keys.previous &&
    textsEqual(seen.token, token)
  )
    return { kind, credentialId, token };
  const body = `tg_${kind}_${random}`;
  const presented = hexToBytes(m[3] as string);
  const current = tagMatches(presented, keys.current, consumer, body);
  const previous = keys.previous !== null && tagMatches(presented, keys.previous, consumer, body);
  if (!current && !previous) return null;
  tagged.set(slot, { token, current: keys.current, previous: keys.previous });
  return { kind, credentialId, token };
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
