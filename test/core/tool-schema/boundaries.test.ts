// Each supported keyword at its boundaries. Documents go through the strict reader, so `1.0` is a
// PyFloat (the reference's float) and `1` an int; null means valid, else "<pointer>: <keyword>".
import { describe, expect, it } from "vitest";
import { PyFloat } from "../../../src/core/json";
import { compiled, verdicts } from "./support";

describe("strings count code points", () => {
  it("applies minLength and maxLength to code points, astral characters counting 1", () => {
    const schema = compiled(`{"type":"string","minLength":2,"maxLength":3}`);
    expect("😀".length).toBe(2);
    expect(
      verdicts(schema, [
        `"a"`,
        `"😀"`,
        `"\\ud83d\\ude00"`,
        `"ab"`,
        `"😀😀"`,
        `"a😀"`,
        `"abc"`,
        `"😀😀😀"`,
        `"abcd"`,
        `"😀😀😀😀"`,
        `""`,
      ]),
    ).toEqual({
      [`"a"`]: "(root): minLength",
      [`"😀"`]: "(root): minLength",
      [`"\\ud83d\\ude00"`]: "(root): minLength",
      [`"ab"`]: null,
      [`"😀😀"`]: null,
      [`"a😀"`]: null,
      [`"abc"`]: null,
      [`"😀😀😀"`]: null,
      [`"abcd"`]: "(root): maxLength",
      [`"😀😀😀😀"`]: "(root): maxLength",
      [`""`]: "(root): minLength",
    });
    expect(verdicts(compiled(`{"type":"string","maxLength":0}`), [`""`, `"😀"`])).toEqual({
      [`""`]: null,
      [`"😀"`]: "(root): maxLength",
    });
  });

  it("refuses strings outside the JSON domain (lone surrogates, over 65,536 code points)", () => {
    const schema = compiled(`{"type":"string"}`);
    expect(schema.validate("\ud800")).toBe(false);
    expect(schema.validate("x".repeat(65_536))).toBe(true);
    expect(schema.validate("x".repeat(65_537))).toBe(false);
    expect(schema.validate("😀".repeat(65_536))).toBe(true);
    expect(schema.validate(`${"😀".repeat(65_536)}x`)).toBe(false);
  });

  it("searches the pattern (unanchored), code point by code point (u flag); a leading ^ needs no maxLength", () => {
    const search = compiled(`{"type":"string","maxLength":8,"pattern":"b+c"}`);
    expect(verdicts(search, [`"abbcd"`, `"bc"`, `"ac"`, `"cb"`, `"bbbbbbbbbc"`])).toEqual({
      [`"abbcd"`]: null,
      [`"bc"`]: null,
      [`"ac"`]: "(root): pattern",
      [`"cb"`]: "(root): pattern",
      [`"bbbbbbbbbc"`]: "(root): maxLength",
    });
    const anchored = compiled(`{"type":"string","maxLength":8,"pattern":"^b+c$"}`);
    expect(verdicts(anchored, [`"bbc"`, `"abbc"`, `"bbcd"`])).toEqual({
      [`"bbc"`]: null,
      [`"abbc"`]: "(root): pattern",
      [`"bbcd"`]: "(root): pattern",
    });
    const long = compiled(`{"type":"string","pattern":"^(?:a|b)c"}`);
    expect(verdicts(long, [`"bcd"`, `"abc"`, `"${"a".repeat(60_000)}"`])).toEqual({
      [`"bcd"`]: null,
      [`"abc"`]: "(root): pattern",
      [`"${"a".repeat(60_000)}"`]: "(root): pattern",
    });
    const one = compiled(`{"type":"string","maxLength":8,"pattern":"^.$"}`);
    expect(verdicts(one, [`"😀"`, `"a"`, `"😀😀"`, `"ab"`])).toEqual({
      [`"😀"`]: null,
      [`"a"`]: null,
      [`"😀😀"`]: "(root): pattern",
      [`"ab"`]: "(root): pattern",
    });
  });
});

describe("integers and numbers keep the reference's int/float distinction", () => {
  it("accepts an integer only as an int, never as a float such as 1.0", () => {
    const schema = compiled(`{"type":"integer"}`);
    expect(
      verdicts(schema, [
        "1",
        "1.0",
        "1e0",
        "-0",
        "-0.0",
        "1.5",
        `"1"`,
        "9007199254740991",
        "-9007199254740991",
        "true",
      ]),
    ).toEqual({
      "1": null,
      "1.0": "(root): type",
      "1e0": "(root): type",
      "-0": null,
      "-0.0": "(root): type",
      "1.5": "(root): type",
      [`"1"`]: "(root): type",
      "9007199254740991": null,
      "-9007199254740991": null,
      true: "(root): type",
    });
  });

  it("accepts ints and floats as numbers, by numeric value", () => {
    const schema = compiled(`{"type":"number"}`);
    expect(verdicts(schema, ["1", "1.0", "1.5", "-0.0", "1e300", `"1"`, "null"])).toEqual({
      "1": null,
      "1.0": null,
      "1.5": null,
      "-0.0": null,
      "1e300": null,
      [`"1"`]: "(root): type",
      null: "(root): type",
    });
  });

  it("refuses values outside the JSON domain and takes safe bigints as integers", () => {
    const integer = compiled(`{"type":"integer"}`);
    const number = compiled(`{"type":"number"}`);
    expect(
      [2 ** 53, Number.NaN, Number.POSITIVE_INFINITY].map((v) => integer.validate(v) || number.validate(v)),
    ).toEqual([false, false, false]);
    expect([
      integer.validate(5n),
      integer.validate(2n ** 53n),
      number.validate(5n),
      number.validate(new PyFloat(1e20)),
    ]).toEqual([true, false, true, true]);
  });

  it("applies minimum and maximum inclusively, at the edge and ±1", () => {
    const schema = compiled(`{"type":"integer","minimum":1,"maximum":10}`);
    expect(verdicts(schema, ["0", "1", "2", "9", "10", "11"])).toEqual({
      "0": "(root): minimum",
      "1": null,
      "2": null,
      "9": null,
      "10": null,
      "11": "(root): maximum",
    });
  });

  it("applies exclusiveMinimum and exclusiveMaximum strictly, at the edge and ±1", () => {
    const schema = compiled(`{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":10}`);
    expect(verdicts(schema, ["0", "1", "2", "9", "10", "11"])).toEqual({
      "0": "(root): exclusiveMinimum",
      "1": "(root): exclusiveMinimum",
      "2": null,
      "9": null,
      "10": "(root): exclusiveMaximum",
      "11": "(root): exclusiveMaximum",
    });
  });

  it("compares floats and float bounds by value", () => {
    const schema = compiled(`{"type":"number","minimum":1.5,"exclusiveMaximum":2.5}`);
    expect(verdicts(schema, ["1.4999", "1.5", "2", "2.0", "2.4999", "2.5", "3"])).toEqual({
      "1.4999": "(root): minimum",
      "1.5": null,
      "2": null,
      "2.0": null,
      "2.4999": null,
      "2.5": "(root): exclusiveMaximum",
      "3": "(root): exclusiveMaximum",
    });
    expect(verdicts(compiled(`{"type":"integer","minimum":0.5,"maximum":2.0}`), ["0", "1", "2", "3"])).toEqual({
      "0": "(root): minimum",
      "1": null,
      "2": null,
      "3": "(root): maximum",
    });
  });
});

describe("objects", () => {
  const schema = compiled(
    `{"type":"object","properties":{"a":{"type":"integer"},"b/c":{"type":"string","maxLength":3}},"required":["a"]}`,
  );

  it("refuses undeclared members (additionalProperties absent means false) and missing required ones", () => {
    expect(
      verdicts(schema, [
        `{"a":1}`,
        `{"a":1,"b/c":"x"}`,
        `{}`,
        `{"b/c":"x"}`,
        `{"a":1,"x":2}`,
        `{"a":1,"__proto__":2}`,
        `{"a":1,"b/c":5}`,
        `{"a":1.0}`,
        `[]`,
        `null`,
      ]),
    ).toEqual({
      [`{"a":1}`]: null,
      [`{"a":1,"b/c":"x"}`]: null,
      [`{}`]: "/a: required",
      [`{"b/c":"x"}`]: "/a: required",
      [`{"a":1,"x":2}`]: "/x: additionalProperties",
      [`{"a":1,"__proto__":2}`]: "/__proto__: additionalProperties",
      [`{"a":1,"b/c":5}`]: "/b~1c: type",
      [`{"a":1.0}`]: "/a: type",
      "[]": "(root): type",
      null: "(root): type",
    });
    const explicit = compiled(`{"type":"object","properties":{},"additionalProperties":false}`);
    expect(verdicts(explicit, [`{}`, `{"x":null}`])).toEqual({
      "{}": null,
      [`{"x":null}`]: "/x: additionalProperties",
    });
  });

  it("treats __proto__ as an ordinary declared member and refuses non-plain objects", () => {
    const proto = compiled(`{"type":"object","properties":{"__proto__":{"type":"integer"}},"required":["__proto__"]}`);
    expect(verdicts(proto, [`{"__proto__":1}`, `{}`, `{"__proto__":{}}`])).toEqual({
      [`{"__proto__":1}`]: null,
      "{}": "/__proto__: required",
      [`{"__proto__":{}}`]: "/__proto__: type",
    });
    const bare = Object.assign(Object.create(null) as Record<string, number>, { a: 1 });
    expect([schema.validate(bare), schema.validate(new Map([["a", 1]]) as never)]).toEqual([true, false]);
  });
});

describe("arrays, enum and const", () => {
  it("applies minItems and maxItems at the edge and checks every item", () => {
    const schema = compiled(`{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":2}`);
    expect(verdicts(schema, ["[]", "[1]", "[1,2]", "[1,2,3]", `[1,"x"]`, "[1,2.0]", "{}"])).toEqual({
      "[]": "(root): minItems",
      "[1]": null,
      "[1,2]": null,
      "[1,2,3]": "(root): maxItems",
      [`[1,"x"]`]: "/1: type",
      "[1,2.0]": "/1: type",
      "{}": "(root): type",
    });
    expect(verdicts(compiled(`{"type":"array","items":{"type":"null"},"maxItems":0}`), ["[]", "[null]"])).toEqual({
      "[]": null,
      "[null]": "(root): maxItems",
    });
  });

  it("matches enum members exactly (numbers by value, after the type test)", () => {
    expect(verdicts(compiled(`{"type":"string","enum":["a","😀"]}`), [`"a"`, `"😀"`, `"b"`, `"A"`])).toEqual({
      [`"a"`]: null,
      [`"😀"`]: null,
      [`"b"`]: "(root): enum",
      [`"A"`]: "(root): enum",
    });
    expect(verdicts(compiled(`{"type":"number","enum":[1,2.5]}`), ["1", "1.0", "2.5", "2"])).toEqual({
      "1": null,
      "1.0": null,
      "2.5": null,
      "2": "(root): enum",
    });
    expect(verdicts(compiled(`{"type":"integer","enum":[1,2]}`), ["1", "1.0", "3"])).toEqual({
      "1": null,
      "1.0": "(root): type",
      "3": "(root): enum",
    });
  });

  it("matches const by value", () => {
    expect(verdicts(compiled(`{"type":"number","const":0}`), ["0", "-0", "0.0", "-0.0", "1"])).toEqual({
      "0": null,
      "-0": null,
      "0.0": null,
      "-0.0": null,
      "1": "(root): const",
    });
    expect(verdicts(compiled(`{"type":"boolean","const":true}`), ["true", "false", "1"])).toEqual({
      true: null,
      false: "(root): const",
      "1": "(root): type",
    });
    expect(verdicts(compiled(`{"type":"null","const":null}`), ["null", "0"])).toEqual({
      null: null,
      "0": "(root): type",
    });
    expect(verdicts(compiled(`{"type":"string","enum":["a","b"],"const":"b"}`), [`"a"`, `"b"`, `"c"`])).toEqual({
      [`"a"`]: "(root): const",
      [`"b"`]: null,
      [`"c"`]: "(root): enum",
    });
  });
});

describe("depth", () => {
  const nest = (levels: number): string =>
    levels === 1 ? `{"type":"string","maxLength":1}` : `{"type":"array","maxItems":1,"items":${nest(levels - 1)}}`;

  it("compiles a schema at the depth limit and validates instances down to it", () => {
    const schema = compiled(nest(8));
    expect(verdicts(schema, [`[[[[[[["x"]]]]]]]`, `[[[[[[[["x"]]]]]]]]`, `[[[[[[[]]]]]]]`])).toEqual({
      [`[[[[[[["x"]]]]]]]`]: null,
      [`[[[[[[[["x"]]]]]]]]`]: "/0/0/0/0/0/0/0: type",
      [`[[[[[[[]]]]]]]`]: null,
    });
    expect(compiled(nest(3), { maxDepth: 3 }).validate([["x"]])).toBe(true);
  });

  it("stops at the schema's depth on a hostile instance nested 100,000 levels", () => {
    let deep: unknown[] = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(compiled(nest(8)).explain(deep as never)).toBe("/0/0/0/0/0/0/0: type");
  });
});
