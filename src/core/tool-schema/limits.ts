/**
 * Every bound of the tool-schema subset, in one place: docs quote them from here.
 * @module
 */
import { JSON_DOMAIN } from "../json/domain";

/** The bounds a schema document and the values it admits must keep. */
export const SCHEMA_LIMITS = {
  /** Default nesting depth: the root schema is level 1, each `properties` member or `items` one deeper. */
  defaultMaxDepth: 8,
  /** The largest `maxDepth` a caller may ask for (instances then stay well inside the JSON domain's 32 levels). */
  maxDepthCeiling: 16,
  /** Schema objects in one document, the root included. */
  maxNodes: 512,
  /** Members of one `properties`. */
  maxProperties: 128,
  /** Code points of one property name. */
  maxPropertyNameLength: 128,
  /** Code points of a `description` or a `title`. */
  maxTextLength: 1_024,
  /** Values of one `enum` (at least 1). */
  maxEnumValues: 256,
  /** Alternatives of one `anyOf`. */
  maxAnyOf: 16,
  /** Code points of a string in `enum` or `const`. */
  maxLiteralLength: 1_024,
  /** The largest `maxItems` (and `minItems`); `maxItems` is required on every array. */
  maxItems: 1_000,
  /** The largest `minLength` / `maxLength`: the JSON domain's longest string. */
  maxStringLength: JSON_DOMAIN.maxStringCodePoints,
  /** Code points of a `pattern`. */
  maxPatternLength: 256,
  /**
   * A string with a `pattern` not anchored by a leading `^` must declare a `maxLength` of at most
   * this: the search tries every start, so its cost grows with the square of the length.
   */
  maxPatternSubjectLength: 256,
  /** The largest count in a `{n}`, `{n,}` or `{n,m}` repetition inside a `pattern`. */
  maxPatternRepeat: 1_000,
} as const;

/** Options of {@link compileSchema}. */
export interface SchemaOptions {
  /** Most nested schema levels, 1 to {@link SCHEMA_LIMITS}.maxDepthCeiling; default 8. */
  maxDepth?: number;
}

/** The depth option checked; an out-of-range option is the caller's bug and throws. */
export function resolveMaxDepth(options: SchemaOptions): number {
  const depth = options.maxDepth ?? SCHEMA_LIMITS.defaultMaxDepth;
  if (!Number.isInteger(depth) || depth < 1 || depth > SCHEMA_LIMITS.maxDepthCeiling) {
    throw new RangeError(`maxDepth must be an integer from 1 to ${SCHEMA_LIMITS.maxDepthCeiling}`);
  }
  return depth;
}
