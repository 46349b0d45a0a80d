import * as z from "../core/zod";

/** Every HTTP contract with a component id, for the OpenAPI document. */
export const httpSchemas = z.registry<{ id: string; description?: string }>();

/** A trusted-host identifier: 1..255 characters (the core checks the exact rules). */
export const Identifier = z.deferred(() => z.string().check(z.minLength(1), z.maxLength(1024)));

/** A JSON object kept exactly as the strict reader returned it (no copy, `__proto__` stays a key). */
export const JsonObjectValue = z.deferred(() =>
  z
    .custom<Record<string, unknown>>(
      (v: unknown) =>
        typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype,
      { error: "expected a JSON object" },
    )
    .check(z.meta({ type: "object", additionalProperties: {} })),
);

/** A lowercase hex SHA-256 digest. */
export const Sha256Hex = z.deferred(() => z.string().check(z.regex(/^[0-9a-f]{64}$/)));
