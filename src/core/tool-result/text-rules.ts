/**
 * Small predicates on text shared by every check: Python's strip and code-point length
 * decide what counts as an empty or over-long identifier.
 * @module
 */
import { codePointLength, pyStrip } from "../json";
import { MAX_IDENTIFIER_CHARS } from "./constants";

/** Python `isinstance(v, str) and bool(v.strip())`. */
export function isNonemptyString(value: unknown): value is string {
  if (typeof value !== "string") return false;
  // A printable ASCII first character is not whitespace, so the stripped text keeps it.
  const first = value.charCodeAt(0);
  return (first > 0x20 && first < 0x7f) || pyStrip(value).length > 0;
}

/** A non-empty string of at most 255 code points. */
export function isBoundedIdentifier(value: unknown): value is string {
  // At most 255 UTF-16 units is at most 255 code points: count them only for longer text.
  return (
    isNonemptyString(value) && (value.length <= MAX_IDENTIFIER_CHARS || codePointLength(value) <= MAX_IDENTIFIER_CHARS)
  );
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
  // Counting own keys in place saves the array Object.keys would allocate on every check.
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key)) count++;
  if (count !== expected.length) return false;
  for (let i = 0; i < expected.length; i++) if (!Object.hasOwn(value, expected[i] as string)) return false;
  return true;
}
