/**
 * The canonical wire form: what the seed's `serde_json::to_value(&envelope)` produces.
 *
 * The walk is driven by the zod contracts, so the contracts stay the single description of the
 * shape: struct keys in contract order, `Option` fields written as `null`, skip-if-none fields
 * left out when empty, `#[serde(default)]` fields filled in, `f64` fields marked for Rust's float
 * form. A value that does not fit its contract is a caller's bug and throws.
 * @module
 */

import type * as z from "../zod";
import type { Envelope } from "./contracts/envelope";
import { EnvelopeSchema } from "./contracts/envelope";
import { RustF64, type WireValue, writeRustJson } from "./rust-json";
import { isSkipIfNone, leafKind } from "./scalars";

/**
 * The fields of zod's schema definitions the encoder reads. Each kind of def carries only its
 * own (an object's `shape`, a union's `options`, …), hence all optional; they are read after
 * switching on `type`.
 */
interface Def {
  type: string;
  shape?: Record<string, z.core.$ZodType>;
  options?: z.core.$ZodType[];
  discriminator?: string;
  innerType?: z.core.$ZodType;
  defaultValue?: unknown;
  out?: z.core.$ZodType;
  element?: z.core.$ZodType;
  entries?: Record<string, string>;
  values?: unknown[];
}

function defOf(schema: z.core.$ZodType): Def {
  // Every def is a `$ZodTypeDef` (a `type` tag); the kind-specific fields are the optional ones above.
  return schema._zod.def;
}

function fail(path: string, expected: string): never {
  throw new TypeError(`cannot encode ${path}: expected ${expected}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function encodeLeaf(kind: string, value: unknown, path: string): WireValue {
  switch (kind) {
    case "int":
      if ((typeof value === "number" && Number.isSafeInteger(value)) || typeof value === "bigint")
        return value === 0 ? 0 : value;
      return fail(path, "an integer");
    case "f64":
      return typeof value === "number" ? new RustF64(value) : fail(path, "a number");
    default:
      // Opaque JSON travels unchanged; the writer refuses anything JSON cannot hold.
      return value === undefined ? fail(path, "a JSON value") : (value as WireValue);
  }
}

function discriminatorValue(option: z.core.$ZodType, key: string): unknown {
  const tag = defOf(option).shape?.[key];
  return tag === undefined ? undefined : defOf(tag).values?.[0];
}

/** Encodes `value` as `schema` describes it. */
function encodeWith(schema: z.core.$ZodType, value: unknown, path: string): WireValue {
  const kind = leafKind(schema);
  if (kind !== undefined) return encodeLeaf(kind, value, path);
  const def = defOf(schema);
  switch (def.type) {
    case "object": {
      if (!isRecord(value)) return fail(path, "an object");
      const out: { [key: string]: WireValue } = {};
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        const item = value[key];
        if (isSkipIfNone(field)) {
          if (item === undefined || item === null) continue;
          out[key] = encodeWith(
            defOf(defOf(field).out as z.core.$ZodType).innerType as z.core.$ZodType,
            item,
            `${path}.${key}`,
          );
        } else {
          out[key] = encodeWith(field, item, `${path}.${key}`);
        }
      }
      return out;
    }
    case "union": {
      const key = def.discriminator;
      if (key === undefined || !isRecord(value)) return fail(path, "a tagged object");
      const option = def.options?.find((candidate) => discriminatorValue(candidate, key) === value[key]);
      return option === undefined ? fail(`${path}.${key}`, "a known tag") : encodeWith(option, value, path);
    }
    case "default": {
      const fallback =
        typeof def.defaultValue === "function" ? (def.defaultValue as () => unknown)() : def.defaultValue;
      return encodeWith(def.innerType as z.core.$ZodType, value === undefined ? fallback : value, path);
    }
    case "nullable":
      return value === null ? null : encodeWith(def.innerType as z.core.$ZodType, value, path);
    case "array":
      return Array.isArray(value)
        ? value.map((item, i) => encodeWith(def.element as z.core.$ZodType, item, `${path}[${i}]`))
        : fail(path, "an array");
    case "string":
      return typeof value === "string" ? value : fail(path, "a string");
    case "boolean":
      return typeof value === "boolean" ? value : fail(path, "a boolean");
    case "enum":
      return typeof value === "string" && Object.values(def.entries ?? {}).includes(value)
        ? value
        : fail(path, "a known variant");
    case "literal":
      return def.values?.includes(value) === true ? (value as string) : fail(path, JSON.stringify(def.values));
    default:
      // A schema kind the contracts do not use: the contracts changed without the encoder.
      throw new Error(`encoder does not know zod type '${def.type}' at ${path}`);
  }
}

/** The canonical wire value of an envelope (`serde_json::to_value`), used by the canonical diff. */
export function envelopeToWire(envelope: Envelope): WireValue {
  return encodeWith(EnvelopeSchema, envelope, "$");
}

/**
 * Encodes an envelope as canonical wire text: compact JSON in contract key order, exactly as
 * the seed's serde serializer writes it. Does not validate; call `validateEnvelope` first when
 * the envelope was built by hand.
 */
export function encodeEnvelope(envelope: Envelope): string {
  return writeRustJson(envelopeToWire(envelope));
}
