/**
 * Standard Schema (https://standardschema.dev) for tools written as code: the interfaces a zod 4
 * schema (or any library's) implements, copied as the spec asks instead of depended on, and the
 * conversion of a schema into the gate's JSON Schema subset (`core/tool-schema`).
 * @module
 */
import { checkJsonDomain, type Json, type JsonObject } from "../../../core/json";
import { compileSchema, STRING_FORMATS, type CompiledSchema } from "../../../core/tool-schema";
import { bounded } from "../../../core/tool-schema/expected";
import * as z from "../../../core/zod";

/** One problem a schema found in a value. */
export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What a schema's `validate` answers. */
export type StandardResult<Output> =
  { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> };

/** The JSON Schema side of a schema (Standard JSON Schema v1; zod 4 implements it). */
export interface StandardJsonSchemaConverter {
  readonly input: (options: { readonly target: string }) => Record<string, unknown>;
  readonly output: (options: { readonly target: string }) => Record<string, unknown>;
}

/** A Standard Schema v1: zod 4, Valibot, ArkType… The gate needs its JSON Schema too (`jsonSchema`). */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?: StandardJsonSchemaConverter;
  };
}

/** The type a schema parses to (what a handler receives or returns). */
export type InferOutput<S extends StandardSchema> = NonNullable<S["~standard"]["types"]>["output"];

/** The type a schema accepts. */
export type InferInput<S extends StandardSchema> = NonNullable<S["~standard"]["types"]>["input"];

/** A JSON object, by the JSON domain's rule (no cast: the walk decides). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && checkJsonDomain(value) === null;
}

/** A JSON value, by the JSON domain's rule. */
export function isJson(value: unknown): value is Json {
  return checkJsonDomain(value) === null;
}

/**
 * The issues as one line for operators: `path: message` each, at most five (never for the model:
 * a value the schema refused may be echoed in a message).
 */
export function describeIssues(issues: ReadonlyArray<StandardIssue>): string {
  const shown = issues.slice(0, 5).map((issue) => {
    const path = (issue.path ?? []).map((part) => String(typeof part === "object" ? part.key : part)).join(".");
    return `${path === "" ? "(root)" : path}: ${issue.message}`;
  });
  return shown.join("; ") + (issues.length > 5 ? `; … ${issues.length - 5} more` : "");
}

/** The RFC 6901 pointer of an issue's path (`""` for the root); a key is shown bounded, hidden characters escaped. */
function pointerOf(issue: StandardIssue): string {
  const key = (part: PropertyKey | { readonly key: PropertyKey }): string =>
    bounded(String(typeof part === "object" ? part.key : part));
  return (issue.path ?? []).map((part) => `/${key(part).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

/**
 * What the model is told of arguments only the schema's own rules refuse (a refinement the
 * subset does not express): where, and that the tool's own rule refused it. Not the message:
 * it may echo the refused value.
 */
export function refinementProblem(
  issues: ReadonlyArray<StandardIssue> | undefined,
): { readonly pointer: string; readonly expected: string } | null {
  const first = issues?.[0];
  return first === undefined ? null : { pointer: pointerOf(first), expected: "a value the tool's own rules accept" };
}

/**
 * Drops zod's `pattern` beside a `format` the subset checks itself (its email pattern is not one
 * the subset's backtracking check admits); the schema's own `validate` still runs on every value.
 */
function withoutFormatPatterns(node: Json): Json {
  if (Array.isArray(node)) return node.map(withoutFormatPatterns);
  if (typeof node !== "object" || node === null || !isJsonObject(node)) return node;
  const format = node["format"];
  const known = typeof format === "string" && STRING_FORMATS.some((name) => name === format);
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(node)) {
    if (known && key === "pattern") continue;
    // `properties` maps names to schemas; every other member is walked the same way.
    out[key] = withoutFormatPatterns(value);
  }
  return out;
}

/** A zod 4 schema (classic or mini): zod's own `toJSONSchema` writes its JSON Schema. */
function isZod(schema: StandardSchema): schema is StandardSchema & z.core.$ZodType {
  return schema["~standard"].vendor === "zod" && "_zod" in schema;
}

/** The schema's JSON Schema: its Standard JSON Schema when it has one, else zod's `toJSONSchema`. */
function jsonSchemaOf(schema: StandardSchema, io: "input" | "output", tool: string): unknown {
  const converter = schema["~standard"].jsonSchema;
  if (converter !== undefined) return converter[io]({ target: "draft-2020-12" });
  if (isZod(schema)) return z.toJSONSchema(schema, { io, target: "draft-2020-12" });
  throw new TypeError(
    `defineTool ${tool}: the ${io} schema (${schema["~standard"].vendor}) has no JSON Schema (~standard.jsonSchema); use a zod 4 schema`,
  );
}

/**
 * The schema's JSON Schema (`io`: what it accepts or what it produces), checked against the
 * gate's subset and compiled. Throws a `TypeError` naming the tool, the side and the JSON
 * pointer of what the subset cannot express: a tool is refused when it is defined, never on a call.
 */
export function gateSchema(schema: StandardSchema, io: "input" | "output", tool: string): CompiledSchema {
  let document: unknown;
  try {
    document = jsonSchemaOf(schema, io, tool);
  } catch (error) {
    if (error instanceof TypeError && error.message.startsWith("defineTool ")) throw error;
    const reason = error instanceof Error ? error.message : "conversion failed";
    throw new TypeError(`defineTool ${tool}: the ${io} schema cannot be written as JSON Schema: ${reason}`);
  }
  if (!isJsonObject(document)) throw new TypeError(`defineTool ${tool}: the ${io} schema's JSON Schema is not JSON`);
  const cleaned = withoutFormatPatterns(document);
  if (!isJsonObject(cleaned)) throw new TypeError(`defineTool ${tool}: the ${io} schema's JSON Schema is not JSON`);
  if (cleaned["type"] !== "object")
    throw new TypeError(`defineTool ${tool}: the ${io} schema must be an object schema (z.object)`);
  const compiled = compileSchema(cleaned);
  if (!compiled.ok)
    throw new TypeError(
      `defineTool ${tool}: the ${io} schema at ${compiled.error.pointer === "" ? "(root)" : compiled.error.pointer}: ${compiled.error.message}`,
    );
  return compiled.value;
}

/**
 * Validates synchronously (the engine's first step cannot wait): a schema whose `validate`
 * answers a promise (an async refinement) is a definition error, thrown on its first call.
 */
export function validateNow<Output>(schema: StandardSchema<unknown, Output>, value: unknown): StandardResult<Output> {
  const result = schema["~standard"].validate(value);
  if (result instanceof Promise) {
    result.catch(() => undefined);
    throw new TypeError("a tool's input schema must validate synchronously (no async refinements)");
  }
  return result;
}
