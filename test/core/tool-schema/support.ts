// Helpers of the tool-schema tests: schemas and documents go through the strict reader, so ints
// and floats are the reference's (`1.0` is a PyFloat).
import { readJson, type Json } from "../../../src/core/json";
import {
  compileSchema,
  type CompiledSchema,
  type SchemaOptions,
  type SchemaRefusal,
} from "../../../src/core/tool-schema";

/** Reads a JSON text strictly; throws on a text the test should not have written. */
export function json(text: string): Json {
  const read = readJson(text, { maxBytes: 1 << 20 });
  if (!read.ok) throw new Error(`bad test JSON: ${read.error.message}`);
  return read.value;
}

/** Compiles a schema text that must be accepted. */
export function compiled(text: string, options?: SchemaOptions): CompiledSchema {
  const result = compileSchema(json(text), options);
  if (!result.ok) throw new Error(`refused at ${result.error.pointer}: ${result.error.message}`);
  return result.value;
}

/** Compiles a schema (text or value) that must be refused, and answers the refusal. */
export function refusal(schema: string | Json, options?: SchemaOptions): SchemaRefusal {
  const result = compileSchema(typeof schema === "string" ? json(schema) : schema, options);
  if (result.ok) throw new Error("the schema was accepted");
  return result.error;
}

/** The verdicts of one schema on document texts: `null` for valid, else the explanation. */
export function verdicts(schema: CompiledSchema, documents: readonly string[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const text of documents) {
    const value = json(text);
    const explained = schema.explain(value);
    if ((explained === null) !== schema.validate(value)) throw new Error(`validate and explain disagree on ${text}`);
    out[text] = explained;
  }
  return out;
}
