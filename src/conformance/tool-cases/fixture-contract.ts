/**
 * The `tool-cases-v2` fixture contract in zod: exactly the documents the reference's
 * `validate_fixture` accepts, with every problem reported by path.
 * @module
 */
import * as z from "../../core/zod";
import { checkJsonDomain, codePointLength, compareCodePoints, type Json, type JsonObject } from "../../core/json";
import {
  APPROVAL_TTL_SECONDS,
  AUDIT_SCHEMA_VERSION,
  expectedAdapterRevision,
  MAX_IDENTIFIER_CHARS,
  MAX_PORTABLE_UNIX_SECONDS,
  MAX_ROLES,
  MODEL_RESULT_SCHEMA_VERSION,
  VALID_DELIVERIES,
  VALID_FAILURES,
  VALID_OUTCOMES,
  VALID_RECOVERIES,
  VALID_STATUSES,
} from "../../core/tool-result/constants";
import {
  FIXTURE_SCHEMA_VERSION,
  MAX_CASES,
  MAX_STEPS_PER_CASE,
  VALID_ACTIONS,
  VALID_APPROVAL_MODES,
} from "./constants";
import { isErrorCode } from "../../core/tool-result/error-catalog";
import { isBoundedIdentifier, isNonemptyString, isPlainObject } from "../../core/tool-result/text-rules";

const identifier = z.deferred(() =>
  z.custom<string>(isBoundedIdentifier, {
    error: `must be a non-empty string of at most ${MAX_IDENTIFIER_CHARS} code points`,
  }),
);
const jsonObject = z.deferred(() => z.custom<JsonObject>(isPlainObject, { error: "must be an object" }));

const roles = z.deferred(() =>
  z
    .custom<string[]>((v) => Array.isArray(v) && v.every(isNonemptyString), {
      error: "must be a list of non-empty strings",
    })
    .check(
      z.refine(
        (v: string[]) => v.length <= MAX_ROLES && v.every((role) => codePointLength(role) <= MAX_IDENTIFIER_CHARS),
        {
          error: `exceeds ${MAX_ROLES} roles or ${MAX_IDENTIFIER_CHARS} code points per role`,
        },
      ),
      z.refine((v: string[]) => v.every((role, i) => i === 0 || compareCodePoints(v[i - 1] as string, role) < 0), {
        error: "must be sorted by code point and contain no duplicates",
      }),
    ),
);

const principal = z.deferred(() => z.strictObject({ tenant_id: identifier, subject_id: identifier, roles }));

const executionContext = z.deferred(() =>
  z
    .strictObject({
      provider: identifier,
      api_family: identifier,
      response_id: identifier,
      call_id: identifier,
      operation_id: identifier,
      idempotency_key: z.nullable(identifier),
      adapter_revision: identifier,
    })
    .check(
      z.superRefine((context, ctx) => {
        const expected = expectedAdapterRevision(context.provider, context.api_family, "reference");
        if (expected === undefined) {
          ctx.addIssue({ code: "custom", message: "provider profile is not registered", path: ["provider"] });
        } else if (context.adapter_revision !== expected) {
          ctx.addIssue({
            code: "custom",
            message: `does not match the provider profile (expected ${expected})`,
            path: ["adapter_revision"],
          });
        }
      }),
    ),
);

const expected = z.deferred(() =>
  z.strictObject({
    code: z.custom<string>((v) => v === "OK" || isErrorCode(v), { error: "must be OK or an error-catalog code" }),
    status: z.enum(VALID_STATUSES),
    outcome: z.enum(VALID_OUTCOMES),
    recovery: z.enum(VALID_RECOVERIES),
    delivery: z.enum(VALID_DELIVERIES),
    data: z.nullable(jsonObject),
    side_effect_count: z.int().check(z.gte(0)),
  }),
);

const step = z.deferred(() =>
  z.strictObject({
    step_id: identifier,
    action: z.enum(VALID_ACTIONS),
    proposal: z.strictObject({ name: identifier, arguments: jsonObject }),
    execution_context: executionContext,
    approval: z.enum(VALID_APPROVAL_MODES),
    // Room for the approval window: an approval granted at `now` must still expire in range.
    now: z.int().check(z.gte(0), z.lte(MAX_PORTABLE_UNIX_SECONDS - APPROVAL_TTL_SECONDS)),
    failure: z.enum(VALID_FAILURES),
    status_ref_from: z.nullable(identifier),
    expected,
  }),
);

const fixtureCase = z.deferred(() =>
  z
    .strictObject({
      id: identifier,
      principal,
      steps: z.array(step).check(z.minLength(1), z.maxLength(MAX_STEPS_PER_CASE)),
    })
    .check(
      z.superRefine((value, ctx) => {
        const seen = new Set<string>();
        value.steps.forEach((item, index) => {
          const path = ["steps", index];
          if (item.action === "query_status") {
            if (item.status_ref_from === null || !seen.has(item.status_ref_from)) {
              ctx.addIssue({
                code: "custom",
                message: "must reference an earlier step of this case",
                path: [...path, "status_ref_from"],
              });
            }
            if (item.failure !== "none")
              ctx.addIssue({
                code: "custom",
                message: "query_status must not inject a failure",
                path: [...path, "failure"],
              });
            if (item.approval !== "none")
              ctx.addIssue({
                code: "custom",
                message: "query_status must not carry an approval",
                path: [...path, "approval"],
              });
          } else if (item.status_ref_from !== null) {
            ctx.addIssue({
              code: "custom",
              message: "dispatch must not set status_ref_from",
              path: [...path, "status_ref_from"],
            });
          }
          if (seen.has(item.step_id))
            ctx.addIssue({ code: "custom", message: `duplicate step id: ${item.step_id}`, path: [...path, "step_id"] });
          seen.add(item.step_id);
        });
      }),
    ),
);

/** The whole fixture. Parse it only after `readJson` has read the bytes strictly. */
export const toolCasesFixtureSchema = z.deferred(() =>
  z
    .strictObject({
      schema_version: z.literal(FIXTURE_SCHEMA_VERSION),
      contract: z.strictObject({
        model_result: z.literal(MODEL_RESULT_SCHEMA_VERSION),
        protected_audit: z.literal(AUDIT_SCHEMA_VERSION),
      }),
      cases: z.array(fixtureCase).check(z.minLength(1), z.maxLength(MAX_CASES)),
    })
    .check(
      z.superRefine((fixture, ctx) => {
        const seen = new Set<string>();
        fixture.cases.forEach((item, index) => {
          if (seen.has(item.id))
            ctx.addIssue({ code: "custom", message: `duplicate case id: ${item.id}`, path: ["cases", index, "id"] });
          seen.add(item.id);
        });
      }),
    ),
);

/** A validated fixture. */
export type ToolCasesFixture = z.infer<typeof toolCasesFixtureSchema>;
/** One validated case. */
export type FixtureCase = ToolCasesFixture["cases"][number];
/** One validated step. */
export type FixtureStep = FixtureCase["steps"][number];

function formatPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const part of path) text += typeof part === "number" ? `[${part}]` : `${text === "" ? "" : "."}${String(part)}`;
  return text === "" ? "fixture" : text;
}

/** Result of {@link parseToolCasesFixture}. */
export type FixtureParseResult =
  | { readonly ok: true; readonly fixture: ToolCasesFixture }
  | {
      readonly ok: false;
      readonly error: { readonly code: "FIXTURE_INVALID"; readonly message: string; readonly problems: string[] };
    };

/** Validates a JSON value against the fixture contract; every problem is named with its path. */
export function parseToolCasesFixture(value: Json): FixtureParseResult {
  const domain = checkJsonDomain(value);
  if (domain !== null) {
    return {
      ok: false,
      error: {
        code: "FIXTURE_INVALID",
        message: `fixture is outside the supported JSON domain: ${domain}`,
        problems: [domain],
      },
    };
  }
  const parsed = toolCasesFixtureSchema.safeParse(value);
  if (parsed.success) return { ok: true, fixture: parsed.data };
  const problems = parsed.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  return {
    ok: false,
    error: { code: "FIXTURE_INVALID", message: `fixture validation failed:\n- ${problems.join("\n- ")}`, problems },
  };
}
