/**
 * Small predicates on text shared by every check: Python's strip and code-point length
 * decide what counts as an empty or over-long identifier.
 * @module
 */
import { codePointLength, pyStrip } from "../json";
import { MAX_IDENTIFIER_CHARS } from "./constants";

/** Python `isinstance(v, str) and bool(v.strip())`. */
export function isNonemptyString(value: unknown): value is string {
  return typeof value === "string" && pyStrip(value).length > 0;
}

/** A non-empty string of at most 255 code points. */
export function isBoundedIdentifier(value: unknown): value is string {
  return isNonemptyString(value) && codePointLength(value) <= MAX_IDENTIFIER_CHARS;
}

/** `true` for a plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  // A PyFloat or any other class instance is not a JSON object.
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `true` when two sets of keys are equal. */
export function sameKeys(value: Record<string, unknown>, expected: readonly string[]): boolean {
  const keys = Object.keys(value);
  return keys.length === expected.length && expected.every((key) => Object.hasOwn(value, key));
}
