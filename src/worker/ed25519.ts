/**
 * Ed25519 of the runtime (`node:crypto` under `nodejs_compat`, loaded on first use): what signs
 * and checks the audit log's notes and derives the public keys of downstream signing, so the
 * Worker does not carry Ed25519 in JavaScript (the core's, `@noble/curves`: about 12 KiB of its
 * gzipped bundle, issue #32). Signatures are deterministic (RFC 8032), so they are the same
 * bytes as the core's; test/worker/audit/ed25519-native.test.ts pins them to RFC 8032's vectors
 * and to the core's.
 *
 * What a key must be is decided here, as the core's does it (RFC 8032 §5.1.3, strict): the
 * runtime's own import takes any 32 bytes. A key that is not the canonical encoding of a curve
 * point is refused, and a small-order key verifies nothing. The runtime's check of a signature is
 * RFC 8032's without the cofactor (S < L, then [S]B − [k]A must encode to exactly R), so it
 * accepts what the core's cofactored check accepts or less, and the same for every signature
 * made by a seed's key.
 * @module
 */
import { bytesToHex } from "@noble/hashes/utils.js";
import type { Ed25519 } from "../core/audit";
import { builtinModule } from "./builtin";

/** What this module uses of `node:crypto`. */
interface KeyObject {
  export(options: { format: "der"; type: "spki" }): Uint8Array;
}
interface NativeCrypto {
  createPrivateKey(options: { key: Uint8Array; format: "der"; type: "pkcs8" }): KeyObject;
  createPublicKey(options: KeyObject | { key: Uint8Array; format: "der"; type: "spki" }): KeyObject;
  sign(algorithm: null, data: Uint8Array, key: KeyObject): Uint8Array;
  verify(algorithm: null, data: Uint8Array, key: KeyObject, signature: Uint8Array): boolean;
}

let native: NativeCrypto | undefined;

/** The runtime's `node:crypto`; a Worker without `nodejs_compat` cannot sign (a deployment error). */
function nativeCrypto(): NativeCrypto {
  if (native === undefined) {
    const crypto = builtinModule("node:crypto");
    if (typeof crypto !== "object" || crypto === null || !("sign" in crypto) || !("createPrivateKey" in crypto))
      throw new Error("Ed25519 needs the runtime's node:crypto (the Worker's nodejs_compat flag)");
    native = crypto as NativeCrypto;
  }
  return native;
}

/** DER of an Ed25519 key up to its 32 key bytes: PKCS #8 (RFC 8410) and SubjectPublicKeyInfo. */
const PKCS8_PREFIX = Uint8Array.of(
  0x30,
  0x2e,
  0x02,
  0x01,
  0x00,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x04,
  0x22,
  0x04,
  0x20,
);
const SPKI_PREFIX = Uint8Array.of(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00);

function withPrefix(prefix: Uint8Array, key: Uint8Array): Uint8Array {
  const der = new Uint8Array(prefix.length + key.length);
  der.set(prefix, 0);
  der.set(key, prefix.length);
  return der;
}

// edwards25519 (RFC 8032 §5.1): the field's prime, d (−121665/121666 mod p), and a square root of
// −1 (2^((p−1)/4) mod p). d and the root are written out, not computed at module scope: the two
// exponentiations there cost about 1 ms of every cold start (test/worker/audit/ed25519-native.test.ts
// checks both against their definitions).
const P = 2n ** 255n - 19n;
const mod = (a: bigint): bigint => ((a % P) + P) % P;
function pow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
  }
  return result;
}
export const CURVE_D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
export const SQRT_M1 = 19681161376707505956807079304988542015446066515923890162744021073123829784752n;

/** Whether 32 bytes are the canonical encoding of a curve point (RFC 8032 §5.1.3: y < p, x recovered, no "−0"). */
export function isCanonicalPoint(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? (bytes[i] as number) & 0x7f : (bytes[i] as number));
  if (y >= P) return false;
  const y2 = (y * y) % P;
  const u = mod(y2 - 1n);
  const v = mod(CURVE_D * y2 + 1n);
  const v3 = (((v * v) % P) * v) % P;
  const v7 = (((v3 * v3) % P) * v) % P;
  let x = (((u * v3) % P) * pow((u * v7) % P, (P - 5n) / 8n)) % P;
  const vx2 = (((v * x) % P) * x) % P;
  if (vx2 !== u) {
    if (vx2 !== mod(-u)) return false;
    x = (x * SQRT_M1) % P;
  }
  return !(x === 0n && (bytes[31] as number) >> 7 === 1);
}

/** The canonical encodings of the curve's eight points of small order (the identity among them), in hex. */
export const SMALL_ORDER_POINTS: ReadonlySet<string> = new Set([
  "0100000000000000000000000000000000000000000000000000000000000000",
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
  "0000000000000000000000000000000000000000000000000000000000000000",
  "0000000000000000000000000000000000000000000000000000000000000080",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
]);

/** Ed25519 of the runtime, with the core's rules for keys. */
export const nativeEd25519: Ed25519 = {
  keyPair(seed) {
    if (seed.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes");
    const crypto = nativeCrypto();
    const privateKey = crypto.createPrivateKey({ key: withPrefix(PKCS8_PREFIX, seed), format: "der", type: "pkcs8" });
    const spki = crypto.createPublicKey(privateKey).export({ format: "der", type: "spki" });
    return {
      publicKey: new Uint8Array(spki.subarray(SPKI_PREFIX.length)),
      sign: (message) => new Uint8Array(crypto.sign(null, message, privateKey)),
    };
  },
  verifier(publicKey) {
    if (!isCanonicalPoint(publicKey)) return null;
    if (SMALL_ORDER_POINTS.has(bytesToHex(publicKey))) return () => false;
    const crypto = nativeCrypto();
    const key = crypto.createPublicKey({ key: withPrefix(SPKI_PREFIX, publicKey), format: "der", type: "spki" });
    return (message, signature) => {
      if (signature.length !== 64) return false;
      try {
        return crypto.verify(null, message, key, signature);
      } catch {
        return false;
      }
    };
  },
};
