/**
 * zod contracts of the two projections, for readers of stored or transmitted packages.
 * Shapes only: `validateResult` remains the authority, because it also recomputes every binding.
 * @module
 */
import * as z from "../zod";
import { checkJsonDomain, type JsonObject } from "../json";
import {
  AUDIT_SCHEMA_VERSION,
  MODEL_RESULT_SCHEMA_VERSION,
  VALID_DELIVERIES,
  VALID_OUTCOMES,
  VALID_STATUSES,
  VALID_TRUST,
} from "./constants";
import { ERROR_CATALOG, isErrorCode } from "./error-catalog";
import { isPlainObject } from "./text-rules";

const hex64 = z.deferred(() => z.string().check(z.regex(/^[0-9a-f]{64}$/)));
const nullableText = z.deferred(() => z.nullable(z.string().check(z.minLength(1))));

/** The model-visible result (`tool-model-result-v2`). */
export const modelResultSchema = z.deferred(() =>
  z.strictObject({
    schema_version: z.literal(MODEL_RESULT_SCHEMA_VERSION),
    status: z.enum(VALID_STATUSES),
    // `meta` gives the JSON Schema of the OpenAPI document what a custom check cannot express.
    data: z.nullable(
      z
        .custom<JsonObject>((v) => isPlainObject(v) && checkJsonDomain(v) === null)
        .check(z.meta({ type: "object", additionalProperties: {} })),
    ),
    error: z.nullable(
      z.strictObject({
        code: z.custom<string>(isErrorCode).check(z.meta({ type: "string", enum: Object.keys(ERROR_CATALOG) })),
        category: z.string(),
        safe_message: z.string(),
        recovery: z.string(),
        retry_after_ms: z.nullable(z.int().check(z.gte(0))),
        // Only tools that explain INVALID_ARGUMENTS (not the reference's): where, and what was expected.
        details: z.optional(z.strictObject({ pointer: z.string(), expected: z.string() })),
      }),
    ),
    execution: z.strictObject({
      outcome: z.enum(VALID_OUTCOMES),
      delivery: z.enum(VALID_DELIVERIES),
      complete: z.literal(true),
      truncated: z.literal(false),
    }),
    provenance: z.strictObject({
      source_label: z.string().check(z.minLength(1)),
      producer_revision: z.string().check(z.minLength(1)),
      resource_revision: nullableText,
      observed_at: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)),
      trust: z.enum(VALID_TRUST),
    }),
  }),
);

/** The protected audit record (`tool-audit-v2`); it never reaches a model. */
export const protectedAuditSchema = z.deferred(() =>
  z.strictObject({
    schema_version: z.literal(AUDIT_SCHEMA_VERSION),
    visibility: z.literal("protected_audit"),
    operation_id: z.string().check(z.minLength(1)),
    principal_ref: z.string().check(z.regex(/^sha256:[0-9a-f]{64}$/)),
    provider_context: z.strictObject({
      provider: z.string().check(z.minLength(1)),
      api_family: z.string().check(z.minLength(1)),
      response_id: z.string().check(z.minLength(1)),
      call_id: z.string().check(z.minLength(1)),
      adapter_revision: z.string().check(z.minLength(1)),
    }),
    tool_contract: z.strictObject({
      name: z.string().check(z.minLength(1)),
      input_schema_revision: z.string(),
      output_schema_revision: z.string(),
      effect_revision: z.string(),
      handler_revision: z.string(),
      producer_revision: z.string(),
      policy_revision: z.string(),
    }),
    binding: z.strictObject({ request_sha256: hex64, result_sha256: hex64, call_binding_sha256: hex64 }),
    downstream: z.strictObject({
      request_id: nullableText,
      receipt_id: nullableText,
      status_ref: z.nullable(z.string().check(z.regex(/^status_[0-9a-f]{32}$/))),
    }),
    redactions: z.array(z.string().check(z.minLength(1))),
  }),
);

/** A whole package. */
export const resultPackageSchema = z.deferred(() =>
  z.strictObject({
    model_result: modelResultSchema,
    protected_audit: protectedAuditSchema,
  }),
);
