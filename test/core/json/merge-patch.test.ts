/**
 * JSON Merge Patch against RFC 7396 Appendix A ("Example Test Cases"), each row as the RFC
 * prints it, and the reader's own values (a `__proto__` member, an integral float) kept as such.
 */
import { describe, expect, it } from "vitest";
import { PyFloat, readJson, type Json } from "../../../src/core/json";
import { mergePatch } from "../../../src/core/json/merge-patch";

/** RFC 7396 Appendix A: original, patch, result. */
const APPENDIX_A: ReadonlyArray<readonly [string, string, string]> = [
  ['{"a":"b"}', '{"a":"c"}', '{"a":"c"}'],
  ['{"a":"b"}', '{"b":"c"}', '{"a":"b","b":"c"}'],
  ['{"a":"b"}', '{"a":null}', "{}"],
  ['{"a":"b","b":"c"}', '{"a":null}', '{"b":"c"}'],
  ['{"a":["b"]}', '{"a":"c"}', '{"a":"c"}'],
  ['{"a":"c"}', '{"a":["b"]}', '{"a":["b"]}'],
  ['{"a":{"b":"c"}}', '{"a":{"b":"d","c":null}}', '{"a":{"b":"d"}}'],
  ['{"a":[{"b":"c"}]}', '{"a":[1]}', '{"a":[1]}'],
  ['["a","b"]', '["c","d"]', '["c","d"]'],
  ['{"a":"b"}', '["c"]', '["c"]'],
  ['{"a":"foo"}', "null", "null"],
  ['{"a":"foo"}', '"bar"', '"bar"'],
  ['{"e":null}', '{"a":1}', '{"e":null,"a":1}'],
  ["[1,2]", '{"a":"b","c":null}', '{"a":"b"}'],
  ["{}", '{"a":{"bb":{"ccc":null}}}', '{"a":{"bb":{}}}'],
];

function read(text: string): Json {
  const value = readJson(text);
  if (!value.ok) throw new Error(value.error.message);
  return value.value;
}

describe("mergePatch (RFC 7396)", () => {
  it.each(APPENDIX_A)("%s patched with %s is %s", (original, patch, result) => {
    const target = read(original);
    const before = JSON.stringify(target);
    expect(mergePatch(target, read(patch))).toEqual(read(result));
    // The target is not changed in place.
    expect(JSON.stringify(target)).toBe(before);
  });

  it("keeps a __proto__ member an ordinary member and an integral float a float", () => {
    const merged = mergePatch(read('{"a":1}'), read('{"__proto__":{"x":1},"f":1.0}')) as Record<string, Json>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.keys(merged)).toEqual(["a", "__proto__", "f"]);
    expect(merged.f).toBeInstanceOf(PyFloat);
    expect((merged.f as PyFloat).value).toBe(1);
  });
});
