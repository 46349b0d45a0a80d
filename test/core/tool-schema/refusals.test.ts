// Every construct outside the subset is refused at compile time with the RFC 6901 pointer of the
// offending keyword (or of the schema missing one) and a stable message.
import { describe, expect, it } from "vitest";
import { SCHEMA_LIMITS } from "../../../src/core/tool-schema";
import { refusal } from "./support";

const TYPES = `"object", "array", "string", "integer", "number", "boolean", "null"`;
const str = (extra: string) => `{"type":"object","properties":{"s":{"type":"string"${extra}}}}`;
const pat = (pattern: string) => str(`,"maxLength":10,"pattern":${JSON.stringify(pattern)}`);

// [construct, schema, pointer, message]
const CASES: [string, string, string, string][] = [
  [
    "multipleOf",
    `{"type":"object","properties":{"amount":{"type":"number","multipleOf":5}}}`,
    "/properties/amount/multipleOf",
    `unsupported keyword "multipleOf"`,
  ],
  ["$ref", `{"$ref":"#/$defs/x"}`, "/$ref", `unsupported keyword "$ref"`],
  [
    "oneOf",
    `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"}]}}}`,
    "/properties/a/oneOf",
    `unsupported keyword "oneOf"`,
  ],
  [
    "format",
    `{"type":"string","format":"ipv4"}`,
    "/format",
    `"format" must be one of "email", "uri", "uuid", "date", "date-time"`,
  ],
  ["format of a number", `{"type":"integer","format":"int32"}`, "/format", `"format" does not apply to type "integer"`],
  [
    "$schema below the root",
    `{"type":"object","properties":{"a":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"null"}}}`,
    "/properties/a/$schema",
    `unsupported keyword "$schema"`,
  ],
  ["$schema not a string", `{"$schema":1,"type":"object"}`, "/$schema", `"$schema" must be a string`],
  ["empty anyOf", `{"anyOf":[]}`, "/anyOf", `"anyOf" must be an array of 1 to 16 schemas`],
  [
    "keyword beside anyOf",
    `{"anyOf":[{"type":"string"}],"minLength":1}`,
    "/minLength",
    `"minLength" does not apply beside "anyOf" (give it to each alternative)`,
  ],
  [
    "escaped pointer",
    `{"type":"object","properties":{"a/b~c":{"type":"null","uniqueItems":true}}}`,
    "/properties/a~1b~0c/uniqueItems",
    `unsupported keyword "uniqueItems"`,
  ],
  [
    "missing type",
    `{"type":"object","properties":{"a":{"description":"x"}}}`,
    "/properties/a",
    `a schema must declare its "type"`,
  ],
  [
    "type list with a repeat",
    `{"type":["string","string"]}`,
    "/type",
    `"type" must be one of ${TYPES}, or a list of distinct ones`,
  ],
  ["unknown type", `{"type":"float"}`, "/type", `"type" must be one of ${TYPES}, or a list of distinct ones`],
  [
    "unknown type in a list",
    `{"type":["string","float"]}`,
    "/type",
    `"type" must be one of ${TYPES}, or a list of distinct ones`,
  ],
  [
    "keyword of no listed type",
    `{"type":["string","null"],"minimum":1}`,
    "/minimum",
    `"minimum" does not apply to type "string" or "null"`,
  ],
  [
    "boolean schema",
    `{"type":"object","properties":{"a":true}}`,
    "/properties/a",
    "a schema must be a JSON object (boolean schemas are not supported)",
  ],
  ["root array", `[{"type":"string"}]`, "", "a schema must be a JSON object (boolean schemas are not supported)"],
  [
    "misplaced keyword",
    `{"type":"integer","maxLength":3}`,
    "/maxLength",
    `"maxLength" does not apply to type "integer"`,
  ],
  [
    "items on object",
    `{"type":"object","items":{"type":"string"}}`,
    "/items",
    `"items" does not apply to type "object"`,
  ],
  [
    "description type",
    `{"type":"null","description":7}`,
    "/description",
    `"description" must be a string of at most 1024 code points`,
  ],
  [
    "title length",
    `{"type":"null","title":"${"😀".repeat(1025)}"}`,
    "/title",
    `"title" must be a string of at most 1024 code points`,
  ],
  ["properties type", `{"type":"object","properties":[]}`, "/properties", `"properties" must be an object`],
  [
    "property name length",
    `{"type":"object","properties":{"${"n".repeat(129)}":{"type":"null"}}}`,
    `/properties/${"n".repeat(129)}`,
    "a property name is longer than 128 code points",
  ],
  [
    "required type",
    `{"type":"object","properties":{"a":{"type":"null"}},"required":"a"}`,
    "/required",
    `"required" must be an array of property names`,
  ],
  [
    "required member",
    `{"type":"object","properties":{"a":{"type":"null"}},"required":["a",1]}`,
    "/required/1",
    `"required" must be an array of property names`,
  ],
  [
    "required undeclared",
    `{"type":"object","properties":{"a":{"type":"null"}},"required":["a","b"]}`,
    "/required/1",
    `"required" names a property that "properties" does not declare`,
  ],
  [
    "required repeated",
    `{"type":"object","properties":{"a":{"type":"null"}},"required":["a","a"]}`,
    "/required/1",
    `"required" repeats a name`,
  ],
  [
    "additionalProperties true",
    `{"type":"object","additionalProperties":true}`,
    "/additionalProperties",
    `"additionalProperties" must be false (undeclared members are always refused)`,
  ],
  [
    "additionalProperties schema",
    `{"type":"object","additionalProperties":{"type":"string"}}`,
    "/additionalProperties",
    `"additionalProperties" must be false (undeclared members are always refused)`,
  ],
  [
    "array without items",
    `{"type":"object","properties":{"t":{"type":"array","maxItems":3}}}`,
    "/properties/t",
    `an "array" schema requires "items"`,
  ],
  [
    "array without maxItems",
    `{"type":"array","items":{"type":"string"}}`,
    "",
    `an "array" schema requires "maxItems" (at most 1000)`,
  ],
  [
    "maxItems over 1000",
    `{"type":"array","items":{"type":"null"},"maxItems":1001}`,
    "/maxItems",
    `"maxItems" must be an integer from 0 to 1000`,
  ],
  [
    "maxItems float",
    `{"type":"array","items":{"type":"null"},"maxItems":3.0}`,
    "/maxItems",
    `"maxItems" must be an integer from 0 to 1000`,
  ],
  [
    "minItems above maxItems",
    `{"type":"array","items":{"type":"null"},"maxItems":2,"minItems":3}`,
    "/minItems",
    `"minItems" exceeds "maxItems"`,
  ],
  [
    "minLength negative",
    str(`,"minLength":-1`),
    "/properties/s/minLength",
    `"minLength" must be an integer from 0 to 65536`,
  ],
  [
    "maxLength over domain",
    str(`,"maxLength":65537`),
    "/properties/s/maxLength",
    `"maxLength" must be an integer from 0 to 65536`,
  ],
  [
    "minLength above maxLength",
    str(`,"minLength":4,"maxLength":3`),
    "/properties/s/minLength",
    `"minLength" exceeds "maxLength"`,
  ],
  [
    "pattern type",
    str(`,"maxLength":5,"pattern":5`),
    "/properties/s/pattern",
    `"pattern" must be a string of at most 256 code points`,
  ],
  [
    "pattern length",
    pat("a".repeat(257)),
    "/properties/s/pattern",
    `"pattern" must be a string of at most 256 code points`,
  ],
  [
    "unanchored pattern without maxLength",
    str(`,"pattern":"a"`),
    "/properties/s/pattern",
    `"pattern" without a leading "^" requires "maxLength" of at most 256`,
  ],
  [
    "unanchored pattern with long maxLength",
    str(`,"maxLength":257,"pattern":"a|^b"`),
    "/properties/s/pattern",
    `"pattern" without a leading "^" requires "maxLength" of at most 256`,
  ],
  [
    "pattern syntax",
    pat("(a"),
    "/properties/s/pattern",
    `"pattern" is not an ECMAScript regular expression valid with the u flag`,
  ],
  [
    "pattern invalid under u",
    pat("\\-"),
    "/properties/s/pattern",
    `"pattern" is not an ECMAScript regular expression valid with the u flag`,
  ],
  [
    "(a+)+",
    pat("^(a+)+$"),
    "/properties/s/pattern",
    `"pattern" is refused: nested quantifiers: a repeated part holds a quantifier (at offset 5)`,
  ],
  [
    "(a*)*",
    pat("(a*)*"),
    "/properties/s/pattern",
    `"pattern" is refused: nested quantifiers: a repeated part holds a quantifier (at offset 4)`,
  ],
  [
    "(a|a)*",
    pat("(a|a)*"),
    "/properties/s/pattern",
    `"pattern" is refused: ambiguous: the parts at offsets 1 and 3 can match the same character at the same point`,
  ],
  [
    "quantified group with a quantifier",
    pat("(?:ab?){2,4}"),
    "/properties/s/pattern",
    `"pattern" is refused: nested quantifiers: a repeated part holds a quantifier (at offset 7)`,
  ],
  ["backreference", pat("(a)\\1"), "/properties/s/pattern", `"pattern" is refused: backreference at offset 3`],
  [
    "named backreference",
    pat("(?<x>a)\\k<x>"),
    "/properties/s/pattern",
    `"pattern" is refused: backreference at offset 7`,
  ],
  ["lookbehind", pat("(?<=a)b"), "/properties/s/pattern", `"pattern" is refused: lookbehind at offset 0`],
  ["negative lookbehind", pat("x(?<!a)b"), "/properties/s/pattern", `"pattern" is refused: lookbehind at offset 1`],
  [
    "adjacent overlapping repetitions",
    pat("a*a*b"),
    "/properties/s/pattern",
    `"pattern" is refused: ambiguous: the parts at offsets 0 and 2 can match the same character at the same point`,
  ],
  [
    "overlapping optionals",
    pat("a?a?aa"),
    "/properties/s/pattern",
    `"pattern" is refused: ambiguous: the parts at offsets 0 and 2 can match the same character at the same point`,
  ],
  [
    "two empty options",
    pat("(?:|x|)y"),
    "/properties/s/pattern",
    `"pattern" is refused: an alternation matches the empty string in more than one way (at offset 3)`,
  ],
  [
    "optional empty",
    pat("(?:a?)?"),
    "/properties/s/pattern",
    `"pattern" is refused: an optional part that already matches the empty string (at offset 6)`,
  ],
  [
    "repeated empty",
    pat("(?:)*"),
    "/properties/s/pattern",
    `"pattern" is refused: a repeated part matches the empty string (at offset 4)`,
  ],
  [
    "lookahead repetition",
    pat("(?=a+)a"),
    "/properties/s/pattern",
    `"pattern" is refused: a lookahead holds a repetition (at offset 0)`,
  ],
  [
    "repetition count",
    pat("a{1001}"),
    "/properties/s/pattern",
    `"pattern" is refused: a repetition count above 1000 (at offset 1)`,
  ],
  ["enum type", `{"type":"string","enum":"a"}`, "/enum", `"enum" must be an array of 1 to 256 values`],
  ["enum empty", `{"type":"string","enum":[]}`, "/enum", `"enum" must be an array of 1 to 256 values`],
  [
    "enum too long",
    `{"type":"integer","enum":[${Array.from({ length: 257 }, (_, i) => i).join(",")}]}`,
    "/enum",
    `"enum" must be an array of 1 to 256 values`,
  ],
  ["enum non-scalar", `{"type":"object","enum":[{}]}`, "/enum/0", `"enum" value must be a JSON scalar`],
  ["enum wrong type", `{"type":"string","enum":["a",1]}`, "/enum/1", `"enum" value is not of type "string"`],
  ["enum float in integer", `{"type":"integer","enum":[1,2.0]}`, "/enum/1", `"enum" value is not of type "integer"`],
  ["enum repeated number", `{"type":"number","enum":[1,2,1.0]}`, "/enum/2", `"enum" repeats a value`],
  [
    "enum long string",
    `{"type":"string","enum":["${"a".repeat(1025)}"]}`,
    "/enum/0",
    `"enum" value is longer than 1024 code points`,
  ],
  [
    "const array",
    `{"type":"array","items":{"type":"null"},"maxItems":1,"const":[null]}`,
    "/const",
    `"const" must be a JSON scalar`,
  ],
  ["const wrong type", `{"type":"boolean","const":null}`, "/const", `"const" is not of type "boolean"`],
  ["bound type", `{"type":"integer","minimum":"0"}`, "/minimum", `"minimum" must be a number`],
  [
    "exclusive bound type",
    `{"type":"number","exclusiveMaximum":true}`,
    "/exclusiveMaximum",
    `"exclusiveMaximum" must be a number`,
  ],
];

describe("compileSchema refuses what is outside the subset", () => {
  it.each(CASES)("%s", (_name, schema, pointer, message) => {
    expect(refusal(schema)).toEqual({ pointer, message });
  });

  const nest = (levels: number): string =>
    levels === 1 ? `{"type":"string"}` : `{"type":"array","maxItems":1,"items":${nest(levels - 1)}}`;

  it("refuses a schema nested one level deeper than the limit, at the too-deep schema", () => {
    expect(SCHEMA_LIMITS.defaultMaxDepth).toBe(8);
    expect(refusal(nest(9))).toEqual({ pointer: "/items".repeat(8), message: "the schema nests deeper than 8 levels" });
    expect(refusal(nest(4), { maxDepth: 3 })).toEqual({
      pointer: "/items/items/items",
      message: "the schema nests deeper than 3 levels",
    });
  });

  it("refuses more than 128 properties and more than 512 schema objects", () => {
    const members = (n: number, prefix: string, schema: string) =>
      Array.from({ length: n }, (_, i) => `"${prefix}${i}":${schema}`).join(",");
    expect(refusal(`{"type":"object","properties":{${members(129, "p", `{"type":"null"}`)}}}`)).toEqual({
      pointer: "/properties",
      message: `"properties" has more than 128 members`,
    });
    // Root (1), then p0..p3 each followed by its 128 children: p3 is object 389, its c123 is object 513.
    const wide = `{"type":"object","properties":{${members(128, "c", `{"type":"null"}`)}}}`;
    expect(refusal(`{"type":"object","properties":{${members(5, "p", wide)}}}`)).toEqual({
      pointer: "/properties/p3/properties/c123",
      message: "the schema has more than 512 schema objects",
    });
  });

  it("refuses values outside the JSON domain and shows long keywords shortened", () => {
    expect(refusal({ type: "number", minimum: Number.NaN })).toEqual({
      pointer: "",
      message: "the schema is outside the JSON domain: $.minimum does not allow NaN or Infinity",
    });
    const long = "k".repeat(70);
    expect(refusal(`{"type":"null","${long}":1}`)).toEqual({
      pointer: `/${long}`,
      message: `unsupported keyword "${"k".repeat(64)}…"`,
    });
  });

  it("throws on a maxDepth option outside 1–16 (a caller's bug)", () => {
    expect(() => refusal(`{"type":"null","x":1}`, { maxDepth: 17 })).toThrow(
      new RangeError("maxDepth must be an integer from 1 to 16"),
    );
    expect(() => refusal(`{"type":"null","x":1}`, { maxDepth: 0 })).toThrow(
      new RangeError("maxDepth must be an integer from 1 to 16"),
    );
  });
});
