import * as z from "../../../core/zod";
import { u64 } from "../../../core/capability";
import { httpSchemas } from "../../../contracts/registry";

/**
 * The document's component schemas, generated from the zod contracts (`z.toJSONSchema`) twice:
 * as the server reads them (`io: "input"`) for what a client sends, and as the server writes
 * them for what it answers. A request field the server defaults is optional and says its default
 * in words (a JSON Schema `default` would make generated clients require it). Only the schemas an
 * operation or a webhook reaches are kept.
 * @module
 */

type Json = Record<string, unknown>;

const URI = (id: string): string => `#/components/schemas/${id}`;

const UNREPRESENTABLE = "x-unrepresentable";
/** The zod types whose JSON Schema comes out empty (`{}`, any value) unless a `meta` says what they are. */
const OPAQUE: ReadonlySet<string> = new Set([
  "bigint",
  "custom",
  "transform",
  "date",
  "symbol",
  "map",
  "set",
  "function",
  "promise",
  "nan",
  "undefined",
  "void",
]);

/**
 * What JSON Schema cannot say of a zod schema by itself: a u64 is a union with bigint in memory
 * and a bare integer on the wire; any other unrepresentable part is marked, and refused below.
 */
function override(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: Json }): void {
  if (ctx.zodSchema === u64) {
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- emptied in place: the generator keeps this object
    for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
    Object.assign(ctx.jsonSchema, { type: "integer", minimum: 0, description: "A u64, as a bare JSON integer." });
    return;
  }
  const type = ctx.zodSchema._zod.def.type;
  if (Object.keys(ctx.jsonSchema).length === 0 && OPAQUE.has(type)) ctx.jsonSchema[UNREPRESENTABLE] = type;
}

function refuseUnrepresentable(node: unknown, at: string): void {
  if (typeof node !== "object" || node === null) return;
  if (UNREPRESENTABLE in node)
    throw new Error(
      `${at}: a ${String((node as Json)[UNREPRESENTABLE])} cannot be said in JSON Schema; give it a meta`,
    );
  for (const [key, value] of Object.entries(node)) refuseUnrepresentable(value, `${at}/${key}`);
}

function generate(io: "input" | "output"): Record<string, Json> {
  // The registry holds the contracts built so far: build the rest first (each registers in its order).
  z.buildDeferred();
  const generated = z.toJSONSchema(httpSchemas, { io, uri: URI, unrepresentable: "any", override });
  const schemas: Record<string, Json> = {};
  for (const [id, schema] of Object.entries(generated.schemas)) {
    const { $schema: _s, $id: _i, ...rest } = schema as Json;
    schemas[id] = rest;
  }
  return schemas;
}

/** Moves every `default` of a request schema into its description. */
function defaultsInWords(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(defaultsInWords);
  if (typeof node !== "object" || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) if (key !== "default") out[key] = defaultsInWords(value);
  if ("default" in node) {
    const said = `Default: \`${JSON.stringify((node as Json)["default"])}\`.`;
    out["description"] = typeof out["description"] === "string" ? `${out["description"]} ${said}` : said;
  }
  return out;
}

/** The ids a schema refers to, directly. */
function refsOf(node: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const item of node) refsOf(item, into);
  else if (typeof node === "object" && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith(URI("")))
        into.add(value.slice(URI("").length));
      else refsOf(value, into);
    }
  }
  return into;
}

/** The ids reachable from `roots` in `schemas`. */
function reachable(schemas: Record<string, Json>, roots: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const todo = [...roots];
  for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
    if (seen.has(id)) continue;
    if (schemas[id] === undefined) throw new Error(`the OpenAPI document refers to the unregistered schema ${id}`);
    seen.add(id);
    todo.push(...refsOf(schemas[id], new Set()));
  }
  return seen;
}

/** The id a contract is registered under. */
export function schemaId(schema: z.ZodMiniType): string {
  z.buildDeferred();
  const meta = httpSchemas.get(schema);
  if (meta === undefined) throw new Error("every documented schema is registered in httpSchemas");
  return meta.id;
}

/**
 * The component schemas for requests rooted at `requestIds` and answers rooted at `answerIds`.
 * A schema both reach must read the same both ways (else it needs two ids).
 */
export function componentSchemas(requestIds: Iterable<string>, answerIds: Iterable<string>): Record<string, unknown> {
  const input = generate("input");
  const output = generate("output");
  const read = reachable(input, requestIds);
  const written = reachable(output, answerIds);
  const components: Record<string, unknown> = {};
  for (const id of [...new Set([...read, ...written])].sort()) {
    const asRead = read.has(id) ? defaultsInWords(input[id]) : undefined;
    const asWritten = written.has(id) ? output[id] : undefined;
    if (asRead !== undefined && asWritten !== undefined && JSON.stringify(asRead) !== JSON.stringify(asWritten)) {
      throw new Error(`schema ${id} reads differently in requests and answers: register the two under their own ids`);
    }
    refuseUnrepresentable(asRead ?? asWritten, id);
    components[id] = asRead ?? asWritten;
  }
  return components;
}
