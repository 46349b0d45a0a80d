/**
 * Scalar instances: the type tests (the reference's int/float distinction and the JSON domain),
 * and the keyword readers shared by the compilers.
 * @module
 */
import { JSON_DOMAIN, isPlainObject } from "../json/domain";
import { codePointLength, isWellFormed } from "../json/python-text";
import { PyFloat } from "../json/value";
import type { JsonObject } from "../json/value";
import { refuse, segment } from "./types";

/** The seven types of the subset. */
export const SCHEMA_TYPES = ["object", "array", "string", "integer", "number", "boolean", "null"] as const;

/** One of {@link SCHEMA_TYPES}. */
export type SchemaType = (typeof SCHEMA_TYPES)[number];

const MAX_SAFE = BigInt(JSON_DOMAIN.maxSafeInteger);

/**
 * An `integer` instance: a safe integral number that is not a {@link PyFloat} (the JSON text `1.0`
 * is a float, as in the reference), or a bigint in the safe range.
 */
export function isInteger(value: unknown): value is number | bigint {
  if (typeof value === "number") return Number.isInteger(value) && Math.abs(value) <= JSON_DOMAIN.maxSafeInteger;
  return typeof value === "bigint" && value <= MAX_SAFE && value >= -MAX_SAFE;
}

/** The numeric value of a `number` instance (integers, finite non-integers, PyFloats), or null. */
export function numericValue(value: unknown): number | bigint | null {
  if (value instanceof PyFloat) return value.value;
  if (typeof value === "number")
    return Number.isFinite(value) && (!Number.isInteger(value) || isInteger(value)) ? value : null;
  return isInteger(value) ? value : null;
}

/** A `string` instance inside the JSON domain: well-formed, at most 65,536 code points. */
export function isDomainString(value: unknown): value is string {
  if (typeof value !== "string") return false;
  if (value.length > JSON_DOMAIN.maxStringCodePoints && codePointLength(value) > JSON_DOMAIN.maxStringCodePoints)
    return false;
  return isWellFormed(value);
}

/** A plain JSON object (not an array, not a {@link PyFloat}). */
export function isJsonObject(value: unknown): value is JsonObject {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof PyFloat) &&
    isPlainObject(value)
  );
}

/** True when the value is an instance of the type (an object: plain, not an array). */
export function hasType(type: SchemaType, value: unknown): boolean {
  switch (type) {
    case "object":
      return isJsonObject(value);
    case "array":
      return Array.isArray(value);
    case "string":
      return isDomainString(value);
    case "integer":
      return isInteger(value);
    case "number":
      return numericValue(value) !== null;
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
  }
}

/** Reads an optional non-negative integer keyword (a plain integer, not `1.0`) of at most `max`. */
export function readCount(node: JsonObject, key: string, pointer: string, max: number): number | undefined {
  if (!Object.hasOwn(node, key)) return undefined;
  const value = node[key];
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > max) {
    refuse(pointer + segment(key), `"${key}" must be an integer from 0 to ${max}`);
  }
  return value;
}

/** Reads an optional numeric bound (`1`, `1.5` or `1.0`). */
export function readBound(node: JsonObject, key: string, pointer: string): number | undefined {
  if (!Object.hasOwn(node, key)) return undefined;
  const value = node[key];
  if (value instanceof PyFloat) return value.value;
  if (typeof value !== "number") refuse(pointer + segment(key), `"${key}" must be a number`);
  return value;
}

/** Reads an optional string keyword of at most `max` code points. */
export function readText(node: JsonObject, key: string, pointer: string, max: number): string | undefined {
  if (!Object.hasOwn(node, key)) return undefined;
  const value = node[key];
  if (typeof value !== "string" || codePointLength(value) > max) {
    refuse(pointer + segment(key), `"${key}" must be a string of at most ${max} code points`);
  }
  return value;
}
