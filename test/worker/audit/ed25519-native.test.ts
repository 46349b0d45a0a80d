/**
 * The Worker's Ed25519 (src/worker/ed25519.ts, the runtime's node:crypto) against RFC 8032's
 * test vectors and the core's JavaScript Ed25519 (@noble/curves): the same public keys and
 * signatures byte for byte, the same keys refused, and no signature under a small-order key.
 */
import { describe, expect, it } from "vitest";
import * as fc from "fast-check";
import { ed25519 } from "@noble/curves/ed25519.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { nobleEd25519, noteKeys, openNote, signNote, verifierKeyOf } from "../../../src/core/audit";
import { CURVE_D, isCanonicalPoint, nativeEd25519, SMALL_ORDER_POINTS, SQRT_M1 } from "../../../src/worker/ed25519";

// RFC 8032 §7.1, TEST 1 to TEST 3: secret key (seed), public key, message, signature.
const RFC8032: Array<{ seed: string; publicKey: string; message: string; signature: string }> = [
  {
    seed: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
    message: "",
    signature:
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
  },
  {
    seed: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
    publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
    message: "72",
    signature:
      "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
  },
  {
    seed: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
    publicKey: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
    message: "af82",
    signature:
      "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
  },
];

/** 2^255 − 19 and the other y values at the edge of the canonical range, little-endian, sign bit clear or set. */
function edgeEncodings(): Uint8Array[] {
  const p = 2n ** 255n - 19n;
  const out: Uint8Array[] = [];
  for (const y of [0n, 1n, 2n, p - 2n, p - 1n, p, p + 1n, p + 18n, 2n ** 255n - 1n])
    for (const sign of [0, 0x80]) {
      const bytes = new Uint8Array(32);
      let v = y;
      for (let i = 0; i < 32; i++) {
        bytes[i] = Number(v & 0xffn);
        v >>= 8n;
      }
      bytes[31] = ((bytes[31] as number) & 0x7f) | sign;
      out.push(bytes);
    }
  return out;
}

describe("the Worker's Ed25519 (native)", () => {
  it("derives RFC 8032's public keys and signs its signatures", () => {
    for (const v of RFC8032) {
      const pair = nativeEd25519.keyPair(hexToBytes(v.seed));
      expect(bytesToHex(pair.publicKey)).toBe(v.publicKey);
      expect(bytesToHex(pair.sign(hexToBytes(v.message)))).toBe(v.signature);
      const verify = nativeEd25519.verifier(hexToBytes(v.publicKey));
      expect(verify?.(hexToBytes(v.message), hexToBytes(v.signature))).toBe(true);
      expect(verify?.(hexToBytes(`${v.message}00`), hexToBytes(v.signature))).toBe(false);
    }
  });

  it("makes the core's public keys and signatures, and verifies as it does", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 300 }),
        (seed, message) => {
          const native = nativeEd25519.keyPair(seed);
          const core = nobleEd25519.keyPair(seed);
          expect(bytesToHex(native.publicKey)).toBe(bytesToHex(core.publicKey));
          const signature = native.sign(message);
          expect(bytesToHex(signature)).toBe(bytesToHex(core.sign(message)));
          const tampered = signature.slice();
          tampered[message.length % 64] = (tampered[message.length % 64] as number) ^ 1;
          for (const sig of [signature, tampered, signature.subarray(0, 63)])
            expect(nativeEd25519.verifier(native.publicKey)?.(message, sig)).toBe(
              nobleEd25519.verifier(core.publicKey)?.(message, sig),
            );
        },
      ),
      { numRuns: 60 },
    );
  });

  it("refuses the keys the core refuses: random bytes, the edges of the canonical range, the small-order points", () => {
    const keys = [...edgeEncodings(), ...[...SMALL_ORDER_POINTS].map(hexToBytes)];
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        expect(isCanonicalPoint(bytes)).toBe(ed25519.utils.isValidPublicKey(bytes, false));
      }),
      { numRuns: 300 },
    );
    for (const key of keys) {
      expect(isCanonicalPoint(key)).toBe(ed25519.utils.isValidPublicKey(key, false));
      expect(nativeEd25519.verifier(key) === null).toBe(nobleEd25519.verifier(key) === null);
    }
    // Canonical among them: y = 0 (x = ±√−1, both signs), y = 1 and y = −1 (x = 0, sign clear), and
    // the eight small-order points; y = ±2 is off the curve (3 / (4d + 1) is not a square mod p).
    expect(keys.filter((key) => isCanonicalPoint(key)).length).toBe(12);
  });

  it("writes out edwards25519's d and square root of −1 as their definitions give them", () => {
    const p = 2n ** 255n - 19n;
    // RFC 8032 §5.1: d = −121665/121666 mod p; the curve library's own d.
    expect((CURVE_D * 121666n + 121665n) % p).toBe(0n);
    expect(CURVE_D).toBe(ed25519.Point.CURVE().d);
    // A square root of −1 mod p, the one 2^((p−1)/4) gives (RFC 8032 §5.1.3's recovery uses it).
    expect((SQRT_M1 * SQRT_M1) % p).toBe(p - 1n);
    let power = 1n;
    let base = 2n;
    for (let e = (p - 1n) / 4n; e > 0n; e >>= 1n, base = (base * base) % p) if (e & 1n) power = (power * base) % p;
    expect(SQRT_M1).toBe(power);
  });

  it("knows every point of small order: the eight multiples of an order-8 point", () => {
    const Point = ed25519.Point;
    const order8 = Point.fromBytes(hexToBytes("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"));
    const multiples = new Set<string>();
    let point = Point.ZERO;
    for (let i = 0; i < 8; i++) {
      multiples.add(bytesToHex(point.toBytes()));
      point = point.add(order8);
    }
    expect(point.equals(Point.ZERO)).toBe(true);
    expect([...multiples].sort()).toEqual([...SMALL_ORDER_POINTS].sort());
  });

  it("verifies nothing under a small-order key, where the runtime's own check would accept a signature", () => {
    // Key: the identity; signature: R = the identity, S = 0. [S]B = R + [k]A holds for every message.
    const identity = hexToBytes("0100000000000000000000000000000000000000000000000000000000000000");
    const signature = new Uint8Array(64);
    signature.set(identity, 0);
    const message = new TextEncoder().encode("any message\n");
    const crypto = process.getBuiltinModule("node:crypto");
    const spki = crypto.createPublicKey({
      key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), identity]),
      format: "der",
      type: "spki",
    });
    expect(crypto.verify(null, message, spki, signature)).toBe(true);
    expect(nativeEd25519.verifier(identity)?.(message, signature)).toBe(false);
    expect(nobleEd25519.verifier(identity)?.(message, signature)).toBe(false);
  });

  it("signs and opens the same notes as the core's keys", () => {
    const seed = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
    const text = noteKeys(nobleEd25519).signerKeyText("toolgate-test", seed);
    expect(text).toBe("PRIVATE+KEY+toolgate-test+f62e6223+AQECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g");
    const native = noteKeys(nativeEd25519);
    const signer = native.parseSignerKey(text);
    if (!signer.ok) throw new Error(signer.error);
    const note = signNote("toolgate-test/consumers/c\n1\nAAAA\n", [signer.value]);
    const core = noteKeys(nobleEd25519).parseSignerKey(text);
    if (!core.ok) throw new Error(core.error);
    expect(note).toBe(signNote("toolgate-test/consumers/c\n1\nAAAA\n", [core.value]));
    const verifier = native.parseVerifierKey(verifierKeyOf(signer.value));
    if (!verifier.ok) throw new Error(verifier.error);
    expect(openNote(note, [verifier.value])).toEqual({
      ok: true,
      value: { text: "toolgate-test/consumers/c\n1\nAAAA\n", verifiedBy: ["toolgate-test+f62e6223"] },
    });
    expect(openNote(note.replace("AAAA", "AAAB"), [verifier.value])).toEqual({
      ok: false,
      error: "note_signature_invalid",
    });
  });
});
