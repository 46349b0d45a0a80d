import { describe, expect, it } from "vitest";
import { compiled, json } from "./support";

const SCHEMA = compiled(`{
  "type": "object",
  "properties": {
    "amount": {"type": "integer", "minimum": 1, "maximum": 1000},
    "rate": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "currency": {"type": "string", "enum": ["EUR", "USD", "GBP"]},
    "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
    "name": {"type": "string", "minLength": 2, "maxLength": 4},
    "email": {"type": "string", "format": "email"},
    "kind": {"type": "string", "const": "refund"},
    "note": {"type": ["string", "null"]},
    "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "minItems": 1, "maxItems": 2},
    "choice": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}
  },
  "required": ["amount"],
  "additionalProperties": false
}`);

const problem = (text: string) => SCHEMA.describe(json(text));

describe("describe: the pointer and what was expected, never the value", () => {
  it.each([
    ['{"amount": 5}', null],
    ["[]", { pointer: "", expected: "an object" }],
    ["{}", { pointer: "/amount", expected: "a value: the member is required" }],
    ['{"amount": "5"}', { pointer: "/amount", expected: "an integer" }],
    ['{"amount": 5.0}', { pointer: "/amount", expected: "an integer" }],
    ['{"amount": 1001}', { pointer: "/amount", expected: "an integer ≤ 1000" }],
    ['{"amount": 0}', { pointer: "/amount", expected: "an integer ≥ 1" }],
    ['{"amount": 5, "rate": 1}', { pointer: "/rate", expected: "a number < 1" }],
    ['{"amount": 5, "rate": 0}', { pointer: "/rate", expected: "a number > 0" }],
    ['{"amount": 5, "currency": "JPY"}', { pointer: "/currency", expected: 'one of "EUR", "USD", "GBP"' }],
    ['{"amount": 5, "code": "abc"}', { pointer: "/code", expected: "a string matching ^[A-Z]{3}$" }],
    ['{"amount": 5, "name": "a"}', { pointer: "/name", expected: "a string of at least 2 characters" }],
    ['{"amount": 5, "name": "abcde"}', { pointer: "/name", expected: "a string of at most 4 characters" }],
    ['{"amount": 5, "email": "nope"}', { pointer: "/email", expected: "a string in the format email" }],
    ['{"amount": 5, "kind": "sale"}', { pointer: "/kind", expected: 'the value "refund"' }],
    ['{"amount": 5, "note": 3}', { pointer: "/note", expected: "a string or null" }],
    ['{"amount": 5, "tags": []}', { pointer: "/tags", expected: "an array of at least 1 items" }],
    ['{"amount": 5, "tags": ["a", "b", "c"]}', { pointer: "/tags", expected: "an array of at most 2 items" }],
    ['{"amount": 5, "tags": ["a", "abcd"]}', { pointer: "/tags/1", expected: "a string of at most 3 characters" }],
    [
      '{"amount": 5, "choice": "x"}',
      { pointer: "/choice", expected: "a value matching one of the 2 alternatives of its schema" },
    ],
    ['{"amount": 5, "a/b~c": 1}', { pointer: "/a~1b~0c", expected: "no such member: the schema does not declare it" }],
  ])("%s → %j", (text, expected) => {
    expect(problem(text)).toEqual(expected);
  });

  it("shows an undeclared member's name bounded, its hidden characters escaped", () => {
    expect(problem(`{"amount": 5, "pay\\u202eto": 1}`)).toEqual({
      pointer: "/pay⟨U+202E⟩to",
      expected: "no such member: the schema does not declare it",
    });
    expect(problem(`{"amount": 5, "${"x".repeat(40)}": 1}`)).toEqual({
      pointer: `/${"x".repeat(32)}…`,
      expected: "no such member: the schema does not declare it",
    });
  });

  it("lists at most eight enum members", () => {
    const many = compiled(`{"type": "integer", "enum": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}`);
    expect(many.describe(json("11"))).toEqual({ pointer: "", expected: "one of 1, 2, 3, 4, 5, 6, 7, 8 (and 2 more)" });
  });
});
