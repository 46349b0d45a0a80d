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
import { fail, refuse, SchemaRefused, segment, type Check, type CompiledSchema, type SchemaRefusal } from "./types";
import { typeNoun } from "./expected";
import { compiledSchema } from "./validate";

/** Keywords any typed node may carry (`default` is an annotation: never read). */
const COMMON = ["type", "description", "title", "enum", "const", "default"];

/** The keywords of an `anyOf` node (no `type`: each alternative has its own). */
const ANY_OF = new Set(["anyOf", "description", "title", "default"]);

/** The keywords each type admits besides {@link COMMON}. */
const BY_TYPE: Record<SchemaType, readonly string[]> = {
  object: ["properties", "required", "additionalProperties"],
  array: ["items", "maxItems", "minItems"],
  string: ["minLength", "maxLength", "pattern", "format"],
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
    // The document's own `$schema` (zod and the MCP SDK write one) names a dialect; the subset is the rule.
    const keys = Object.keys(schema).filter((key) => !(pointer === "" && key === "$schema"));
    if (pointer === "" && Object.hasOwn(schema, "$schema") && typeof schema["$schema"] !== "string")
      refuse(segment("$schema"), `"$schema" must be a string`);
    if (Object.hasOwn(schema, "anyOf") && !Object.hasOwn(schema, "type"))
      return this.anyOf(schema, keys, pointer, depth);
    for (const key of keys) {
      if (!KNOWN.has(key)) refuse(pointer + segment(key), `unsupported keyword ${shown(key)}`);
    }
    const types = this.types(schema, pointer);
    const allowed = new Set(types.flatMap((type) => BY_TYPE[type]));
    for (const key of keys) {
      if (!COMMON.includes(key) && !allowed.has(key)) {
        refuse(pointer + segment(key), `"${key}" does not apply to type ${types.map((t) => `"${t}"`).join(" or ")}`);
      }
    }
    readText(schema, "description", pointer, SCHEMA_LIMITS.maxTextLength);
    readText(schema, "title", pointer, SCHEMA_LIMITS.maxTextLength);
    const [only] = types;
    if (types.length === 1 && only !== undefined) return this.typed(schema, pointer, depth, only);
    // A list of types (zod's union of scalars, the SDK's nullable): each type with the keywords that apply to it.
    const checks = types.map((type) => {
      const own = Object.fromEntries(
        Object.entries(schema).filter(
          ([key]) => key !== "type" && (COMMON.includes(key) || BY_TYPE[type].includes(key)),
        ),
      );
      return this.typed({ ...own, type }, pointer, depth, type);
    });
    const nouns = typeNoun(types);
    return (value, trail) => (checks.some((check) => check(value, null)) ? true : fail(trail, "type", nouns));
  };

  private typed(schema: JsonObject, pointer: string, depth: number, type: SchemaType): Check {
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
  }

  /** `anyOf` (zod's unions and nullables): the value passes when one alternative does. */
  private anyOf(schema: JsonObject, keys: readonly string[], pointer: string, depth: number): Check {
    for (const key of keys) {
      if (!ANY_OF.has(key))
        refuse(pointer + segment(key), `"${key}" does not apply beside "anyOf" (give it to each alternative)`);
    }
    readText(schema, "description", pointer, SCHEMA_LIMITS.maxTextLength);
    readText(schema, "title", pointer, SCHEMA_LIMITS.maxTextLength);
    const at = pointer + segment("anyOf");
    const list = schema["anyOf"];
    if (!Array.isArray(list) || list.length === 0 || list.length > SCHEMA_LIMITS.maxAnyOf)
      return refuse(at, `"anyOf" must be an array of 1 to ${SCHEMA_LIMITS.maxAnyOf} schemas`);
    const alternatives = list.map((alternative, i) => this.node(alternative, at + segment(i), depth + 1));
    const alike = `a value matching one of the ${alternatives.length} alternatives of its schema`;
    return (value, trail) => (alternatives.some((check) => check(value, null)) ? true : fail(trail, "anyOf", alike));
  }

  /** The node's types: one name, or a list of distinct names (`["string", "null"]`: the MCP SDK's nullable). */
  private types(schema: JsonObject, pointer: string): SchemaType[] {
    if (!Object.hasOwn(schema, "type")) return refuse(pointer, `a schema must declare its "type"`);
    const type = schema["type"];
    const names = Array.isArray(type) ? type : [type];
    const known = names.map((name) => SCHEMA_TYPES.find((t) => t === name));
    const types = known.filter((t) => t !== undefined);
    if (types.length === 0 || types.length !== names.length || new Set(types).size !== types.length)
      return refuse(pointer + segment("type"), `"type" must be one of ${TYPE_LIST}, or a list of distinct ones`);
    return types;
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
