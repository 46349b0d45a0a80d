/**
 * Strict JSON for toolgate: a reader that refuses what the Tool Result v2 reference refuses,
 * a canonical writer byte-identical to the reference's `_canonical_json`, and SHA-256 digests.
 * @module
 */
export { PyFloat, type Json, type JsonObject } from "./value";
export {
  readJson,
  type ReadJsonOptions,
  type ReadJsonResult,
  type JsonReadError,
  type JsonReadErrorCode,
} from "./reader";
export { checkJsonDomain, JsonDomainError } from "./domain";
export {
  canonicalJson,
  canonicalJsonReusing,
  canonicalMember,
  prettyJson,
  pyFloatRepr,
  type KnownCanonical,
} from "./canonical";
export { compareCodePoints } from "./code-point";
export { sha256Hex, digestJson } from "./digest";
export { pyStrip, codePointLength, isWellFormed } from "./python-text";
export { constantTimeEqual } from "./constant-time";
