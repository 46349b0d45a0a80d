/**
 * `compileSchema`: checks a schema document against the subset (refusing anything else with the
 * pointer of the offending keyword) and compiles it once into closures.
 * @module
 */
import { checkJsonDomain } from "../json/domain";
import type { Json, JsonObject } from "../json/value";
import { err, ok, type Result } from "../result";
import { compileArray, compileObject } from "./containers";
import { compileConstant, compileNumeric, compileString } from "./leaves";
import { resolveMaxDepth, SCHEMA_LIMITS, type SchemaOptions } from "./limits";
import { compileLiterals } from "./literals";
import { isJsonObject, readText, SCHEMA_TYPES, type SchemaType } from "./scalars";
import { refuse, SchemaRefused, segment, type Check, type CompiledSchema, type SchemaRefusal } from "./types";
import { compiledSchema } from "./validate";

const COMMON = ["type", "description", "title", "enum", "const"];

/** The keywords each type admits besides {@link COMMON}. */
const BY_TYPE: Record<SchemaType, readonly string[]> = {
  object: ["properties", "required", "additionalProperties"],
  array: ["items", "maxItems", "minItems"],
  string: ["minLength", "maxLength", "pattern"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"],
  boolean: [],
  null: [],
};

const KNOWN = new Set([...COMMON, ...Object.values(BY_TYPE).flat()]);
const TYPE_LIST = SCHEMA_TYPES.map((t) => `"${t}"`).join(", ");

/** A keyword as a message shows it: quoted, at most 64 code points. */
function shown(key: string): string {
  const points = Array.from(key.length > 256 ? key.slice(0, 256) : key);
  return JSON.stringify(points.length > 64 ? `${points.slice(0, 64).join("")}…` : points.join(""));
}

class Compiler {
  private nodes = 0;

  constructor(private readonly maxDepth: number) {}

  readonly node = (schema: Json, pointer: string, depth: number): Check => {
    if (++this.nodes > SCHEMA_LIMITS.maxNodes)
      refuse(pointer, `the schema has more than ${SCHEMA_LIMITS.maxNodes} schema objects`);
    if (depth > this.maxDepth) refuse(pointer, `the schema nests deeper than ${this.maxDepth} levels`);
    if (!isJsonObject(schema)) {
      return refuse(pointer, "a schema must be a JSON object (boolean schemas are not supported)");
    }
    for (const key in schema) {
      if (Object.hasOwn(schema, key) && !KNOWN.has(key))
        refuse(pointer + segment(key), `unsupported keyword ${shown(key)}`);
    }
    const type = this.type(schema, pointer);
    const allowed = BY_TYPE[type];
    for (const key in schema) {
      if (Object.hasOwn(schema, key) && !COMMON.includes(key) && !allowed.includes(key)) {
        refuse(pointer + segment(key), `"${key}" does not apply to type "${type}"`);
      }
    }
    readText(schema, "description", pointer, SCHEMA_LIMITS.maxTextLength);
    readText(schema, "title", pointer, SCHEMA_LIMITS.maxTextLength);
    const literals = compileLiterals(schema, pointer, type);
    switch (type) {
      case "object":
        return compileObject(schema, pointer, depth, this.node);
      case "array":
        return compileArray(schema, pointer, depth, this.node);
      case "string":
        return compileString(schema, pointer, literals);
      case "integer":
      case "number":
        return compileNumeric(schema, pointer, type, literals);
      case "boolean":
      case "null":
        return compileConstant(type, literals);
    }
  };

  private type(schema: JsonObject, pointer: string): SchemaType {
    if (!Object.hasOwn(schema, "type")) return refuse(pointer, `a schema must declare its "type"`);
    const type = schema["type"];
    const known = SCHEMA_TYPES.find((t) => t === type);
    if (known === undefined) return refuse(pointer + segment("type"), `"type" must be one string of ${TYPE_LIST}`);
    return known;
  }
}

/**
 * Compiles a tool's `input` or `output` schema. The subset is described in this module's
 * index, every bound in {@link SCHEMA_LIMITS}; anything else answers a {@link SchemaRefusal} with
 * the pointer of the offending keyword. A `maxDepth` outside 1–16 is the caller's bug and throws.
 */
export function compileSchema(schema: Json, options: SchemaOptions = {}): Result<CompiledSchema, SchemaRefusal> {
  const maxDepth = resolveMaxDepth(options);
  const domain = checkJsonDomain(schema);
  if (domain !== null) return err({ pointer: "", message: `the schema is outside the JSON domain: ${domain}` });
  if (!isJsonObject(schema)) {
    return err({ pointer: "", message: "a schema must be a JSON object (boolean schemas are not supported)" });
  }
  try {
    const check = new Compiler(maxDepth).node(schema, "", 1);
    return ok(compiledSchema(schema, check));
  } catch (caught) {
    if (caught instanceof SchemaRefused) return err(caught.refusal);
    throw caught;
  }
}
