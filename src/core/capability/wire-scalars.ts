/**
 * Scalar wire contracts: exact u64 (bigint in memory, bare integers on the wire),
 * usize counts, byte vectors, optional fields and bounded identifiers.
 * @module
 */
import * as z from "../zod";
import {
  TOOL_ACTOR_ID_MAX_BYTES,
  TOOL_CAPABILITY_ID_MAX_BYTES,
  TOOL_CONSUMER_ID_MAX_BYTES,
  TOOL_PROVIDER_ID_MAX_BYTES,
  TOOL_RESOURCE_SCOPE_ID_MAX_BYTES,
  U64_MAX,
} from "./limits";
import { validateIdentifier } from "./text";
import { writeWireJson } from "./wire-json";

/** A u64: accepts a safe non-negative number or a bigint in range; yields a bigint. */
export const u64 = z.deferred(() =>
  z.pipe(
    z.union([z.number(), z.bigint()]),
    z.transform((value: number | bigint, ctx): bigint => {
      if (typeof value === "number") {
        if (Number.isSafeInteger(value) && value >= 0) return BigInt(value);
      } else if (value >= 0n && value <= U64_MAX) return value;
      ctx.issues.push({ code: "custom", message: "expected an integer in 0..=18446744073709551615", input: value });
      return z.NEVER;
    }),
  ),
);

/** A usize count; toolgate's counts are small, so a safe integer suffices. */
export const usize = z.deferred(() => z.number().check(z.int(), z.gte(0), z.lte(Number.MAX_SAFE_INTEGER)));

/** `Vec<u8>`: a JSON array of integers 0–255. */
export const bytes = z.deferred(() => z.array(z.number().check(z.int(), z.gte(0), z.lte(255))));

/** An `Option<T>` field: `null` or missing reads as `null`. */
export function optional<S extends z.core.SomeType>(schema: S) {
  return z.pipe(
    z.optional(z.nullable(schema)),
    z.transform((value: z.output<S> | null | undefined): z.output<S> | null => (value === undefined ? null : value)),
  );
}

function boundedId(field: string, max: number) {
  return z.string().check(
    z.superRefine((value: string, ctx) => {
      const error = validateIdentifier(field, value, max);
      if (error !== null) ctx.addIssue({ code: "custom", message: `invalid ${field}: ${writeWireJson(error)}` });
    }),
  );
}

/** `ToolActorId`. */
export const toolActorId = z.deferred(() => boundedId("tool actor id", TOOL_ACTOR_ID_MAX_BYTES));
/** `ConsumerId`. */
export const consumerId = z.deferred(() => boundedId("tool consumer id", TOOL_CONSUMER_ID_MAX_BYTES));
/** `ResourceScopeId`. */
export const resourceScopeId = z.deferred(() => boundedId("tool resource scope id", TOOL_RESOURCE_SCOPE_ID_MAX_BYTES));
/** `ToolProviderId`. */
export const toolProviderId = z.deferred(() => boundedId("tool provider id", TOOL_PROVIDER_ID_MAX_BYTES));
/** `ToolCapabilityId`. */
export const toolCapabilityId = z.deferred(() => boundedId("tool capability id", TOOL_CAPABILITY_ID_MAX_BYTES));

/**
 * One struct variant of an externally tagged enum: an object with exactly that key.
 * Serde refuses extra keys around the tag, hence `strict`.
 */
export function variant<K extends string, S extends z.core.SomeType>(name: K, schema: S) {
  return z.strictObject({ [name]: schema } as { [P in K]: S });
}
