/**
 * What the strict reader answers: its options, its result, and the refusal it throws inside a
 * parse and turns into a value at the edge.
 * @module
 */
import type { Json } from "./value";

/** Why a document was refused. Stable codes; the message says what and where. */
export type JsonReadErrorCode =
  | "JSON_TOO_LARGE"
  | "JSON_BOM"
  | "JSON_INVALID_UTF8"
  | "JSON_SYNTAX"
  | "JSON_TOO_DEEP"
  | "JSON_DUPLICATE_KEY"
  | "JSON_NON_FINITE"
  | "JSON_NUMBER_RANGE"
  | "JSON_DOMAIN";

export interface JsonReadError {
  code: JsonReadErrorCode;
  message: string;
  /** UTF-16 offset in the decoded text where the problem was found. */
  offset?: number;
  /** JSON path of the offending value (`$.a[0].b`), where one exists. */
  path?: string;
}

export type ReadJsonResult = { ok: true; value: Json } | { ok: false; error: JsonReadError };

export interface ReadJsonOptions {
  /** Largest accepted input in bytes (UTF-8). Default 65,536. */
  maxBytes?: number;
  /** Most nested containers. Default 32; the reader refuses the next level before descending. */
  maxDepth?: number;
  /** `"safe"` refuses integers beyond ±(2^53−1); `"bigint"` returns them as bigint. Default `"safe"`. */
  integers?: "safe" | "bigint";
  /** Apply the reference's value domain: strings ≤ 65,536 code points and well-formed, ≤ 1,024 entries. Default true. */
  domain?: boolean;
}

/** Thrown inside a parse and caught by `readJson`, which answers it as a value. */
export class Refusal {
  constructor(readonly error: JsonReadError) {}
}

/** A refusal answered before parsing. */
export function refuse(code: JsonReadErrorCode, message: string): ReadJsonResult {
  return { ok: false, error: { code, message } };
}
