/**
 * The shapes the tool-schema module answers, and the compiled check every schema node becomes.
 * @module
 */
import type { Json, JsonObject } from "../json/value";

/** Why a schema is outside the subset: where (RFC 6901 pointer into the schema document) and what. */
export interface SchemaRefusal {
  /** JSON pointer of the offending keyword (or of the schema missing one), e.g. `/properties/amount/multipleOf`. */
  readonly pointer: string;
  /** A sentence for the definition's author; stable for a given document. */
  readonly message: string;
}

/** A schema compiled once into closures, to validate many values. */
export interface CompiledSchema {
  /** The schema document as given (do not mutate it; the checks do not read it again). */
  readonly document: JsonObject;
  /** True when the value is in the JSON domain and satisfies the schema. */
  validate(value: Json): boolean;
  /**
   * The first failure, for logs and tests: `"<instance pointer>: <keyword>"`, e.g.
   * `"/items/3: maxLength"`, `"(root): type"`; null when the value is valid. Never echoes values.
   */
  explain(value: Json): string | null;
  /**
   * The first failure for the one who sent the value (a model): the RFC 6901 pointer of the
   * failing member and what was expected there, e.g. `{ pointer: "/amount", expected: "an
   * integer ≤ 1000" }`; null when the value is valid. Never quotes the value.
   */
  describe(value: Json): ValueProblem | null;
}

/** Where a value fails its schema, and what was expected there (see {@link CompiledSchema.describe}). */
export interface ValueProblem {
  readonly pointer: string;
  readonly expected: string;
}

/**
 * One compiled schema node. Answers whether the value passes; on failure, when a trail is given,
 * pushes the failing keyword and what was expected, and each enclosing node then pushes its
 * pointer segment (innermost first).
 */
export type Check = (value: unknown, trail: string[] | null) => boolean;

/** Thrown inside a compilation and answered as a value by `compileSchema`. */
export class SchemaRefused {
  constructor(readonly refusal: SchemaRefusal) {}
}

/** Stops the compilation with a refusal at `pointer`. */
export function refuse(pointer: string, message: string): never {
  throw new SchemaRefused({ pointer, message });
}

/**
 * Records a failure of `keyword` on the trail, when there is one, with what was expected (a
 * phrase built from the schema, never from the value); answers false. The trail then reads
 * `[keyword, expected, ...segments innermost first]`.
 */
export function fail(trail: string[] | null, keyword: string, expected: string | (() => string)): false {
  // A phrase that costs something to build (a list of literals, a pattern) comes as a function: built only when asked.
  if (trail !== null) trail.push(keyword, typeof expected === "string" ? expected : expected());
  return false;
}

/** Escapes one RFC 6901 reference token (`~` → `~0`, `/` → `~1`) and prefixes its slash. */
export function segment(token: string | number): string {
  return typeof token === "number" ? `/${token}` : `/${token.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}
