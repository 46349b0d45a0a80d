/**
 * `Envelope::decode_json`: the strict decoder, step for step.
 *
 * 1. Read the text with the strict JSON reader, tuned to what `serde_json` accepts (nesting up
 *    to 127 containers, any string length, 64-bit integers exact). Not JSON → `invalid_json`.
 * 2. Decode the shape with the zod contracts (serde's rules: missing `Option` keys are `None`,
 *    unknown keys are not shape errors except inside `model_snapshot`). Wrong shape →
 *    `invalid_json`.
 * 3. The first unknown key serde itself would have ignored → `unknown_field`.
 * 4. The canonical diff against the re-encoded envelope → `unknown_field`.
 * 5. {@link validateEnvelope}.
 * @module
 */

import type * as z from "../zod";
import { type Json, PyFloat, isWellFormed, readJson } from "../json";
import { type Envelope, EnvelopeSchema } from "./contracts/envelope";
import { envelopeToWire } from "./encode";
import { type ProtocolError, invalidJson, unknownField } from "./errors";
import { firstExtraField, firstIgnoredField } from "./unknown-fields";
import { validateEnvelope } from "./validate";

/** Result of decoding one envelope. */
export type DecodeResult = { ok: true; envelope: Envelope } | { ok: false; error: ProtocolError };

/** Options for {@link decodeEnvelope}. */
export interface DecodeOptions {
  /** Largest accepted input in UTF-8 bytes (a toolgate guard; the seed has none). Default 1 MiB. */
  maxBytes?: number;
}

/** `serde_json`'s recursion limit: the 128th nested container is refused. */
const SERDE_MAX_DEPTH = 127;
const DEFAULT_MAX_BYTES = 1_048_576;
const U64_MAX = 18_446_744_073_709_551_615n;
const I64_MIN = -9_223_372_036_854_775_808n;

/**
 * What `serde_json` refuses that the reader (with its Python value domain turned off) lets
 * through: lone surrogates in strings or keys, and integers so large that even their `f64`
 * reading overflows. Returns a message, or null.
 */
function serdeDomainError(value: Json, path: string): string | null {
  if (typeof value === "string") return isWellFormed(value) ? null : `lone surrogate in a string at ${path}`;
  if (typeof value === "bigint") {
    // Beyond u64/i64, serde_json reads an integer as f64, which fails only on overflow.
    const outside = value > U64_MAX || value < I64_MIN;
    return outside && !Number.isFinite(Number(value)) ? `number out of range at ${path}` : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = serdeDomainError(value[i] as Json, `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  if (typeof value === "object" && value !== null && !(value instanceof PyFloat)) {
    for (const key of Object.keys(value)) {
      if (!isWellFormed(key)) return `lone surrogate in a key at ${path}`;
      const found = serdeDomainError((value as Record<string, Json>)[key] as Json, `${path}.${key}`);
      if (found !== null) return found;
    }
  }
  return null;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  let path = "$";
  for (const part of issue.path) path += typeof part === "number" ? `[${part}]` : `.${String(part)}`;
  if (issue.code === "invalid_type" && issue.input === undefined) {
    return `missing field \`${String(issue.path[issue.path.length - 1])}\` at ${path.slice(0, path.lastIndexOf("."))}`;
  }
  if (issue.code === "unrecognized_keys") return `unknown field \`${issue.keys[0]}\` at ${path}`;
  return `${issue.message} at ${path}`;
}

/**
 * Strictly decodes one envelope from bytes or text and validates it. Never throws for bad input:
 * every refusal is a {@link ProtocolError} with one of the five codes.
 */
export function decodeEnvelope(input: Uint8Array | string, options: DecodeOptions = {}): DecodeResult {
  const read = readJson(input, {
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    maxDepth: SERDE_MAX_DEPTH,
    integers: "bigint",
    domain: false,
  });
  if (!read.ok) return { ok: false, error: invalidJson(read.error.message) };
  const domain = serdeDomainError(read.value, "$");
  if (domain !== null) return { ok: false, error: invalidJson(domain) };
  const parsed = EnvelopeSchema.safeParse(read.value, { reportInput: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: invalidJson(issue === undefined ? "invalid envelope" : describeIssue(issue)) };
  }
  const envelope = parsed.data;
  const ignored = firstIgnoredField(read.value);
  if (ignored !== null) return { ok: false, error: unknownField(ignored) };
  const extra = firstExtraField(read.value, envelopeToWire(envelope));
  if (extra !== null) return { ok: false, error: unknownField(extra) };
  const invalid = validateEnvelope(envelope);
  return invalid === null ? { ok: true, envelope } : { ok: false, error: invalid };
}
