/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, "Signature scheme"): the key is
 * the bytes of the secret after `whsec_` (base64), the signature `v1,` + base64 of
 * HMAC-SHA256(key, `${webhook-id}.${webhook-timestamp}.${body}`).
 * @module
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { decodeBase64, encodeBase64 } from "../../../core/audit/base64";

/** The prefix of a Standard Webhooks secret. */
export const SECRET_PREFIX = "whsec_";
/** Random bytes of a new secret (192 bits, as the spec's reference libraries make them). */
export const SECRET_BYTES = 24;

/** A new signing secret: `whsec_` + base64 of {@link SECRET_BYTES} random bytes. */
export function newSecret(): string {
  return SECRET_PREFIX + encodeBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/** The HMAC key of a secret this service made; anything else is a bug. */
function keyOf(secret: string): Uint8Array {
  const key = secret.startsWith(SECRET_PREFIX) ? decodeBase64(secret.slice(SECRET_PREFIX.length)) : null;
  if (key === null) throw new Error("a webhook secret is not whsec_ base64");
  return key;
}

/** The three headers of one attempt (`timestamp`: the attempt's Unix seconds). */
export function signedHeaders(
  secret: string,
  messageId: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  const mac = hmac(sha256, keyOf(secret), utf8ToBytes(`${messageId}.${timestamp}.${body}`));
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": `v1,${encodeBase64(mac)}`,
  };
}
