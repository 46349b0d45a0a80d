import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  formatCheckpoint,
  leafHash,
  MerkleTree,
  openNote,
  parseCheckpoint,
  parseVerifierKey,
  signerFromSeed,
  signNote,
  verifierKeyOf,
} from "../../../src/core/audit";

// Made by fixtures/audit/make-golden.mjs with node:crypto alone (see fixtures/audit/README.md).
const dir = fileURLToPath(new URL("../../../fixtures/audit/", import.meta.url));
const golden = readFileSync(`${dir}checkpoint.golden.txt`, "utf8");
const goldenKey = readFileSync(`${dir}checkpoint.golden.vkey`, "utf8").trim();
const SEED = Uint8Array.from({ length: 32 }, (_, i) => i);
const ROOT_HEX = "98c97f0ba3175cd08b031dd084b9dc4e649b64d1a28e6ea694646503173ab587";

describe("the golden checkpoint", () => {
  it("opens and reads back to its origin, size and root", () => {
    expect(goldenKey).toBe("toolgate-golden+0719a699+AQOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4");
    const verifier = parseVerifierKey(goldenKey);
    if (!verifier.ok) throw new Error(verifier.error);
    const opened = openNote(golden, [verifier.value]);
    if (!opened.ok) throw new Error(opened.error);
    expect(opened.value.verifiedBy).toEqual(["toolgate-golden+0719a699"]);
    const checkpoint = parseCheckpoint(opened.value.text);
    if (!checkpoint.ok) throw new Error(checkpoint.error);
    expect(checkpoint.value.origin).toBe("toolgate/consumers/golden");
    expect(checkpoint.value.size).toBe(7);
    expect(Buffer.from(checkpoint.value.root).toString("hex")).toBe(ROOT_HEX);
    expect(checkpoint.value.extensions).toEqual([]);
  });

  it("is the root of the seven fixture entries", () => {
    const tree = new MerkleTree();
    for (let i = 0; i < 7; i++) tree.append(leafHash(new TextEncoder().encode(`entry ${i}`)));
    expect(Buffer.from(tree.root()).toString("hex")).toBe(ROOT_HEX);
  });

  it("is reproduced byte for byte by signNote with the same seed", () => {
    const signer = signerFromSeed("toolgate-golden", SEED);
    expect(verifierKeyOf(signer)).toBe(goldenKey);
    const text = formatCheckpoint({
      origin: "toolgate/consumers/golden",
      size: 7,
      root: Uint8Array.from(Buffer.from(ROOT_HEX, "hex")),
    });
    expect(signNote(text, [signer])).toBe(golden);
  });

  it("is refused by another key of the same name", () => {
    const other = parseVerifierKey(verifierKeyOf(signerFromSeed("toolgate-golden", new Uint8Array(32).fill(1))));
    if (!other.ok) throw new Error(other.error);
    expect(openNote(golden, [other.value])).toEqual({ ok: false, error: "note_unverified" });
  });
});
