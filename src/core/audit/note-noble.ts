/**
 * The note key constructors of the core: Ed25519 in JavaScript (`@noble/curves`), for Node,
 * browsers and any runtime. The Worker brings the runtime's native Ed25519 instead (`noteKeys`
 * in ./note.ts), so this module and `@noble/curves`, unused there, stay out of its bundle.
 * @module
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { noteKeys, type Ed25519, type KeyCode, type Signer, type Verifier } from "./note";
import type { Result } from "../result";

/** Ed25519 of `@noble/curves`: RFC 8032 strict decoding (`zip215: false`), as Go's note package. */
export const nobleEd25519: Ed25519 = {
  keyPair(seed) {
    return { publicKey: ed25519.getPublicKey(seed), sign: (message) => ed25519.sign(message, seed) };
  },
  verifier(publicKey) {
    if (!ed25519.utils.isValidPublicKey(publicKey, false)) return null;
    return (message, signature) => {
      if (signature.length !== 64) return false;
      try {
        return ed25519.verify(signature, message, publicKey, { zip215: false });
      } catch {
        return false;
      }
    };
  },
};

/** The signer of a 32-byte Ed25519 seed under `name`. Throws for a bad name or seed (a bug). */
export function signerFromSeed(name: string, seed32: Uint8Array): Signer {
  return noteKeys(nobleEd25519).signerFromSeed(name, seed32);
}

/** Reads a signer key text `PRIVATE+KEY+<name>+<8 hex>+<base64(0x01 ‖ seed32)>`; the id must match the key. */
export function parseSignerKey(text: string): Result<Signer, KeyCode> {
  return noteKeys(nobleEd25519).parseSignerKey(text);
}

/** Reads a verifier key text `<name>+<8 hex>+<base64(0x01 ‖ publicKey32)>`; the id must match the key. */
export function parseVerifierKey(text: string): Result<Verifier, KeyCode> {
  return noteKeys(nobleEd25519).parseVerifierKey(text);
}

/** The signer key text of a seed (how a deployment's secret is written). */
export function signerKeyText(name: string, seed32: Uint8Array): string {
  return noteKeys(nobleEd25519).signerKeyText(name, seed32);
}
