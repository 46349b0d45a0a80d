/**
 * `enum` and `const`: bounded lists of JSON scalars of the node's own type, compiled to set lookups.
 * Numbers compare by value (`1` and `1.0` are one number); the type test before them keeps
 * `1.0` out of an `integer`.
 * @module
 */
import { codePointLength } from "../json/python-text";
import { PyFloat, type Json, type JsonObject } from "../json/value";
import { SCHEMA_LIMITS } from "./limits";
import { hasType, numericValue, type SchemaType } from "./scalars";
import { literal, oneOf } from "./expected";
import { refuse, segment } from "./types";

/** Which literal keyword a value fails and what it expected, or null. Called once the type test has passed. */
export type LiteralTest = (value: unknown) => readonly ["enum" | "const", () => string] | null;

function isScalar(value: Json): boolean {
  return (
    value === null ||
    typeof value === "string" ||
    typeof value === "boolean" ||
    typeof value === "number" ||
    value instanceof PyFloat
  );
}

/** The membership key: numbers (PyFloat and bigint included) by value, other scalars as they are. */
function keyOf(type: SchemaType, value: unknown): unknown {
  if (type !== "number" && type !== "integer") return value;
  const n = numericValue(value);
  return typeof n === "bigint" ? Number(n) : n;
}

function readLiteral(type: SchemaType, value: Json, pointer: string, what: string): unknown {
  if (!isScalar(value)) refuse(pointer, `${what} must be a JSON scalar`);
  if (!hasType(type, value)) refuse(pointer, `${what} is not of type "${type}"`);
  if (typeof value === "string" && codePointLength(value) > SCHEMA_LIMITS.maxLiteralLength) {
    refuse(pointer, `${what} is longer than ${SCHEMA_LIMITS.maxLiteralLength} code points`);
  }
  return keyOf(type, value);
}

/** Compiles the node's `enum` and `const`, or answers null when it has neither. */
export function compileLiterals(node: JsonObject, pointer: string, type: SchemaType): LiteralTest | null {
  let members: Set<unknown> | null = null;
  if (Object.hasOwn(node, "enum")) {
    const list = node["enum"];
    const at = pointer + segment("enum");
    if (!Array.isArray(list) || list.length === 0 || list.length > SCHEMA_LIMITS.maxEnumValues) {
      refuse(at, `"enum" must be an array of 1 to ${SCHEMA_LIMITS.maxEnumValues} values`);
    }
    members = new Set();
    for (let i = 0; i < list.length; i++) {
      const key = readLiteral(type, list[i] as Json, at + segment(i), `"enum" value`);
      if (members.has(key)) refuse(at + segment(i), `"enum" repeats a value`);
      members.add(key);
    }
  }
  let constant: { key: unknown } | null = null;
  if (Object.hasOwn(node, "const")) {
    constant = { key: readLiteral(type, node["const"] as Json, pointer + segment("const"), `"const"`) };
  }
  if (members === null && constant === null) return null;
  const set = members;
  const fixed = constant;
  const enumMiss = ["enum", () => oneOf(node["enum"] as Json[])] as const;
  const constMiss = ["const", () => `the value ${literal(node["const"] as Json)}`] as const;
  return (value) => {
    const key = keyOf(type, value);
    if (set !== null && !set.has(key)) return enumMiss;
    if (fixed !== null && fixed.key !== key) return constMiss;
    return null;
  };
}
