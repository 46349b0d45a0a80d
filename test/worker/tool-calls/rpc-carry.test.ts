import { describe, expect, it } from "vitest";
import vectorsText from "../../../fixtures/json/vectors.json?raw";
import { canonicalJson, PyFloat, readJson } from "../../../src/core/json";
import * as z from "../../../src/core/zod";
import { carried, received } from "../../../src/worker/kernel/rpc";

// A value the Worker validated reaches the object by structured clone (RPC), not as text: every
// golden document must come out with the same canonical text, integral floats included.
interface Vectors {
  documents: { input: string; canonical: string }[];
}

const read = readJson(vectorsText, { maxBytes: 16 * 1024 * 1024, domain: false });
if (!read.ok) throw new Error(read.error.message);
const vectors = read.value as unknown as Vectors;

/** The Worker's value after the trip: carried, cloned as RPC clones it, received. */
function trip(value: unknown): unknown {
  const carry = carried(value);
  if ("outside" in carry) throw new Error(carry.outside);
  return received(structuredClone(carry), z.unknown());
}

describe("values carried to the object", () => {
  it("keep every golden document's canonical text", () => {
    const mismatches = vectors.documents.filter((vector) => {
      const value = readJson(vector.input, { maxBytes: 1 << 20 });
      return value.ok && canonicalJson(trip(value.value)) !== vector.canonical;
    });
    expect(vectors.documents.length).toBe(607);
    expect(mismatches.map((m) => m.input.slice(0, 40))).toEqual([]);
  });

  it("restore integral floats, signed zero and __proto__ keys in place, without touching the Worker's value", () => {
    const text = '{"a":1.0,"b":[-0.0,2,{"__proto__":{"c":3.0}}],"d":1e16}';
    const value = readJson(text);
    if (!value.ok) throw new Error(value.error.message);
    const after = trip(value.value);
    expect(canonicalJson(after)).toBe('{"a":1.0,"b":[-0.0,2,{"__proto__":{"c":3.0}}],"d":1e+16}');
    const record = after as { a: unknown; b: [unknown, unknown, Record<string, { c: unknown }>] };
    expect(record.a).toBeInstanceOf(PyFloat);
    expect(Object.hasOwn(record.b[2], "__proto__")).toBe(true);
    expect(record.b[2]["__proto__"]?.c).toBeInstanceOf(PyFloat);
    expect(canonicalJson(value.value)).toBe(canonicalJson(after));
    expect((value.value as { a: unknown }).a).toBeInstanceOf(PyFloat);
    // Without a float, the value goes as it is: nothing copied.
    const plain = { x: [1, "y"] };
    const carry = carried(plain);
    expect("outside" in carry ? null : carry.value).toBe(plain);
  });

  it("answers a value outside the JSON domain instead of carrying it", () => {
    expect(carried({ n: Number.MAX_SAFE_INTEGER + 2 })).toEqual({
      outside: "$.n  integeris outside the portable JSON-safe range",
    });
  });
});
