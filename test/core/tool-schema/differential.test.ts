// Differential test against the independent validator @cfworker/json-schema (draft 2020-12):
// generated schemas of the subset (fixed seed) and, for each, generated documents near the
// boundaries of every supported keyword; both validators must give the same verdict.
//
// Two documented differences are applied to the independent side, never to ours:
// - absent `additionalProperties` means false in the subset, so cfworker's copy of the schema
//   gets an explicit `"additionalProperties": false` on every object;
// - `integer` and integral floats: the JSON text `1.0` is a float for the reference (readJson's
//   PyFloat) and not an integer, while JSON Schema calls it an integer. We ASSERT THE DIVERGENCE
//   EXPLICITLY: our verdict on the document with PyFloats turned into plain numbers must equal
//   cfworker's on every document, and where our verdict on the document as read differs, it must
//   be ours = invalid, cfworker = valid, failing "type" at a PyFloat under an `integer` schema.
import { Validator } from "@cfworker/json-schema";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PyFloat, readJson, type Json } from "../../../src/core/json";
import { compileSchema } from "../../../src/core/tool-schema";
import { documentArb, schemaArb, type GenSchema } from "./generators";

const SEED = 20_250_812;
const SCHEMAS = 400;
const DOCUMENTS_PER_SCHEMA = 25;
const KEYWORDS = [
  "type",
  "enum",
  "const",
  "required",
  "additionalProperties",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
];

function read(text: string): Json {
  const result = readJson(text);
  if (!result.ok) throw new Error(`generated an unreadable text ${text}: ${result.error.message}`);
  return result.value;
}

/** The schema as cfworker must see it: every object closed explicitly. */
function closed(schema: GenSchema): GenSchema {
  if (schema.type === "array") return { ...schema, items: closed(schema["items"] as GenSchema) };
  if (schema.type !== "object") return schema;
  const properties = Object.entries(schema["properties"] as Record<string, GenSchema>).map(([k, v]) => [k, closed(v)]);
  return { ...schema, properties: Object.fromEntries(properties), additionalProperties: false };
}

/** The document with every PyFloat as a plain number (JSON.parse's reading). */
function plain(value: Json): Json {
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** Follows an instance pointer (as explain prints it) through the document and the schema. */
function resolve(document: Json, schema: GenSchema, pointer: string): { value: unknown; schema: GenSchema } {
  let value: unknown = document;
  let at = schema;
  for (const raw of pointer.split("/").slice(1)) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    value = (value as Record<string, unknown>)[token];
    at =
      at.type === "array"
        ? (at["items"] as GenSchema)
        : ((at["properties"] as Record<string, GenSchema>)[token] as GenSchema);
  }
  return { value, schema: at };
}

describe("differential: tool-schema against @cfworker/json-schema", () => {
  it("gives the same verdict on every generated document", () => {
    const cases = fc.sample(
      schemaArb(2).chain((schema) =>
        fc.tuple(
          fc.constant(schema),
          fc.array(documentArb(schema), { minLength: DOCUMENTS_PER_SCHEMA, maxLength: DOCUMENTS_PER_SCHEMA }),
        ),
      ),
      { seed: SEED, numRuns: SCHEMAS },
    );
    const mismatches: string[] = [];
    const decided = new Map<string, number>(KEYWORDS.map((k) => [k, 0]));
    let documents = 0;
    let valid = 0;
    let divergences = 0;
    for (const [schema, texts] of cases) {
      const text = JSON.stringify(schema);
      const ours = compileSchema(read(text));
      if (!ours.ok) throw new Error(`generated a refused schema ${text}: ${ours.error.pointer} ${ours.error.message}`);
      const theirs = new Validator(closed(schema) as never, "2020-12");
      for (const doc of texts) {
        documents++;
        const value = read(doc);
        const expected = theirs.validate(JSON.parse(doc)).valid;
        const asNumbers = ours.value.validate(plain(value));
        if (asNumbers !== expected) mismatches.push(`${text} on ${doc}: ours ${asNumbers}, cfworker ${expected}`);
        const explained = ours.value.explain(value);
        if (explained === null) valid++;
        else {
          const keyword = explained.slice(explained.lastIndexOf(": ") + 2);
          decided.set(keyword, (decided.get(keyword) ?? 0) + 1);
        }
        if ((explained === null) !== expected) {
          const pointer = explained?.slice(0, explained.lastIndexOf(": ")) ?? "";
          const at = resolve(value, schema, pointer === "(root)" ? "" : pointer);
          const explainedDivergence = !expected
            ? false
            : explained?.endsWith(": type") && at.value instanceof PyFloat && at.schema.type === "integer";
          if (explainedDivergence === true) divergences++;
          else mismatches.push(`${text} on ${doc}: ours ${explained}, cfworker ${expected}`);
        }
      }
    }
    console.log(
      `differential: ${SCHEMAS} schemas, ${documents} documents, ${valid} valid, ${documents - valid} invalid, ` +
        `${divergences} integral floats under "integer" (the asserted divergence); invalid verdicts by keyword: ${JSON.stringify(Object.fromEntries(decided))}`,
    );
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(documents).toBe(SCHEMAS * DOCUMENTS_PER_SCHEMA);
    // Every keyword decided some verdicts, both verdicts are common, and the divergence was exercised.
    expect(KEYWORDS.filter((k) => (decided.get(k) ?? 0) < 10)).toEqual([]);
    expect(valid > documents / 5 && valid < (documents * 4) / 5).toBe(true);
    expect(divergences >= 20).toBe(true);
  }, 30_000); // a property run over hundreds of generated schemas: seconds on a busy 2-core machine
});
