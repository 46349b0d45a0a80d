import { isWellFormed } from "./python-text";
import { PyFloat } from "./value";

/** Bounds of the portable JSON domain of the Tool Result v2 reference (`_validate_json_domain`). */
export const JSON_DOMAIN = {
  maxDepth: 32,
  maxSafeInteger: 9_007_199_254_740_991,
  maxStringCodePoints: 65_536,
  maxEntries: 1_024,
} as const;

/** Thrown by the canonical writer for a value the reference would refuse to encode: a caller's bug. */
export class JsonDomainError extends Error {
  override readonly name = "JsonDomainError";
}

/** True for `{}`-like objects: prototype `Object.prototype` or `null`. */
export function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** True when a string exceeds 65,536 code points (counted only when it could). */
export function stringTooLong(s: string): boolean {
  if (s.length <= JSON_DOMAIN.maxStringCodePoints) return false;
  let count = 0;
  for (const _ of s) {
    if (++count > JSON_DOMAIN.maxStringCodePoints) return true;
  }
  return false;
}

function typeName(value: unknown): string {
  if (value === undefined) return "NoneType";
  if (typeof value === "object" && value !== null)
    return (value as { constructor?: { name: string } }).constructor?.name ?? "object";
  return typeof value;
}

/**
 * Checks a value against the reference's JSON domain and returns its error text, or null.
 *
 * The walk, the depth rule (root 0; every array item, object key and object value one deeper) and
 * the messages (typos included) are the reference's, so a rejection reads the same on both sides.
 */
export function checkJsonDomain(value: unknown, path = "$", depth = 0): string | null {
  // Values are almost always inside the domain: a walk that builds no paths answers that case.
  if (inJsonDomain(value, depth)) return null;
  return describeOutside(value, path, depth);
}

/** True exactly when {@link checkJsonDomain} would answer null; allocates nothing. */
export function inJsonDomain(value: unknown, depth = 0): boolean {
  if (depth > JSON_DOMAIN.maxDepth) return false;
  switch (typeof value) {
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !(Number.isInteger(value) && Math.abs(value) > JSON_DOMAIN.maxSafeInteger);
    case "bigint":
      return (value < 0n ? -value : value) <= BigInt(JSON_DOMAIN.maxSafeInteger);
    case "string":
      return !stringTooLong(value) && isWellFormed(value);
    case "object": {
      if (value === null || value instanceof PyFloat) return true;
      if (Array.isArray(value)) {
        if (value.length > JSON_DOMAIN.maxEntries) return false;
        for (let i = 0; i < value.length; i++) if (!inJsonDomain(value[i], depth + 1)) return false;
        return true;
      }
      if (!isPlainObject(value)) return false;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      if (keys.length > JSON_DOMAIN.maxEntries) return false;
      // Keys are one level deeper, like values.
      if (keys.length > 0 && depth + 1 > JSON_DOMAIN.maxDepth) return false;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        if (stringTooLong(key) || !isWellFormed(key) || !inJsonDomain(record[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

function describeOutside(value: unknown, path: string, depth: number): string | null {
  if (depth > JSON_DOMAIN.maxDepth) return `${path} exceeds the maximum JSON depth ${JSON_DOMAIN.maxDepth}`;
  if (value === null || typeof value === "boolean") return null;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return `${path} does not allow NaN or Infinity`;
    if (Number.isInteger(value) && Math.abs(value) > JSON_DOMAIN.maxSafeInteger) {
      return `${path}  integeris outside the portable JSON-safe range`;
    }
    return null;
  }
  if (typeof value === "bigint") {
    const big = value < 0n ? -value : value;
    return big > BigInt(JSON_DOMAIN.maxSafeInteger) ? `${path}  integeris outside the portable JSON-safe range` : null;
  }
  if (value instanceof PyFloat) return null;
  if (typeof value === "string") {
    if (stringTooLong(value)) return `${path} stringis too long`;
    if (!isWellFormed(value)) return `${path} is not a valid UTF-8 string`;
    return null;
  }
  if (Array.isArray(value)) {
    if (value.length > JSON_DOMAIN.maxEntries) return `${path} array is too long`;
    for (let i = 0; i < value.length; i++) {
      const error = describeOutside(value[i], `${path}[${i}]`, depth + 1);
      if (error !== null) return error;
    }
    return null;
  }
  if (typeof value === "object" && isPlainObject(value)) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length > JSON_DOMAIN.maxEntries) return `${path} object has too many fields`;
    for (const key of keys) {
      const keyError = describeOutside(key, `${path}.<key>`, depth + 1);
      if (keyError !== null) return keyError;
      const error = describeOutside(record[key], `${path}.${key}`, depth + 1);
      if (error !== null) return error;
    }
    return null;
  }
  return `${path} contains a non-JSON type: ${typeName(value)}`;
}
