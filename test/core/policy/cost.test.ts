import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy, POLICY_LIMITS, type CompiledPolicy, type PolicyVariables } from "../../../src/core/policy";
import { estimateCost } from "../../../src/core/policy/cost";
import { policyEnvironment } from "../../../src/core/policy/environment";

const TOO_COSTLY = {
  position: null,
  message:
    "the expression's estimated cost exceeds 500000 steps for variables of size 256 (nested comprehensions or repeated concatenation?)",
};

function policy(source: string): CompiledPolicy {
  const compiled = compilePolicy(source, "authorize");
  if (!compiled.ok) throw new Error(`${source}: ${compiled.error.message}`);
  return compiled.value;
}

function vars(args: PolicyVariables["args"], roles: string[] = []): PolicyVariables {
  return { principal: { subject_id: "alice", roles, claims: {} }, args, tool: "t", consumer: "c", now: 0 };
}

/** `[1,2,3].map(x0, [1,2,3].map(x1, … 1))`, `depth` comprehensions deep. */
function nestedMaps(depth: number): string {
  let body = "1";
  for (let i = depth - 1; i >= 0; i--) body = `[1, 2, 3].map(x${i}, ${body})`;
  return `${body} != []`;
}

/** `["a"].map(s, s + s)` chained `steps` times: the string doubles at each step. */
function doublings(steps: number): string {
  return `["a"]${".map(s, s + s)".repeat(steps)}[0].size() > 0`;
}

/** `[1].map(x, [x, x])` chained `steps` times, compared with itself: a deep equality over 2^steps leaves. */
function deepTwins(steps: number): string {
  const side = `[1]${".map(x, [x, x])".repeat(steps)}`;
  return `${side} == ${side}`;
}

function timed<T>(work: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = work();
  return { value, ms: performance.now() - start };
}

describe("CEL bombs are refused when the policy is defined", () => {
  it.each([
    ["nested comprehensions over literals", nestedMaps(12)],
    ["a string doubled at each step", doublings(20)],
    ["a deep equality over a doubled list", deepTwins(20)],
    ["three comprehensions nested over the arguments", "args.l.all(x, args.l.all(y, args.l.all(z, x == y)))"],
    ["a list concatenated with itself 200 times", `${"args.l + ".repeat(200)}[] == []`],
  ])("%s", (_name, source) => {
    expect(compilePolicy(source, "authorize")).toEqual({ ok: false, error: TOO_COSTLY });
  });

  it("accepts the same shapes when they stay small, and evaluates them", () => {
    expect(policy(nestedMaps(6)).evaluate(vars({}))).toEqual({ ok: true, value: true });
    expect(policy(doublings(10)).evaluate(vars({}))).toEqual({ ok: true, value: true });
    expect(policy(deepTwins(8)).evaluate(vars({}))).toEqual({ ok: true, value: true });
  });
});

describe("a policy whose cost grows with its inputs is stopped before it runs", () => {
  it("affords exactly its input bound", () => {
    const quadratic = policy("args.l.all(x, x in args.l)");
    const bound = quadratic.maxInputSize;
    expect(Number.isFinite(bound) && bound >= POLICY_LIMITS.compileInputSize).toBe(true);
    // args = {"l": [n ints]} measures 1 (object) + 2 (key "l") + 1 (list) + n (ints).
    const ints = (n: number) => ({ l: Array.from({ length: n }, (_, i) => i) });
    expect(quadratic.evaluate(vars(ints(bound - 4)))).toEqual({ ok: true, value: true });
    expect(quadratic.evaluate(vars(ints(bound - 3)))).toEqual({
      ok: false,
      error: { code: "COST_EXCEEDED", message: `args is larger than this policy affords (size limit ${bound})` },
    });
  });

  it.each([
    ["args.l.all(x, x in args.l)", () => vars({ l: Array.from({ length: 1_000_000 }, (_, i) => i) })],
    ['args.l.exists(x, x.contains("needle"))', () => vars({ l: Array.from({ length: 100_000 }, () => "haystack") })],
    [
      '"support" in principal.roles',
      () =>
        vars(
          {},
          Array.from({ length: 1_000_000 }, () => "r"),
        ),
    ],
    ['args.s.lowerAscii().contains("x")', () => vars({ s: "A".repeat(10_000_000) })],
  ])("%s over huge inputs answers COST_EXCEEDED quickly", (source, input) => {
    const program = policy(source);
    const variables = input();
    const { value, ms } = timed(() => program.evaluate(variables));
    expect(value.ok === false && value.error.code).toBe("COST_EXCEEDED");
    expect(ms < 1000).toBe(true);
  });

  it("runs the most expensive accepted shapes at their bound within a bounded time", () => {
    const cases: [string, (n: number) => PolicyVariables][] = [
      ["args.l.exists(x, x == -1)", (n) => vars({ l: Array.from({ length: n - 4 }, (_, i) => i) })],
      ["args.l.all(x, x in args.l)", (n) => vars({ l: Array.from({ length: n - 4 }, (_, i) => i) })],
      [
        'principal.roles.exists(r, r.startsWith("adm"))',
        (n) =>
          vars(
            {},
            Array.from({ length: Math.floor(n / 2) - 2 }, () => ""),
          ),
      ],
      [nestedMaps(9), () => vars({})],
    ];
    for (const [source, input] of cases) {
      const program = policy(source);
      const size = Number.isFinite(program.maxInputSize) ? program.maxInputSize : 0;
      const variables = input(size);
      const { value, ms } = timed(() => program.evaluate(variables));
      expect(value.ok).toBe(true);
      expect({ source, slow: ms > 1000 }).toEqual({ source, slow: false });
    }
  });
});

describe("the estimate", () => {
  const ast = (source: string) => policyEnvironment().parse(source).ast;

  it("never decreases when the inputs grow", () => {
    const sources = [
      "args.l.all(x, x in args.l)",
      '"a" in principal.roles',
      "args.s + args.s == tool",
      nestedMaps(3),
      "args.l.map(x, [x, x]) == []",
    ];
    fc.assert(
      fc.property(fc.constantFrom(...sources), fc.nat(100_000), fc.nat(100_000), (source, a, b) => {
        const [small, large] = a <= b ? [a, b] : [b, a];
        expect(estimateCost(ast(source), small) <= estimateCost(ast(source), large)).toBe(true);
      }),
    );
  });

  it("does not depend on the inputs when the policy reads none of a variable's size", () => {
    expect(policy("now < 1900000000").maxInputSize).toBe(Infinity);
    expect(policy(nestedMaps(3)).maxInputSize).toBe(Infinity);
    expect(Number.isFinite(policy('tool == "x"').maxInputSize)).toBe(true);
  });
});
