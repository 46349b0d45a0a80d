/**
 * What a failing value was expected to be, in words a model can act on (`a number ≤ 1000`). Built
 * from the schema only: a value under test is never quoted, and a member name it brought (an
 * undeclared member) is shown bounded and with its invisible characters escaped.
 * @module
 */
import { canonicalJson, type Json } from "../json";
import { visibleText } from "../text/visible";
import type { SchemaType } from "./scalars";

/** Code points of a schema literal or pattern shown in an expectation; longer ones end in `…`. */
const MAX_SHOWN = 32;
/** Members of an `enum` listed; the rest is counted. */
const MAX_LISTED = 8;

const NOUNS: Readonly<Record<SchemaType, string>> = {
  object: "an object",
  array: "an array",
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "a boolean",
  null: "null",
};

/** A text cut to `max` code points (then `…`), its hidden and look-alike code points escaped. */
export function bounded(text: string, max = MAX_SHOWN): string {
  const points = Array.from(text.length > max * 2 ? text.slice(0, max * 2) : text);
  const cut = points.length > max ? `${points.slice(0, max).join("")}…` : points.join("");
  return visibleText(cut, { latinContext: true });
}

/** `a string`, `an integer`; a list of types joined by `or`. */
export function typeNoun(types: readonly SchemaType[]): string {
  return types.map((type) => NOUNS[type]).join(" or ");
}

/** A schema literal as JSON text, bounded. */
export function literal(value: Json): string {
  return bounded(canonicalJson(value));
}

/** `one of "a", "b"` (at most {@link MAX_LISTED} listed). */
export function oneOf(values: readonly Json[]): string {
  const shown = values.slice(0, MAX_LISTED).map(literal).join(", ");
  const more = values.length > MAX_LISTED ? ` (and ${values.length - MAX_LISTED} more)` : "";
  return `one of ${shown}${more}`;
}

/** The expectation of a numeric bound: `a number ≤ 1000`. */
export function bound(type: SchemaType, sign: "≥" | "≤" | ">" | "<", limit: number): string {
  return `${NOUNS[type]} ${sign} ${String(limit)}`;
}
