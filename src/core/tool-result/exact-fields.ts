/**
 * The reference's `_exact_fields`: an object must have exactly the listed keys, and the
 * error text names what is missing and what is extra, sorted by code point.
 * @module
 */
import { isPlainObject, sameKeys } from "./text-rules";
import { pySortedListRepr } from "./python-repr";

/** Pushes the reference's message and answers false unless `value` has exactly `expected` keys. */
export function exactFields(
  value: unknown,
  expected: readonly string[],
  label: string,
  errors: string[],
): value is Record<string, unknown> {
  if (!isPlainObject(value)) {
    errors.push(`${label} must be an object`);
    return false;
  }
  if (sameKeys(value, expected)) return true;
  const actual = Object.keys(value);
  const missing = expected.filter((key) => !Object.hasOwn(value, key));
  const extra = actual.filter((key) => !expected.includes(key));
  errors.push(`${label} fields do not match: missing=${pySortedListRepr(missing)}, extra=${pySortedListRepr(extra)}`);
  return false;
}
