import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy, type CompiledPolicy, type PolicyVariables } from "../../../src/core/policy";

function policy(source: string): CompiledPolicy {
  const compiled = compilePolicy(source, "authorize");
  if (!compiled.ok) throw new Error(`${source}: ${compiled.error.message}`);
  return compiled.value;
}

const READS_ALL = policy(
  'principal.subject_id != "" && size(principal.roles) >= 0 && size(principal.claims) >= 0 && size(args) >= 0 && tool != consumer && now >= 0',
);

const BASE = {
  principal: { subject_id: "alice", roles: ["r"], claims: {} },
  args: {},
  tool: "t",
  consumer: "c",
  now: 1,
};

/** Variables as a hostile caller might pass them: the types say nothing at run time. */
function hostile(overrides: Record<string, unknown>): PolicyVariables {
  return Object.assign(Object.create(null), BASE, overrides);
}

function failure(vars: PolicyVariables): unknown {
  const result = READS_ALL.evaluate(vars);
  return result.ok ? result.value : result.error;
}

const error = (message: string) => ({ code: "EVALUATION_ERROR", message });

describe("evaluation never throws on hostile variables", () => {
  it("reads the well-formed baseline", () => {
    expect(failure(hostile({}))).toBe(true);
  });

  it.each<[string, () => Record<string, unknown>, unknown]>([
    ["a function in args", () => ({ args: { f: () => 1 } }), error("args.f is not a JSON value")],
    ["undefined in args", () => ({ args: { u: undefined } }), error("args.u is not a JSON value")],
    ["a Date in args", () => ({ args: { when: new Date(0) } }), error("args.when is not a JSON value")],
    [
      "a class instance in a list",
      () => ({ args: { l: [1, new (class Thing {})()] } }),
      error("args.l[1] is not a JSON value"),
    ],
    ["a symbol under an odd key", () => ({ args: { "a-b": Symbol("s") } }), error('args["a-b"] is not a JSON value')],
    [
      "NaN",
      () => ({ args: { x: Number.NaN } }),
      error("args.x is not a JSON number a policy can read (an integer beyond 2^53-1, NaN or infinite)"),
    ],
    [
      "Infinity",
      () => ({ args: { x: Infinity } }),
      error("args.x is not a JSON number a policy can read (an integer beyond 2^53-1, NaN or infinite)"),
    ],
    [
      "an unsafe integer",
      () => ({ args: { x: 2 ** 60 } }),
      error("args.x is not a JSON number a policy can read (an integer beyond 2^53-1, NaN or infinite)"),
    ],
    ["args that are a list", () => ({ args: [1] }), error("args is not a JSON object")],
    ["args that are null", () => ({ args: null }), error("args is not a JSON object")],
    ["args that are a Map", () => ({ args: new Map() }), error("args is not a JSON object")],
    [
      "a principal without subject",
      () => ({ principal: { roles: [], claims: {} } }),
      error("principal.subject_id is not a string"),
    ],
    [
      "roles that are not strings",
      () => ({ principal: { subject_id: "a", roles: ["a", 1], claims: {} } }),
      error("principal.roles is not a list of strings"),
    ],
    [
      "claims that are a string",
      () => ({ principal: { subject_id: "a", roles: [], claims: "x" } }),
      error("principal.claims is not a JSON object"),
    ],
    ["a principal that is a number", () => ({ principal: 7 }), error("principal is not an object")],
    ["a tool that is not a string", () => ({ tool: 7 }), error("tool is not a string")],
    ["a fractional now", () => ({ now: 1.5 }), error("now is not an integer number of Unix seconds")],
    ["a string now", () => ({ now: "1" }), error("now is not an integer number of Unix seconds")],
    [
      "a getter that throws",
      () => ({
        args: Object.defineProperty({}, "x", {
          enumerable: true,
          get: () => {
            throw new Error("boom");
          },
        }),
      }),
      error("boom"),
    ],
    [
      "a proxy whose keys throw",
      () => ({
        args: new Proxy(
          {},
          {
            ownKeys: () => {
              throw new Error("no keys");
            },
          },
        ),
      }),
      error("no keys"),
    ],
  ])("%s", (_name, overrides, expected) => {
    expect(failure(hostile(overrides()))).toEqual(expected);
  });

  it("stops at a cycle", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(failure(hostile({ args: cycle }))).toEqual(error(`args${".self".repeat(33)} is nested deeper than 32`));
  });

  it("refuses variables that are not an object", () => {
    expect(Reflect.apply(READS_ALL.evaluate, READS_ALL, [null])).toEqual({
      ok: false,
      error: error("the variables are not an object"),
    });
  });

  it("answers a result for any generated value in any variable", () => {
    const names = ["principal", "args", "tool", "consumer", "now"] as const;
    const anything = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withTypedArray: true,
      withSparseArray: true,
      withObjectString: true,
    });
    fc.assert(
      fc.property(fc.constantFrom(...names), anything, (name, value) => {
        const result = READS_ALL.evaluate(hostile({ [name]: value }));
        if (result.ok) expect(typeof result.value).toBe("boolean");
        else expect(["COST_EXCEEDED", "NOT_BOOLEAN", "EVALUATION_ERROR"]).toContain(result.error.code);
      }),
      { numRuns: 500 },
    );
  });

  it("answers a result for generated JSON arguments under policies that index them", () => {
    const program = policy('args.a.b > 1 || args["x"][0] == "y" || args.l.exists(v, v == args.a) || size(args.s) > 2');
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom("a", "b", "x", "l", "s"), fc.jsonValue({ maxDepth: 3 })), (args) => {
        const result = program.evaluate(hostile({ args }));
        if (result.ok) expect(typeof result.value).toBe("boolean");
        else expect(["NOT_BOOLEAN", "EVALUATION_ERROR"]).toContain(result.error.code);
      }),
      { numRuns: 500 },
    );
  });
});
