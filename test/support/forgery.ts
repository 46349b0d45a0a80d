/**
 * A downstream turned forger: from what the gate gives it (the consumer's published JWK Set) it
 * signs a statement of its choosing with every key it can make of that material, in the
 * scheme's exact form (RFC 9421 base, the gate's parameters), and sends it to another
 * downstream. The same code signing with the gate's own private key (which only the gate can
 * derive, from its secret) is the control: a request it makes verifies, so each refusal of a
 * forgery is the key's, not the form's. Pure JS (noble, node:crypto's HMAC): runs in Node and workerd.
 */
import { Buffer } from "node:buffer";
import { createHash, createHmac } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { hkdf } from "@noble/hashes/hkdf.js";
import { sha256 } from "@noble/hashes/sha2.js";

/** What a forged request carries (the statement's JSON members). */
export interface Statement {
  consumer: string;
  subject_id: string;
  roles: string[];
  tool: string;
  call_id: string;
  operation_id: string;
  status_ref?: string;
}

/** A key a signer uses: its `alg` and `keyid` as sent, and how it signs the signature base. */
export interface ForgingKey {
  name: string;
  alg: string;
  keyid: string;
  sign(base: Uint8Array): Uint8Array;
}

const utf8 = (text: string) => new TextEncoder().encode(text);

/** The gate's private key for a consumer (docs/http-tools.md's derivation), as the control signer. */
export function gateKey(secret: string, consumer: string, keyid: string): ForgingKey {
  const seed = hkdf(sha256, utf8(secret), utf8("toolgate downstream ed25519 v1"), utf8(consumer), 32);
  return { name: "the gate's private key (control)", alg: "ed25519", keyid, sign: (base) => ed25519.sign(base, seed) };
}

/** Every key a downstream can make of the JWK Set it was given: each 32-byte value in it as an Ed25519 seed, each value as an HMAC key. */
export function keysFrom(jwksText: string): ForgingKey[] {
  const { keys } = JSON.parse(jwksText) as { keys: Array<{ x: string; kid: string }> };
  return keys.flatMap(({ x, kid }) => {
    const material: Array<[string, Uint8Array]> = [
      ["x", new Uint8Array(Buffer.from(x, "base64url"))],
      ["kid", new Uint8Array(Buffer.from(kid, "base64url"))],
      ["sha-256 of the JWK Set", new Uint8Array(createHash("sha256").update(jwksText).digest())],
    ];
    return material.flatMap(([what, bytes]): ForgingKey[] => [
      { name: `ed25519, seed = ${what}`, alg: "ed25519", keyid: kid, sign: (base) => ed25519.sign(base, bytes) },
      {
        name: `hmac-sha256, key = ${what}`,
        alg: "hmac-sha256",
        keyid: kid,
        sign: (base) => new Uint8Array(createHmac("sha256", bytes).update(base).digest()),
      },
    ]);
  });
}

/** The headers of a request for `statement`, signed by `key` at `created` (seconds) with `nonce`. */
export function signedHeaders(
  key: ForgingKey,
  method: string,
  url: string,
  statement: Statement,
  body: string,
  created: number,
  nonce: string,
): Record<string, string> {
  const identity = Buffer.from(JSON.stringify(statement)).toString("base64url");
  const digest = `sha-256=:${createHash("sha256").update(body).digest("base64")}:`;
  const params = `("@method" "@target-uri" "content-digest" "toolgate-identity");created=${created};expires=${created + 60};nonce="${nonce}";keyid="${key.keyid}";alg="${key.alg}";tag="toolgate"`;
  const base = [
    `"@method": ${method}`,
    `"@target-uri": ${url}`,
    `"content-digest": ${digest}`,
    `"toolgate-identity": ${identity}`,
    `"@signature-params": ${params}`,
  ].join("\n");
  const signature = Buffer.from(key.sign(utf8(base))).toString("base64");
  const headers: Record<string, string> = {
    "content-digest": digest,
    "toolgate-identity": identity,
    "signature-input": `toolgate=${params}`,
    signature: `toolgate=:${signature}:`,
  };
  if (statement.status_ref !== undefined) headers["idempotency-key"] = `"${statement.status_ref}"`;
  return headers;
}
