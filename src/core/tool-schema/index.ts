/**
 * The JSON Schema (2020-12) subset of data-defined tools' `input` and `output`: compiled once
 * (refusing anything outside the subset with the pointer of the offending keyword), then
 * validating many values. The subset, its bounds and the pattern rules are in docs/tools.md.
 * @module
 */
export { compileSchema } from "./compile";
export { SCHEMA_LIMITS, type SchemaOptions } from "./limits";
export { assessPattern, patternRisk, type PatternAssessment } from "./pattern-safety";
export { SCHEMA_TYPES, type SchemaType } from "./scalars";
export type { CompiledSchema, SchemaRefusal } from "./types";
