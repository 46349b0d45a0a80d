import { compareCodePoints } from "./code-point";
import { checkJsonDomain, isPlainObject, JSON_DOMAIN, JsonDomainError, stringTooLong } from "./domain";
import { isWellFormed } from "./python-text";
import { PyFloat } from "./value";

/**
 * Python's `repr(float)` for a finite number: the shortest round-trip digits (which
 * `Number::toString` already gives), laid out the way CPython does — fixed notation only for
 * 1e-4 ≤ |x| < 1e16, `.0` on integral values, exponents signed and at least two digits.
 */
export function pyFloatRepr(x: number): string {
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  if (!Number.isFinite(x)) throw new JsonDomainError("a non-finite float has no JSON form");
  const sign = x < 0 ? "-" : "";
  const s = String(Math.abs(x));
  const e = s.indexOf("e");
  const mantissa = e < 0 ? s : s.slice(0, e);
  const exponent = e < 0 ? 0 : Number(s.slice(e + 1));
  const dot = mantissa.indexOf(".");
  const intPart = dot < 0 ? mantissa : mantissa.slice(0, dot);
  const fraction = dot < 0 ? "" : mantissa.slice(dot + 1);
  let digits = intPart + fraction;
  let point = intPart.length + exponent;
  let lead = 0;
  while (lead < digits.length - 1 && digits.charCodeAt(lead) === 48) lead++;
  digits = digits.slice(lead);
  point -= lead;
  let end = digits.length;
  while (end > 1 && digits.charCodeAt(end - 1) === 48) end--;
  digits = digits.slice(0, end);
  const n = digits.length;
  if (point <= -4 || point > 16) {
    const exp = point - 1;
    const expText = String(Math.abs(exp)).padStart(2, "0");
    return `${sign}${digits[0]}${n > 1 ? `.${digits.slice(1)}` : ""}e${exp < 0 ? "-" : "+"}${expText}`;
  }
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= n) return `${sign}${digits}${"0".repeat(point - n)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

function fail(root: unknown): never {
  throw new JsonDomainError(checkJsonDomain(root) ?? "value is outside the supported JSON domain");
}

function writeNumber(value: number, root: unknown): string {
  if (Number.isInteger(value)) {
    if (Math.abs(value) > JSON_DOMAIN.maxSafeInteger) fail(root);
    return String(value === 0 ? 0 : value);
  }
  if (!Number.isFinite(value)) fail(root);
  return pyFloatRepr(value);
}

// A string with no quote, backslash, control character or surrogate is written as it stands.
const PLAIN_STRING = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

function writeString(value: string, root: unknown): string {
  if (value.length <= JSON_DOMAIN.maxStringCodePoints && PLAIN_STRING.test(value)) return `"${value}"`;
  if (stringTooLong(value) || !isWellFormed(value)) fail(root);
  return JSON.stringify(value);
}

/**
 * Sorts keys in code-point order. The native sort (UTF-16 order) agrees unless an astral key meets
 * one in U+E000–U+FFFF; a sorted array is in order iff its neighbours are, so check and re-sort then.
 */
function sortKeys(keys: string[]): string[] {
  const n = keys.length;
  if (n < 2) return keys;
  if (n > 16) keys.sort();
  else {
    // Objects have a handful of keys: an insertion sort (UTF-16 order, as the native sort) is a
    // third of the native sort's cost at that size.
    for (let i = 1; i < n; i++) {
      const key = keys[i] as string;
      let j = i - 1;
      while (j >= 0 && (keys[j] as string) > key) {
        keys[j + 1] = keys[j] as string;
        j--;
      }
      keys[j + 1] = key;
    }
  }
  for (let i = 1; i < n; i++) {
    if (compareCodePoints(keys[i - 1] as string, keys[i] as string) > 0) return keys.sort(compareCodePoints);
  }
  return keys;
}

/** A text already written for an object (`canonicalJson` of it, byte for byte), or undefined. */
export type KnownCanonical = (value: object) => string | undefined;

function writeCanonical(value: unknown, depth: number, root: unknown, known?: KnownCanonical): string {
  if (depth > JSON_DOMAIN.maxDepth) fail(root);
  switch (typeof value) {
    case "string":
      return writeString(value, root);
    case "number":
      return writeNumber(value, root);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      if (value > BigInt(JSON_DOMAIN.maxSafeInteger) || value < -BigInt(JSON_DOMAIN.maxSafeInteger)) fail(root);
      return value.toString();
    case "object": {
      if (value === null) return "null";
      if (value instanceof PyFloat) return pyFloatRepr(value.value);
      const text = known?.(value);
      if (text !== undefined) return text;
      if (Array.isArray(value)) {
        if (value.length > JSON_DOMAIN.maxEntries) fail(root);
        let out = "[";
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ",";
          out += writeCanonical(value[i], depth + 1, root, known);
        }
        return `${out}]`;
      }
      if (!isPlainObject(value)) fail(root);
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      if (keys.length > JSON_DOMAIN.maxEntries) fail(root);
      sortKeys(keys);
      let out = "{";
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        if (depth + 1 > JSON_DOMAIN.maxDepth) fail(root);
        if (i > 0) out += ",";
        out += `${writeString(key, root)}:${writeCanonical(record[key], depth + 1, root, known)}`;
      }
      return `${out}}`;
    }
    default:
      return fail(root);
  }
}

/**
 * The reference's canonical JSON text (`_canonical_json`): its domain check, then
 * `json.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":"))` byte for byte.
 * Throws {@link JsonDomainError} for a value outside the domain — validate untrusted data first.
 */
export function canonicalJson(value: unknown): string {
  return writeCanonical(value, 0, value);
}

/**
 * {@link canonicalJson}, with the text `known` answers for an object written as it stands
 * instead of writing the object again (a model result whose text its package already holds).
 * `known` must answer exactly `canonicalJson` of that object, or undefined.
 */
export function canonicalJsonReusing(value: unknown, known: KnownCanonical): string {
  return writeCanonical(value, 0, value, known);
}

/**
 * The canonical text of `value` as a member `depth` levels below a document's root: the same
 * bytes as inside `canonicalJson(document)`, for callers that assemble fixed-shape documents.
 * Throws {@link JsonDomainError} (with a generic message) outside the domain.
 */
export function canonicalMember(value: unknown, depth: number): string {
  return typeof value === "string" ? writeString(value, value) : writeCanonical(value, depth, value);
}

function writePretty(value: unknown, indent: string, level: string): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw new JsonDomainError("a non-finite float has no JSON form");
      return Number.isInteger(value) ? String(value === 0 ? 0 : value) : pyFloatRepr(value);
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return value.toString();
    case "object": {
      if (value === null) return "null";
      if (value instanceof PyFloat) return pyFloatRepr(value.value);
      const inner = level + indent;
      if (Array.isArray(value)) {
        if (value.length === 0) return "[]";
        return `[\n${value.map((item) => inner + writePretty(item, indent, inner)).join(",\n")}\n${level}]`;
      }
      if (!isPlainObject(value)) throw new JsonDomainError("only plain objects have a JSON form");
      const record = value as Record<string, unknown>;
      const keys = sortKeys(Object.keys(record));
      if (keys.length === 0) return "{}";
      const members = keys.map((key) => `${inner}${JSON.stringify(key)}: ${writePretty(record[key], indent, inner)}`);
      return `{\n${members.join(",\n")}\n${level}}`;
    }
    default:
      throw new JsonDomainError(`${typeof value} has no JSON form`);
  }
}

/**
 * Python's `json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)`, without a trailing
 * newline: the layout of the reference CLI's summary and of dump documents.
 */
export function prettyJson(value: unknown, indent = 2): string {
  return writePretty(value, " ".repeat(indent), "");
}
