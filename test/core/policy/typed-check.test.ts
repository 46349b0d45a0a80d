import { describe, expect, it } from "vitest";
import { argsShape, checkPolicyTypes, compilePolicy } from "../../../src/core/policy";
import type { JsonObject } from "../../../src/core/json";

const INPUT: JsonObject = {
  type: "object",
  properties: {
    customer: { type: "string", maxLength: 8 },
    amount: { type: "integer", minimum: 1 },
    price: { type: "number" },
    urgent: { type: "boolean" },
    tags: { type: "array", items: { type: "string" }, maxItems: 4 },
    lines: { type: "array", items: { type: "object", properties: { sku: { type: "string" } } }, maxItems: 4 },
    note: { type: ["string", "null"] },
    address: { type: "object", properties: { country: { type: "string" } } },
  },
  required: ["customer", "amount"],
  additionalProperties: false,
};

describe("argsShape", () => {
  it("declares each property with the CEL type its values convert to", () => {
    expect(argsShape(INPUT)).toEqual({
      customer: "string",
      amount: "int",
      price: "dyn",
      urgent: "bool",
      tags: "list<string>",
      lines: "list<dyn>",
      note: "dyn",
      address: { country: "string" },
    });
  });

  it("keeps a property named __proto__ an ordinary field", () => {
    const shape = argsShape({ type: "object", properties: JSON.parse('{"__proto__": {"type": "integer"}}') });
    expect(Object.getOwnPropertyNames(shape)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(shape)).toBe(Object.prototype);
  });
});

describe("checkPolicyTypes", () => {
  it.each([
    ["args.amount > 100"],
    ['args.customer == "acme" && args.urgent'],
    ['has(args.address) && args.address.country == "FR"'],
    ['args.tags.exists(t, t == "vip")'],
    ["args.price > 10"],
    ['args.lines.all(l, l.sku != "")'],
    ['args["amount"] < now'],
    // Evaluation compares an int with a double by value; so does the check.
    ["args.amount == 100.0 || 1.5 != args.amount"],
  ])("accepts %j", (source) => {
    expect(compilePolicy(source, "approval").ok).toBe(true);
    expect(checkPolicyTypes(source, INPUT)).toBe(null);
  });

  it.each([
    // Positions are code points from 0, counted by hand.
    ["args.amout > 100", 5, "No such key: amout"],
    ['args["amout"] > 100', 0, "No such key: amout"],
    ["args.customer > 5", 0, "no such overload: string > int"],
    ['args.amount == "100"', 0, "no such overload: int == string"],
    ['args.address.city == "Paris"', 13, "No such key: city"],
    ["args.urgent == 1", 0, "no such overload: bool == int"],
  ])("refuses %j at %i: %s", (source, position, summary) => {
    expect(compilePolicy(source, "approval").ok).toBe(true);
    expect(checkPolicyTypes(source, INPUT)).toEqual({
      position,
      message: `${summary} (checked against the tool's input schema)`,
    });
  });

  it("refuses `in` on the declared arguments, and names has() instead", () => {
    expect(checkPolicyTypes('"cc" in args', INPUT)).toEqual({
      position: 0,
      message:
        "no such overload: string in args (checked against the tool's input schema); test an argument with has(args.name)",
    });
  });

  it("refuses a rule that answers a declared non-boolean", () => {
    expect(checkPolicyTypes("args.amount", INPUT)).toEqual({
      position: 0,
      message: "the expression must answer a bool, not int (checked against the tool's input schema)",
    });
  });

  it("counts the position in code points", () => {
    // "😀" is one code point and two UTF-16 units: `amout` starts at code point 19 (UTF-16 index 20).
    expect(checkPolicyTypes('"😀" == "x" || args.amout > 1', INPUT)).toEqual({
      position: 19,
      message: "No such key: amout (checked against the tool's input schema)",
    });
  });
});
