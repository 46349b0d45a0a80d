import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  codePointLength,
  compareCodePoints,
  constantTimeEqual,
  type Json,
  PyFloat,
  pyStrip,
  readJson,
} from "../../../src/core/json";

const SEED = 20261129;

const key = fc.string({ unit: "binary", maxLength: 6 });
const leaf: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -(2 ** 53 - 1), max: 2 ** 53 - 1 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Number.isInteger(x) ? new PyFloat(x) : x)),
  fc.string({ unit: "binary", maxLength: 12 }),
);
const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(key, tie("value"), { maxKeys: 4 }),
  ),
})).value;

function shuffled(value: Json, order: number[]): Json {
  if (Array.isArray(value)) return value.map((v) => shuffled(v, order));
  if (value === null || typeof value !== "object" || value instanceof PyFloat) return value;
  const keys = Object.keys(value);
  const rotated = keys.map((_, i) => keys[(i + (order[i % order.length] ?? 0)) % keys.length] as string);
  const out: Record<string, Json> = {};
  for (const k of [...new Set([...rotated, ...keys])]) {
    Object.defineProperty(out, k, {
      value: shuffled(value[k] as Json, order),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

describe("reader and canonical writer, by property", () => {
  it("read(canonical(v)) gives back v, and canonical is stable", () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = canonicalJson(value);
        const read = readJson(text);
        expect(read.ok).toBe(true);
        if (read.ok) {
          expect(read.value).toEqual(value);
          expect(canonicalJson(read.value)).toBe(text);
        }
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it("key order never changes the canonical bytes", () => {
    fc.assert(
      fc.property(json, fc.array(fc.nat(7), { minLength: 1, maxLength: 5 }), (value, order) => {
        expect(canonicalJson(shuffled(value, order))).toBe(canonicalJson(value));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it("1 and 1.0 survive a round trip as different values", () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 53 - 1), max: 2 ** 53 - 1 }), (n) => {
        const read = readJson(`[${n},${canonicalJson(new PyFloat(n))}]`);
        expect(read).toEqual({ ok: true, value: [n === 0 ? 0 : n, new PyFloat(n)] });
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it("sorts keys in code-point order, unlike UTF-16 order", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 5 }),
        fc.string({ unit: "grapheme", maxLength: 5 }),
        (a, b) => {
          const byCodePoint = Math.sign(compareCodePoints(a, b));
          const pa = [...a].map((c) => c.codePointAt(0) as number);
          const pb = [...b].map((c) => c.codePointAt(0) as number);
          let expected = Math.sign(pa.length - pb.length);
          for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
            if (pa[i] !== pb[i]) {
              expected = Math.sign((pa[i] as number) - (pb[i] as number));
              break;
            }
          }
          expect(byCodePoint).toBe(expected);
        },
      ),
      { seed: SEED, numRuns: 5000 },
    );
  });
});

describe("Python text semantics", () => {
  it("strips Python's whitespace set, not JavaScript's", () => {
    expect(pyStrip(" \u001c\ufeff\u0085a\u00a0 ")).toBe("\ufeff\u0085a");
    expect(pyStrip("\u001f\u0085x\u3000\u2028")).toBe("x");
    expect(pyStrip("\ufeffx\ufeff")).toBe("\ufeffx\ufeff");
  });

  it("counts code points like len()", () => {
    expect(codePointLength("a\u{1F600}b")).toBe(3);
    expect(codePointLength("\u{1F600}".repeat(10))).toBe(10);
    expect(codePointLength("\ud800x")).toBe(2);
  });

  it("orders U+FF61 before U+1F600", () => {
    expect(["\u{1F600}", "\uff61", "a", "\ue000", "\u{10000}"].sort(compareCodePoints)).toEqual([
      "a",
      "\ue000",
      "\uff61",
      "\u{10000}",
      "\u{1F600}",
    ]);
    expect(canonicalJson({ "\uff61": 1, "\u{1F600}": 2, "10": 3, "9": 4 })).toBe('{"10":3,"9":4,"｡":1,"😀":2}');
  });
});

describe("constantTimeEqual", () => {
  it("is plain string equality", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
        expect(constantTimeEqual(a, a)).toBe(true);
      }),
      { seed: SEED, numRuns: 2000 },
    );
    expect(constantTimeEqual("a".repeat(64), `${"a".repeat(63)}b`)).toBe(false);
  });
});
