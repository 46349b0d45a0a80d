import { describe, expect, it } from "vitest";
import { bytesToHex } from "@noble/hashes/utils.js";
import { fastSha256, fastSha256Hex, hasNativeSha256, NATIVE_FROM_BYTES } from "../../../src/worker/sha256";

// Golden digests from Python's hashlib.sha256 over the UTF-8 bytes.
const CASES: Array<[string, string]> = [
  ["short", "f9b0078b5df596d2ea19010c001bbd009e651de2c57e8fb7e355f31eb9d3f739"],
  ["a".repeat(600), "ba35c170729417f1499e0886e7e12fcdb4ab00ad411110ae1e888c766d4ed70d"],
  ["é".repeat(300), "7250b66610f8b7dbd6f5e5426d2143bcba6d826cedb4bea8a358695da78db023"],
  ["x".repeat(170) + "€".repeat(200), "01f64c38fad3d4e48d25c5f5a3620508ff6ebc4865976a9651418023c6eaca95"],
];

describe("the Worker's SHA-256 (native from 512 bytes)", () => {
  it("uses workerd's native digest", () => {
    expect(hasNativeSha256()).toBe(true);
    expect(NATIVE_FROM_BYTES).toBe(512);
  });

  it("answers the same digest as the reference below and above the threshold", () => {
    for (const [text, hex] of CASES) expect(fastSha256Hex(text)).toBe(hex);
  });

  it("hashes bytes: 0x00 followed by 1,000 'b'", () => {
    const input = new Uint8Array(1001).fill(0x62);
    input[0] = 0;
    const digest = fastSha256(input);
    expect(digest).toBeInstanceOf(Uint8Array);
    expect(bytesToHex(digest)).toBe("cb51fe439e65d0e53e1b5e3519caf113278293642755779517f59d122a2bbd76");
  });
});
