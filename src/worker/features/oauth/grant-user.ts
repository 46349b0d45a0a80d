/**
 * A grant's user id, which the OAuth library puts at the head of every code and token
 * (`<user id>:<grant id>:<secret>`) and of its storage keys: opaque, so a token shows neither
 * its consumer nor its subject, yet the Worker can still route it to its consumer.
 *
 * `<sealed consumer>.<subject digest>`, both base64url:
 * - the sealed consumer is the consumer's name under AES-256-GCM with a synthetic IV (the first
 *   12 bytes of HMAC-SHA-256 over the name), so the same consumer always seals the same way and
 *   only the Worker opens it;
 * - the subject digest is 18 bytes of HMAC-SHA-256 over the consumer and the subject, so one
 *   subject's grants share a user id (the library replaces a subject's earlier grant to the same
 *   client by it) while the id stays 24 characters however long the subject.
 *
 * Every key derives from `TOOLGATE_TOKEN_KEY`; ids sealed under `TOOLGATE_TOKEN_KEY_PREVIOUS`
 * still open during a rotation.
 * @module
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { ConsumerName } from "../../../contracts/consumer";
import { tokenKeys } from "../credentials/format";
import type { Env } from "../../env";
import { LruMap } from "../../lru";

const IV_BYTES = 12;
const DIGEST_BYTES = 18;
const USER_ID = /^([A-Za-z0-9_-]{30,200})\.([A-Za-z0-9_-]{24})$/;

interface UserKeys {
  readonly siv: Uint8Array;
  readonly subject: Uint8Array;
  readonly seal: CryptoKey;
}

/** Derived keys per token key (an isolate has one or two). */
const derived = new LruMap<string, Promise<UserKeys>>(4);

function derive(tokenKey: string, label: string): Uint8Array {
  return hmac(sha256, utf8ToBytes(tokenKey), utf8ToBytes(`toolgate oauth user v1 ${label}`));
}

function keysOf(tokenKey: string): Promise<UserKeys> {
  let keys = derived.get(tokenKey);
  if (keys === undefined) {
    const seal = crypto.subtle.importKey("raw", derive(tokenKey, "seal"), "AES-GCM", false, ["encrypt", "decrypt"]);
    keys = seal.then((key) => ({ siv: derive(tokenKey, "siv"), subject: derive(tokenKey, "subject"), seal: key }));
    derived.set(tokenKey, keys);
  }
  return keys;
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array | null {
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * The user id of a grant for `subject` of `consumer`, or `null` when the Worker has no usable
 * token key (then no credential signs in either).
 */
export async function grantUserId(consumer: string, subject: string, env: Env): Promise<string | null> {
  const key = tokenKeys(env).current;
  if (key === null) return null;
  const keys = await keysOf(key);
  const name = utf8ToBytes(consumer);
  const iv = hmac(sha256, keys.siv, name).subarray(0, IV_BYTES);
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, keys.seal, name));
  const digest = hmac(sha256, keys.subject, utf8ToBytes(`${consumer}\n${subject}`)).subarray(0, DIGEST_BYTES);
  return `${base64url(new Uint8Array([...iv, ...sealed]))}.${base64url(digest)}`;
}

/**
 * The consumer whose grant a code, refresh or access token belongs to (its user id opened), or
 * `null`. Only routes the token to the consumer's resource: the library still checks the token
 * itself, and its grant's audience.
 */
export async function consumerOfToken(token: string, env: Env): Promise<string | null> {
  const parts = token.split(":");
  const shape = parts.length === 3 ? USER_ID.exec(parts[0] ?? "") : null;
  const sealed = shape === null ? null : fromBase64url(shape[1] ?? "");
  if (sealed === null || sealed.length <= IV_BYTES) return null;
  const { current, previous } = tokenKeys(env);
  for (const key of [current, previous]) {
    if (key === null) continue;
    const keys = await keysOf(key);
    let name: string;
    try {
      const opened = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: sealed.subarray(0, IV_BYTES) },
        keys.seal,
        sealed.subarray(IV_BYTES),
      );
      name = new TextDecoder().decode(opened);
    } catch {
      continue;
    }
    return ConsumerName.safeParse(name).success ? name : null;
  }
  return null;
}
