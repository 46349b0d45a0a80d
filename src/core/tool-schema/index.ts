/**
 * The JSON Schema (2020-12) subset of data-defined tools' `input` and `output`. A schema is
 * compiled once ({@link compileSchema}), refusing anything outside the subset with the RFC 6901
 * pointer of the offending keyword, then validates many values.
 *
 * The subset, every node an object with a `type`:
 * - `type`: one of `object`, `array`, `string`, `integer`, `number`, `boolean`, `null`, or a list
 *   of distinct ones (a value passes one of them); or, instead of `type`, `anyOf` (1–16 schemas);
 *   `description` and `title` (strings ≤ 1,024 code points) anywhere; `default` (never read);
 *   `$schema` at the root only.
 * - `object`: `properties`, `required` (declared names only), `additionalProperties` only
 *   `false`; absent means false too: undeclared members are always refused.
 * - `array`: `items` and `maxItems` (≤ 1,000) are required; `minItems` optional.
 * - `string`: `minLength`/`maxLength` in code points (an astral character counts 1);
 *   `pattern`: an ECMAScript regular expression with the `u` flag, searched (unanchored) as JSON
 *   Schema says, ≤ 256 code points, passing the backtracking check of `pattern-safety.ts`; unless
 *   it starts with `^`, the string needs `maxLength` ≤ 256; `format`: `email`, `uri`, `uuid`,
 *   `date`, `date-time`, validated (./formats.ts).
 * - `integer`: an int, never a float: the JSON text `1.0` (a `PyFloat` from `readJson`) is
 *   not an integer, as in the reference. `number`: ints and floats, by value. Both take
 *   `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers).
 * - `enum` (1–256 distinct scalars) and `const` (a scalar), of the node's own type.
 * - Nesting ≤ 8 levels by default (`maxDepth`, at most 16), ≤ 512 schema objects, ≤ 128
 *   properties per object: {@link SCHEMA_LIMITS} lists every bound.
 *
 * Anything else is refused, `$ref`, `oneOf`, `multipleOf` and other formats included. Values
 * outside the JSON domain (`checkJsonDomain`) are invalid. Validation descends the schema, not
 * the value, so a hostile value cannot deepen the recursion.
 * @module
 */
export { compileSchema } from "./compile";
export { STRING_FORMATS, type StringFormat } from "./formats";
export { SCHEMA_LIMITS, type SchemaOptions } from "./limits";
export { assessPattern, patternRisk, type PatternAssessment } from "./pattern-safety";
export { SCHEMA_TYPES, type SchemaType } from "./scalars";
export type { CompiledSchema, SchemaRefusal, ValueProblem } from "./types";
