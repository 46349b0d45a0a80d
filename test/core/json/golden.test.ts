import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson, digestJson, pyFloatRepr, readJson } from "../../../src/core/json";

// Golden data written by Python (tools/golden-json.py), never by toolgate's own encoder.
interface Vectors {
  documents: { input: string; canonical: string; sha256: string }[];
  floats: { lexeme: string; repr: string }[];
}

function load(): Vectors {
  const read = readJson(readFileSync(new URL("../../../fixtures/json/vectors.json", import.meta.url)), {
    maxBytes: 16 * 1024 * 1024,
    domain: false,
  });
  if (!read.ok) throw new Error(read.error.message);
  return read.value as unknown as Vectors;
}

const vectors = load();

describe("canonical JSON against Python's json.dumps", () => {
  it("has the golden corpus", () => {
    expect(vectors.documents.length).toBe(607);
    expect(vectors.floats.length).toBe(3000);
  });

  it("reproduces the canonical text and SHA-256 of every golden document", () => {
    const mismatches: string[] = [];
    for (const vector of vectors.documents) {
      const read = readJson(vector.input, { maxBytes: 1 << 20 });
      if (!read.ok) {
        mismatches.push(`${vector.input.slice(0, 60)}: ${read.error.message}`);
        continue;
      }
      if (canonicalJson(read.value) !== vector.canonical || digestJson(read.value) !== vector.sha256) {
        mismatches.push(vector.input.slice(0, 60));
      }
    }
    expect(mismatches).toEqual([]);
  });

  it("formats every golden float lexeme as Python's repr", () => {
    const mismatches: string[] = [];
    for (const { lexeme, repr } of vectors.floats) {
      const read = readJson(`[${lexeme}]`);
      if (!read.ok) {
        mismatches.push(`${lexeme}: ${read.error.message}`);
        continue;
      }
      const text = canonicalJson(read.value);
      if (text !== `[${repr}]`) mismatches.push(`${lexeme} -> ${text}, want ${repr}`);
    }
    expect(mismatches).toEqual([]);
  });
});

describe("pyFloatRepr", () => {
  it.each([
    [1e16, "1e+16"],
    [2 ** 53, "9007199254740992.0"],
    [1e-5, "1e-05"],
    [1e-4, "0.0001"],
    [1e15, "1000000000000000.0"],
    [1e-7, "1e-07"],
    [5e-324, "5e-324"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [1e21, "1e+21"],
    [1e22, "1e+22"],
    [0.1, "0.1"],
    [1.5e300, "1.5e+300"],
    [123456789012345678, "1.2345678901234568e+17"],
    [1551563132437320.25, "1551563132437320.2"],
    [-101065508335255.125, "-101065508335255.12"],
    [-0, "-0.0"],
    [0, "0.0"],
    [100, "100.0"],
  ])("writes %s as %s", (value, expected) => {
    expect(pyFloatRepr(value)).toBe(expected);
  });
});
