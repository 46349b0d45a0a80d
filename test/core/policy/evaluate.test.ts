import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PyFloat, readJson, type JsonObject } from "../../../src/core/json";
import { compilePolicy, type CompiledPolicy, type PolicyVariables } from "../../../src/core/policy";

function policy(source: string): CompiledPolicy {
  const compiled = compilePolicy(source, "authorize");
  if (!compiled.ok) throw new Error(`${source}: ${compiled.error.message}`);
  return compiled.value;
}

const BASE: PolicyVariables = {
  principal: { subject_id: "alice", roles: ["support", "billing"], claims: { org: "acme", level: 3 } },
  args: {},
  tool: "send_email",
  consumer: "mine",
  now: 1_800_000_000, // 2027-01-15T08:00:00Z, a Friday
};

function withArgs(args: JsonObject): PolicyVariables {
  return { ...BASE, args };
}

function run(source: string, vars: PolicyVariables): unknown {
  const result = policy(source).evaluate(vars);
  return result.ok ? result.value : result.error;
}

describe("the typical policies", () => {
  it.each<[string, PolicyVariables, boolean]>([
    ['"support" in principal.roles', BASE, true],
    ['"support" in principal.roles', { ...BASE, principal: { ...BASE.principal, roles: ["billing"] } }, false],
    ['"support" in principal.roles', { ...BASE, principal: { ...BASE.principal, roles: [] } }, false],
    ['"support" in principal.roles', { ...BASE, principal: { ...BASE.principal, roles: ["Support"] } }, false],
    ["args.amount > 100", withArgs({ amount: 150 }), true],
    ["args.amount > 100", withArgs({ amount: 100 }), false],
    ["args.amount > 100", withArgs({ amount: 101 }), true],
    ["args.amount > 100", withArgs({ amount: -5 }), false],
    ["principal.subject_id == args.owner", withArgs({ owner: "alice" }), true],
    ["principal.subject_id == args.owner", withArgs({ owner: "bob" }), false],
    ["principal.subject_id == args.owner", withArgs({ owner: 1 }), false],
    ["now < 1900000000", BASE, true],
    ["now < 1900000000", { ...BASE, now: 1_899_999_999 }, true],
    ["now < 1900000000", { ...BASE, now: 1_900_000_000 }, false],
    ['tool == "send_email"', BASE, true],
    ['tool == "send_email"', { ...BASE, tool: "send_emails" }, false],
    ['consumer == "mine" && principal.claims.org == "acme" && principal.claims.level >= 3', BASE, true],
    ['args.cc.all(a, a.endsWith("@example.com"))', withArgs({ cc: ["a@example.com", "b@example.com"] }), true],
    ['args.cc.all(a, a.endsWith("@example.com"))', withArgs({ cc: ["a@example.com", "b@example.org"] }), false],
    ['args.cc.all(a, a.endsWith("@example.com"))', withArgs({ cc: [] }), true],
    [
      'args.items.exists(i, i.sku == "X-1" && i.qty > 2)',
      withArgs({
        items: [
          { sku: "X-1", qty: 1 },
          { sku: "X-1", qty: 3 },
        ],
      }),
      true,
    ],
    ["args.items.map(i, i.qty).exists_one(q, q > 2)", withArgs({ items: [{ qty: 3 }, { qty: 4 }] }), false],
    ["args.items.filter(i, i.qty > 2).size() == 1", withArgs({ items: [{ qty: 1 }, { qty: 4 }] }), true],
  ])("%s → %s", (source, vars, expected) => {
    expect(policy(source).evaluate(vars)).toEqual({ ok: true, value: expected });
  });

  it("reads the calendar of now in UTC", () => {
    // 2027-01-15T08:00:00Z: CEL counts days of the week from Sunday = 0 and months from 0.
    expect(run("timestamp(now).getDayOfWeek() == 5 && timestamp(now).getHours() == 8", BASE)).toBe(true);
    expect(
      run(
        "timestamp(now).getFullYear() == 2027 && timestamp(now).getMonth() == 0 && timestamp(now).getDate() == 15",
        BASE,
      ),
    ).toBe(true);
    expect(run('timestamp(now) < timestamp("2027-01-15T08:00:01Z")', BASE)).toBe(true);
  });
});

describe("int and double stay apart", () => {
  // The strict reader reads `100` as an int and `100.0` as a PyFloat (a double).
  const amount = (text: string): PolicyVariables => {
    const read = readJson(new TextEncoder().encode(`{"amount": ${text}}`));
    if (
      !read.ok ||
      typeof read.value !== "object" ||
      read.value === null ||
      Array.isArray(read.value) ||
      read.value instanceof PyFloat
    )
      throw new Error(text);
    return withArgs(read.value);
  };

  it.each([
    // CEL compares numbers across int and double by value (cel-spec, "Numeric values").
    ["args.amount > 100", "100", false],
    ["args.amount > 100", "100.0", false],
    ["args.amount > 100", "100.5", true],
    ["args.amount > 100", "1e3", true],
    ["args.amount >= 100.0", "100", true],
    ["args.amount == 100", "100", true],
    ["args.amount == 100", "100.0", true],
    ["args.amount == 100.0", "100", true],
    ["type(args.amount) == int", "100", true],
    ["type(args.amount) == int", "100.0", false],
    ["type(args.amount) == double", "100.0", true],
    ["type(args.amount) == double", "1e2", true],
    ["args.amount + 1 == 101", "100", true],
    ["args.amount + 1.0 == 101.0", "100.0", true],
    ["args.amount == 9007199254740991", "9007199254740991", true],
  ])("%s with %s → %s", (source, text, expected) => {
    expect(run(source, amount(text))).toBe(expected);
  });

  it("has no implicit conversion in arithmetic", () => {
    expect(run("args.amount + 1 == 101", amount("100.0"))).toEqual({
      code: "EVALUATION_ERROR",
      message: "no such overload: dyn<double> + int (at 0)",
    });
  });

  it("reads bigints inside the int64 range", () => {
    expect(run("args.n > 0", withArgs({ n: 2n ** 62n }))).toBe(true);
    expect(run("args.n > 0", withArgs({ n: 2n ** 63n }))).toEqual({
      code: "EVALUATION_ERROR",
      message: "args.n is outside the CEL int range",
    });
  });

  it("agrees with JavaScript's numeric order on generated ints and doubles", () => {
    const program = policy("args.a > args.b");
    const number = fc.oneof(
      fc.integer({ min: -1e6, max: 1e6 }),
      fc.integer({ min: -1e6, max: 1e6 }).map((n) => new PyFloat(n)),
      fc.double({ min: -1e6, max: 1e6, noNaN: true }).filter((x) => !Number.isInteger(x)),
    );
    const value = (x: number | PyFloat): number => (x instanceof PyFloat ? x.value : x);
    fc.assert(
      fc.property(number, number, (a, b) => {
        expect(program.evaluate(withArgs({ a, b }))).toEqual({ ok: true, value: value(a) > value(b) });
      }),
    );
  });
});

describe("missing keys and runtime errors answer failures", () => {
  it.each([
    ["args.amount > 100", {}, { code: "EVALUATION_ERROR", message: "No such key: amount (at 5)" }],
    ["principal.subject_id == args.owner", {}, { code: "EVALUATION_ERROR", message: "No such key: owner (at 29)" }],
    ["args.x.y == 1", { x: "s" }, { code: "EVALUATION_ERROR", message: "No such key: y (at 7)" }],
    ["args.n / 0 == 1", { n: 1 }, { code: "EVALUATION_ERROR", message: "division by zero (at 0)" }],
    [
      "args.amount > 100",
      { amount: "150" },
      { code: "EVALUATION_ERROR", message: "no such overload: dyn<string> > int (at 0)" },
    ],
    [
      "args.flag",
      { flag: 1 },
      { code: "NOT_BOOLEAN", message: "the expression answered a value of type int, not a bool" },
    ],
    [
      "args.flag",
      { flag: "yes" },
      { code: "NOT_BOOLEAN", message: "the expression answered a value of type string, not a bool" },
    ],
    [
      "args.flag",
      { flag: null },
      { code: "NOT_BOOLEAN", message: "the expression answered a value of type null, not a bool" },
    ],
    [
      "args.flag",
      { flag: [true] },
      { code: "NOT_BOOLEAN", message: "the expression answered a value of type list, not a bool" },
    ],
  ])("%s over %j", (source, args, failure) => {
    expect(run(source, withArgs(args as JsonObject))).toEqual(failure);
  });

  it.each([
    // CEL's logical operators absorb an error when the other side decides (cel-spec, "Logical operators").
    ["args.missing > 1 || true", true],
    ["true || args.missing > 1", true],
    ["args.missing > 1 && false", false],
    ["has(args.missing) && args.missing > 1", false],
    ['"missing" in args && args.missing > 1', false],
    ["args.flag", true],
  ])("%s → %s", (source, expected) => {
    expect(run(source, withArgs({ flag: true }))).toBe(expected);
  });
});

describe("object keys are ordinary keys", () => {
  it("reads constructor and __proto__ like any key", () => {
    const read = readJson(new TextEncoder().encode('{"constructor": "x", "__proto__": 1, "toString": 2}'));
    if (
      !read.ok ||
      typeof read.value !== "object" ||
      read.value === null ||
      Array.isArray(read.value) ||
      read.value instanceof PyFloat
    )
      throw new Error("read");
    const vars = withArgs(read.value);
    expect(run('args.constructor == "x"', vars)).toBe(true);
    expect(run('args["__proto__"] == 1 && args.toString == 2', vars)).toBe(true);
    expect(run("size(args) == 3", vars)).toBe(true);
    expect(run('"hasOwnProperty" in args', vars)).toBe(false);
  });
});
