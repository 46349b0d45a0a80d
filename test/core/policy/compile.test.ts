import { describe, expect, it } from "vitest";
import { compilePolicy, POLICY_LIMITS, type PolicyRefusal } from "../../../src/core/policy";

/** The refusal of a source (fails the test when it compiles). */
function refusal(source: string): PolicyRefusal {
  const compiled = compilePolicy(source, "authorize");
  if (compiled.ok) throw new Error(`compiled: ${source}`);
  return compiled.error;
}

// Positions are counted by hand in the sources below (code points from 0).
describe("compilePolicy refuses syntax errors at their position", () => {
  it.each([
    ["args.amount >", 13, "Unexpected token: EOF"],
    ["args.amount > > 1", 14, "Unexpected token: GT"],
    ["", 0, "Unexpected token: EOF"],
    ["   ", 3, "Unexpected token: EOF"],
    [")", 0, "Unexpected token: RPAREN"],
    ['tool == "send_email', 8, "Unterminated string"],
    ["tool == 'a' ## 1", 12, "Unexpected character: #"],
    ["args.amount > 100 &&", 20, "Unexpected token: EOF"],
    ["principal.roles.exists(1, true)", 23, "exists(var, predicate) invalid predicate iteration variable"],
  ])("%j → %i %s", (source, position, message) => {
    expect(refusal(source)).toEqual({ position, message });
  });

  it("counts the position in code points, not UTF-16 units", () => {
    // "😀" is one code point and two UTF-16 units: `x` is the 8th code point (index 7).
    expect(refusal('"😀" == x')).toEqual({ position: 7, message: "Unknown variable: x" });
  });
});

describe("compilePolicy refuses type errors at their position", () => {
  it.each([
    ["foo == 1", 0, "Unknown variable: foo"],
    ['tool == "x" || user.admin', 15, "Unknown variable: user"],
    ['1 + "a" == 2', 0, "no such overload: int + string"],
    ["principal.nope == 1", 10, "No such key: nope"],
    ['principal.roles == "admin"', 0, "no such overload: list<string> == string"],
    ["now < 1.5 && now + tool == 1", 13, "no such overload: int + string"],
    ['[1, "a"] == []', 4, "List elements must have the same type, expected type 'int' but found 'string'"],
  ])("%j → %i %s", (source, position, message) => {
    expect(refusal(source)).toEqual({ position, message });
  });
});

describe("compilePolicy refuses results that are not booleans", () => {
  it.each([
    ["1", 0, "int"],
    ["  tool", 2, "string"],
    ["principal.roles", 0, "list<string>"],
    ['{"a": 1}', 0, "map<string, int>"],
    ["now + 1", 0, "int"],
  ])("%j → %i %s", (source, position, type) => {
    expect(refusal(source)).toEqual({ position, message: `the expression must answer a bool, not ${type}` });
  });

  it("accepts a dyn result (checked when evaluated)", () => {
    expect(compilePolicy("args.flag", "approval").ok).toBe(true);
  });
});

describe("compilePolicy refuses functions outside the policy language", () => {
  it.each([
    ['args.email.matches("^a+$")', 11, "the method matches() is not available in policies"],
    ["cel.bind(x, 1, x == 1)", 4, "the method bind() is not available in policies"],
    ['b"{}".json() == {}', 6, "the method json() is not available in policies"],
    ['timestamp(now).getHours("Europe/Paris") == 9', 15, "the method getHours() takes 0 arguments in policies, not 1"],
    ["timestamp(now).getDayOfYear() == 1", 15, "the method getDayOfYear() is not available in policies"],
    ['bytes("a") == b"a"', 0, "the function bytes() is not available in policies"],
    // Its parser takes cubic time on a run of digits: 1,000 of them take about a third of a second.
    ['now < 10 || duration(args.delay) < duration("1h")', 12, "the function duration() is not available in policies"],
    // The first one in the source is named, whatever the nesting.
    ['size(args.a.matches("x").hex()) == 1', 12, "the method matches() is not available in policies"],
  ])("%j → %i %s", (source, position, message) => {
    expect(refusal(source)).toEqual({ position, message });
  });
});

describe("compilePolicy bounds the source", () => {
  it("refuses an expression over the length limit, in code points", () => {
    const longest = `tool == "${"é".repeat(POLICY_LIMITS.maxSourceChars - 10)}"`;
    expect(compilePolicy(longest, "authorize").ok).toBe(true);
    expect(refusal(`${longest} `)).toEqual({
      position: 2048,
      message: "the expression is 2049 characters long; the limit is 2048",
    });
  });

  it("refuses a lone surrogate", () => {
    expect(refusal('tool == "\uD800"')).toEqual({
      position: null,
      message: "the expression is not well-formed Unicode",
    });
  });

  it("refuses nesting beyond the parser's depth", () => {
    const deep = `${"[".repeat(40)}1${"]".repeat(40)} == []`;
    expect(refusal(deep)).toEqual({ position: 32, message: "Exceeded maxDepth (32)" });
  });

  it("refuses a list literal over its element limit", () => {
    const list = `[${Array.from({ length: 257 }, () => "1").join(",")}]`;
    expect(refusal(`1 in ${list}`).message).toBe("Exceeded maxListElements (256)");
  });

  it.each([
    ["!".repeat(2000) + "true", 976, "Exceeded maxAstNodes (1024)"],
    ["-".repeat(2000) + "1 == 1", 976, "Exceeded maxAstNodes (1024)"],
    ["(".repeat(1000), 32, "Exceeded maxDepth (32)"],
    ["a.".repeat(1000), 63, "Exceeded maxDepth (32)"],
    ['"\\u{' + "9".repeat(100), 0, "Unterminated string"],
  ])("refuses the hostile source %#", (source, position, message) => {
    expect(refusal(source)).toEqual({ position, message });
  });
});

describe("compilePolicy accepts the typical policies", () => {
  it.each([
    '"support" in principal.roles',
    "args.amount > 100",
    "principal.subject_id == args.owner",
    "now < 1900000000",
    'tool == "send_email"',
    'has(args.cc) && args.cc.all(a, a.endsWith("@example.com"))',
    'consumer == "mine" && principal.claims.org == "acme"',
    "timestamp(now).getDayOfWeek() in [1, 2, 3, 4, 5]",
    "type(args.amount) == double",
  ])("%s", (source) => {
    const compiled = compilePolicy(source, "authorize");
    expect(compiled.ok && compiled.value.source).toBe(source);
  });

  it("records the use", () => {
    const compiled = compilePolicy("args.amount > 100", "approval");
    expect(compiled.ok && compiled.value.use).toBe("approval");
  });
});
