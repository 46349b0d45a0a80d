/**
 * The leaf types: strings (code-point lengths, a searched `pattern`), integers and numbers
 * (inclusive and exclusive bounds), booleans and null.
 * @module
 */
import { codePointLength } from "../json/python-text";
import type { JsonObject } from "../json/value";
import type { LiteralTest } from "./literals";
import { SCHEMA_LIMITS } from "./limits";
import { formatCheck, STRING_FORMATS } from "./formats";
import { assessPattern } from "./pattern-safety";
import { hasType, isDomainString, numericValue, readBound, readCount, type SchemaType } from "./scalars";
import { bound, bounded, typeNoun } from "./expected";
import { fail, refuse, segment, type Check } from "./types";

/** Compiles a `boolean` or `null` node: the type, then its literals. */
export function compileConstant(type: "boolean" | "null", literals: LiteralTest | null): Check {
  const noun = typeNoun([type]);
  return (value, trail) => {
    if (!hasType(type, value)) return fail(trail, "type", noun);
    const miss = literals === null ? null : literals(value);
    return miss === null ? true : fail(trail, ...miss);
  };
}

function compilePattern(node: JsonObject, pointer: string, maxLength: number | undefined): RegExp | null {
  if (!Object.hasOwn(node, "pattern")) return null;
  const source = node["pattern"];
  const at = pointer + segment("pattern");
  if (typeof source !== "string" || codePointLength(source) > SCHEMA_LIMITS.maxPatternLength) {
    refuse(at, `"pattern" must be a string of at most ${SCHEMA_LIMITS.maxPatternLength} code points`);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(source, "u");
  } catch {
    return refuse(at, `"pattern" is not an ECMAScript regular expression valid with the u flag`);
  }
  const { risk, anchored } = assessPattern(source);
  if (risk !== null) refuse(at, `"pattern" is refused: ${risk}`);
  if (!anchored && (maxLength === undefined || maxLength > SCHEMA_LIMITS.maxPatternSubjectLength)) {
    refuse(
      at,
      `"pattern" without a leading "^" requires "maxLength" of at most ${SCHEMA_LIMITS.maxPatternSubjectLength}`,
    );
  }
  return regex;
}

const FORMAT_LIST = STRING_FORMATS.map((f) => `"${f}"`).join(", ");

function compileFormat(node: JsonObject, pointer: string): ((text: string) => boolean) | null {
  if (!Object.hasOwn(node, "format")) return null;
  const name = node["format"];
  const check = typeof name === "string" ? formatCheck(name) : null;
  return check ?? refuse(pointer + segment("format"), `"format" must be one of ${FORMAT_LIST}`);
}

/** Compiles a `string` node: type and domain, literals, `minLength`/`maxLength` in code points, `pattern` (search), `format` (formats.ts). */
export function compileString(node: JsonObject, pointer: string, literals: LiteralTest | null): Check {
  const minLength = readCount(node, "minLength", pointer, SCHEMA_LIMITS.maxStringLength);
  const maxLength = readCount(node, "maxLength", pointer, SCHEMA_LIMITS.maxStringLength);
  if (minLength !== undefined && maxLength !== undefined && minLength > maxLength) {
    refuse(pointer + segment("minLength"), `"minLength" exceeds "maxLength"`);
  }
  const regex = compilePattern(node, pointer, maxLength);
  const format = compileFormat(node, pointer);
  const min = minLength ?? 0;
  const max = maxLength ?? SCHEMA_LIMITS.maxStringLength;
  const shortest = `a string of at least ${min} characters`;
  const longest = `a string of at most ${max} characters`;
  const matching = (): string => `a string matching ${bounded(regex === null ? "" : regex.source)}`;
  const formatted = `a string in the format ${typeof node["format"] === "string" ? node["format"] : ""}`;
  return (value, trail) => {
    if (!isDomainString(value)) return fail(trail, "type", "a string");
    const miss = literals === null ? null : literals(value);
    if (miss !== null) return fail(trail, ...miss);
    // A string of n UTF-16 units has between ceil(n / 2) and n code points: count only when that range straddles a bound.
    if (value.length > max || (value.length + 1) >> 1 < min) {
      const length = codePointLength(value);
      if (length < min) return fail(trail, "minLength", shortest);
      if (length > max) return fail(trail, "maxLength", longest);
    }
    if (regex !== null && !regex.test(value)) return fail(trail, "pattern", matching);
    if (format !== null && !format(value)) return fail(trail, "format", formatted);
    return true;
  };
}

/** Compiles an `integer` or `number` node: type and domain, literals, then the four bounds. */
export function compileNumeric(
  node: JsonObject,
  pointer: string,
  type: SchemaType,
  literals: LiteralTest | null,
): Check {
  const minimum = readBound(node, "minimum", pointer);
  const maximum = readBound(node, "maximum", pointer);
  const exclusiveMinimum = readBound(node, "exclusiveMinimum", pointer);
  const exclusiveMaximum = readBound(node, "exclusiveMaximum", pointer);
  const noun = typeNoun([type]);
  return (value, trail) => {
    if (!hasType(type, value)) return fail(trail, "type", noun);
    const miss = literals === null ? null : literals(value);
    if (miss !== null) return fail(trail, ...miss);
    const n = numericValue(value) as number | bigint;
    // Mixed bigint/number comparisons are exact in JavaScript.
    if (minimum !== undefined && n < minimum) return fail(trail, "minimum", bound(type, "≥", minimum));
    if (maximum !== undefined && n > maximum) return fail(trail, "maximum", bound(type, "≤", maximum));
    if (exclusiveMinimum !== undefined && n <= exclusiveMinimum)
      return fail(trail, "exclusiveMinimum", bound(type, ">", exclusiveMinimum));
    if (exclusiveMaximum !== undefined && n >= exclusiveMaximum)
      return fail(trail, "exclusiveMaximum", bound(type, "<", exclusiveMaximum));
    return true;
  };
}
