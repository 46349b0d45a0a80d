import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson, PyFloat, readJson } from "../../../src/core/json";

const utf8 = (s: string) => new TextEncoder().encode(s);
const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...utf8(p)] : p)));

// Each input is built here; whether the reference accepts it comes from Python (fixtures/json/acceptance.json).
const inputs: Record<string, Uint8Array> = {
  "duplicate at root": utf8('{"a":1,"a":1}'),
  "escaped duplicate": utf8('{"a":1,"\\u0061":2}'),
  "nested duplicate": utf8('{"x":[{"k":{"d":1,"d":1}}]}'),
  NaN: utf8('{"a":NaN}'),
  Infinity: utf8("[Infinity]"),
  "-Infinity": utf8("[-Infinity]"),
  overflow: utf8("[1e400]"),
  "big int": utf8("[9007199254740992]"),
  "big negative int": utf8("[-9007199254740992]"),
  bom: bytes([0xef, 0xbb, 0xbf], "{}"),
  "invalid byte": bytes('["', [0xff], '"]'),
  overlong: bytes('["', [0xc0, 0xaf], '"]'),
  "encoded surrogate": bytes('["', [0xed, 0xa0, 0x80], '"]'),
  "above U+10FFFF": bytes('["', [0xf4, 0x90, 0x80, 0x80], '"]'),
  "lone high surrogate": utf8('["\\ud800"]'),
  "lone low surrogate key": utf8('{"\\udc00":1}'),
  "33 levels": utf8("[".repeat(33) + "]".repeat(33)),
  "depth bomb": utf8("[".repeat(100_000) + "]".repeat(100_000)),
  "trailing comma": utf8("[1,]"),
  "leading zero": utf8("[01]"),
  "raw tab": utf8('["\t"]'),
  comment: utf8("[1]//"),
  "single quotes": utf8("['a']"),
  "trailing data": utf8("{} {}"),
  empty: utf8(""),
  "plus number": utf8("[+1]"),
  "bad escape": utf8('["\\x"]'),
  "short unicode escape": utf8('["\\u12"]'),
  "too large": utf8(`[${"1,".repeat(32768)}1]`),
  "long string": utf8(`["${"a".repeat(65537)}"]`),
  "astral string too long": utf8(`["${"\u{1F600}".repeat(65537)}"]`),
  "array too long": utf8(`[${"0,".repeat(1024)}0]`),
  "4301 digits": utf8(`[${"1".repeat(4301)}]`),
  "vertical tab space": utf8("[\u000b1]"),
  "dot without digits": utf8("[1.]"),
  "exponent without digits": utf8("[1e]"),
  "32 levels": utf8("[".repeat(32) + "]".repeat(32)),
  "proto key": utf8('{"__proto__":1}'),
  "pair escape": utf8('["\\ud83d\\ude00"]'),
  "long string at limit": utf8(`["${"a".repeat(65536)}"]`),
  "astral at limit": utf8(`["${"\u{1F600}".repeat(16000)}"]`),
  "array at limit": utf8(`[${"0,".repeat(1023)}0]`),
  "max int": utf8("[9007199254740991,-9007199254740991]"),
  "negative zero": utf8("[-0,-0.0]"),
  whitespace: utf8(' \t\r\n{ "a" : [ 1 , 2 ] } \n'),
};

const acceptance = readJson(readFileSync(new URL("../../../fixtures/json/acceptance.json", import.meta.url)));
if (!acceptance.ok) throw new Error(acceptance.error.message);
const expected = acceptance.value as { name: string; accepted: boolean }[];

describe("readJson accepts and refuses what the reference does", () => {
  it("covers every golden acceptance case", () => {
    expect(Object.keys(inputs).sort()).toEqual(expected.map((c) => c.name).sort());
  });

  it.each(expected.map((c) => [c.name, c.accepted] as const))("%s → accepted %s", (name, accepted) => {
    const input = inputs[name] as Uint8Array;
    expect(readJson(input, { maxBytes: 65_536 }).ok).toBe(accepted);
  });
});

describe("readJson", () => {
  it("keeps 1 and 1.0 apart", () => {
    const read = readJson("[1, 1.0, 1e2, -0.0, 2.5]");
    expect(read).toEqual({ ok: true, value: [1, new PyFloat(1), new PyFloat(100), new PyFloat(-0), 2.5] });
    if (read.ok) expect(canonicalJson(read.value)).toBe("[1,1.0,100.0,-0.0,2.5]");
  });

  it("treats __proto__, constructor and prototype as ordinary own keys", () => {
    const read = readJson('{"__proto__":{"polluted":true},"constructor":1,"prototype":2}');
    if (!read.ok) throw new Error("refused");
    const value = read.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__", "constructor", "prototype"]);
    expect(({} as Record<string, unknown>).polluted).toBe(undefined);
    expect(canonicalJson(value)).toBe('{"__proto__":{"polluted":true},"constructor":1,"prototype":2}');
  });

  it("refuses a depth bomb with a clean error at level 33", () => {
    const read = readJson("[".repeat(100_000) + "]".repeat(100_000), { maxBytes: 1 << 20 });
    expect(read.ok ? null : read.error.code).toBe("JSON_TOO_DEEP");
    expect(read.ok ? null : read.error.offset).toBe(32);
  });

  it("names the code and place of each refusal", () => {
    const cases: [string | Uint8Array, string][] = [
      ['{"a":1,"a":2}', "JSON_DUPLICATE_KEY"],
      ["[NaN]", "JSON_NON_FINITE"],
      ["[1e400]", "JSON_NON_FINITE"],
      ["[12345678901234567890]", "JSON_NUMBER_RANGE"],
      [bytes([0xef, 0xbb, 0xbf], "{}"), "JSON_BOM"],
      ["\ufeff{}", "JSON_BOM"],
      [bytes('["', [0xff], '"]'), "JSON_INVALID_UTF8"],
      ['["\\ud800"]', "JSON_DOMAIN"],
      ["[1,]", "JSON_SYNTAX"],
    ];
    expect(cases.map(([input]) => (readJson(input) as { error: { code: string } }).error.code)).toEqual(
      cases.map(([, code]) => code),
    );
    expect(readJson('{"a":{"b":[{"c":1,"c":2}]}}')).toEqual({
      ok: false,
      error: {
        code: "JSON_DUPLICATE_KEY",
        message: "JSON contains a duplicate field: c (at offset 21)",
        offset: 21,
        path: "$.a.b[0].c",
      },
    });
  });

  it("returns integers beyond 2^53 as bigint in bigint mode", () => {
    expect(readJson("[18446744073709551615, -9007199254740993, 7]", { integers: "bigint" })).toEqual({
      ok: true,
      value: [18446744073709551615n, -9007199254740993n, 7],
    });
  });

  it("refuses input over the size limit before decoding", () => {
    expect(readJson("[1]", { maxBytes: 2 })).toEqual({
      ok: false,
      error: { code: "JSON_TOO_LARGE", message: "JSON document exceeds 2 bytes" },
    });
    expect(readJson(`"${"é".repeat(40)}"`, { maxBytes: 60 }).ok).toBe(false);
  });
});
