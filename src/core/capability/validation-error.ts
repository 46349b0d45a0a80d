/**
 * `ToolValidationError` of the protocol crate, as plain tagged data.
 * Upstream does not serialize it; toolgate encodes it like every other enum of the
 * crate (externally tagged, kebab-case variants, snake_case fields).
 * @module
 */

/** A contract violation found while validating untrusted input. */
export type ToolValidationError =
  | { required: { field: string } }
  | { "invalid-identifier": { field: string } }
  | { "control-character": { field: string } }
  | { "capability-outside-admission": { capability_id: string } }
  | { "duplicate-identifier": { field: string } }
  | { "zero-identifier": { field: string } }
  | { "too-large": { field: string; max: number; actual: number } }
  | { "too-many": { field: string; max: number; actual: number } }
  | { "result-too-large": { max: bigint; actual: bigint } }
  | { "result-length-mismatch": { declared: bigint; actual: number } }
  | { "provider-mismatch": { field: string; expected: string; actual: string } }
  | { "deadline-elapsed": { current_tick: bigint; deadline_tick: bigint } };

/** Variant names of {@link ToolValidationError}, in declaration order. */
export const TOOL_VALIDATION_ERROR_VARIANTS = [
  "required",
  "invalid-identifier",
  "control-character",
  "capability-outside-admission",
  "duplicate-identifier",
  "zero-identifier",
  "too-large",
  "too-many",
  "result-too-large",
  "result-length-mismatch",
  "provider-mismatch",
  "deadline-elapsed",
] as const;

/** Result of a validation step: `null` when valid. */
export type Validation = ToolValidationError | null;
