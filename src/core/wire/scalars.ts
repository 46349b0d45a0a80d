/**
 * Zod building blocks that reproduce serde's scalar rules for the envelope.
 *
 * Integers follow Rust's widths exactly: a JSON integer outside a field's range, a negative one in
 * an unsigned field, or any float lexeme (`1.0`, `1e3`) in an integer field is a type error, as
 * serde reports it. 64-bit fields keep their exact value: safe integers are numbers, larger ones
 * `bigint` (read with the strict reader's bigint mode). `f64` fields accept any JSON number.
 *
 * The encoder needs to know a few leaf kinds that zod's own types cannot tell apart (an `f64`
 * whose value is integral is written `1.0`, a `u64` is written exactly), so each such schema is a
 * single shared instance recorded in {@link leafKind} (built on first use: the record holds the
 * instance every schema refers to).
 * @module
 */

import * as z from "../zod";
import { type Json, PyFloat } from "../json";
import { parseSurface } from "./surface";

/** Leaf kinds the encoder writes specially. */
export type LeafKind = "int" | "f64" | "json";

const leaves = new Map<z.core.$ZodType, LeafKind>();

function leaf<T extends z.core.$ZodType>(schema: T, kind: LeafKind): T {
  leaves.set(schema, kind);
  return schema;
}

/** The special leaf kind of a schema instance, if it has one. */
export function leafKind(schema: z.core.$ZodType): LeafKind | undefined {
  return leaves.get(schema);
}

const U64_MAX = 18_446_744_073_709_551_615n;
const I64_MIN = -9_223_372_036_854_775_808n;
const I64_MAX = 9_223_372_036_854_775_807n;

/** Rust `u16`. */
export const u16 = leaf(
  z.deferred(() => z.int().check(z.gte(0), z.lte(65_535))),
  "int",
);
/** Rust `u32`. */
export const u32 = leaf(
  z.deferred(() => z.int().check(z.gte(0), z.lte(4_294_967_295))),
  "int",
);
/** Rust `u64`: a safe integer as `number`, anything larger as `bigint`. */
export const u64 = leaf(
  z.deferred(() => z.union([z.int().check(z.gte(0)), z.bigint().check(z.gte(0n), z.lte(U64_MAX))])),
  "int",
);
/** Rust `i64`: a safe integer as `number`, anything larger as `bigint`. */
export const i64 = leaf(
  z.deferred(() => z.union([z.int(), z.bigint().check(z.gte(I64_MIN), z.lte(I64_MAX))])),
  "int",
);
/** Rust `f64`: any JSON number; integral lexemes (`1.0`) and huge integers become plain numbers. */
export const f64 = leaf(
  z.deferred(() =>
    z.union([
      z.number(),
      z.pipe(
        z.instanceof(PyFloat),
        z.transform((x: PyFloat) => x.value),
      ),
      z.pipe(
        z.bigint(),
        z.transform((x: bigint) => Number(x)),
      ),
    ]),
  ),
  "f64",
);
/** `serde_json::Value`: any JSON, but the key must be present (serde has no default for it). */
export const json = leaf(
  z.deferred(() => z.custom<Json>((value: unknown) => value !== undefined, { error: "missing field" })),
  "json",
);

/** An ID newtype or selector: serialized as a bare string. */
export const id = z.deferred(() => z.string());

/** `ConversationSurface`: only the canonical `cs1` string decodes. */
export const surface = z.deferred(() =>
  z.string().check(z.refine((text: string) => parseSurface(text) !== null, { error: "invalid conversation surface" })),
);

const skipped = new WeakSet<z.core.$ZodType>();

/**
 * `Option<T>` written as `null` when empty: a missing key decodes as `null` (serde's rule for
 * `Option`), and an explicit `null` is `None`.
 */
export function option<T extends z.core.SomeType>(inner: T) {
  return z._default(z.nullable(inner), null);
}

/**
 * `Option<T>` with `skip_serializing_if = "Option::is_none"`: left out when empty. `null` is
 * accepted here as serde does (it becomes `None`); the strict decoder's canonical diff then
 * refuses it as an unknown field, because the re-encoded form has no such key.
 */
export function skipIfNone<T extends z.core.SomeType>(inner: T) {
  const schema = z.pipe(
    z.transform((value: unknown): unknown => (value === null ? undefined : value)),
    z.optional(inner),
  );
  skipped.add(schema);
  return schema;
}

/** True for a field built by {@link skipIfNone}: the encoder leaves it out when undefined. */
export function isSkipIfNone(schema: z.core.$ZodType): boolean {
  return skipped.has(schema);
}
