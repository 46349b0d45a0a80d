import { describe, expect, it } from "vitest";
import vectorsText from "../../../fixtures/json/vectors.json?raw";
import { canonicalJson, digestJson, readJson } from "../../../src/core/json";

// The same Python-made golden vectors as the Node suite, run inside workerd.
interface Vectors {
  documents: { input: string; canonical: string; sha256: string }[];
  floats: { lexeme: string; repr: string }[];
}

const read = readJson(vectorsText, { maxBytes: 16 * 1024 * 1024, domain: false });
if (!read.ok) throw new Error(read.error.message);
const vectors = read.value as unknown as Vectors;

describe("canonical JSON inside workerd", () => {
  it("reproduces every golden canonical text and digest", () => {
    const mismatches = vectors.documents.filter((vector) => {
      const value = readJson(vector.input, { maxBytes: 1 << 20 });
      return !value.ok || canonicalJson(value.value) !== vector.canonical || digestJson(value.value) !== vector.sha256;
    });
    expect(vectors.documents.length).toBe(607);
    expect(mismatches.map((m) => m.input.slice(0, 40))).toEqual([]);
  });

  it("formats every golden float as Python's repr", () => {
    const mismatches = vectors.floats.filter(({ lexeme, repr }) => {
      const value = readJson(`[${lexeme}]`);
      return !value.ok || canonicalJson(value.value) !== `[${repr}]`;
    });
    expect(mismatches).toEqual([]);
  });

  it("refuses a BOM and invalid UTF-8 from bytes", () => {
    expect(readJson(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d])).ok).toBe(false);
    expect(readJson(new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22])).ok).toBe(false);
  });
});
