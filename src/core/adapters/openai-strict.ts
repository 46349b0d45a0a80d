/**
 * A tool's input schema in the form OpenAI's strict function calling accepts (`strict: true`).
 *
 * Strict mode decodes against the schema, so it admits only a documented subset of JSON Schema:
 *
 * - every object lists all its properties in `required` and sets `additionalProperties: false`;
 *   a property the tool leaves optional becomes nullable instead (`type: [T, "null"]`, and
 *   `null` joins its `enum`), so the model sends `null` where it would have left it out —
 *   {@link fromOpenAiStrictArguments} turns those `null`s back into absent members;
 * - kept as they are: `type`, `properties`, `items`, `enum`, `pattern`, `minimum`, `maximum`,
 *   `exclusiveMinimum`, `exclusiveMaximum`, `minItems`, `maxItems`, `title`, `description`
 *   (the "Supported properties" of OpenAI's Structured Outputs guide);
 * - `const: v` becomes the equivalent `enum: [v]` (the guide lists `enum`, not `const`);
 * - `minLength` and `maxLength` are not in that list: they are dropped from the schema and stated
 *   in the property's description instead ("Between 1 and 64 characters long."). The gate still
 *   enforces them, and every other keyword, when the call arrives: the declaration guides the
 *   model, the gate's validation decides.
 * @module
 */
import { canonicalJson, type Json, type JsonObject } from "../json";
import { acceptsNull, copyJson, isJsonObject, member, propertiesOf, requiredNames, schemaNode } from "./schema-nodes";

/** Keywords copied unchanged into the strict form. */
const KEPT = new Set([
  "type",
  "title",
  "enum",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
]);

/** The description sentence stating the length bounds strict mode cannot carry. */
function lengthNote(node: JsonObject): string | null {
  const min = member(node, "minLength");
  const max = member(node, "maxLength");
  if (min !== undefined && max !== undefined)
    return `Between ${canonicalJson(min)} and ${canonicalJson(max)} characters long.`;
  if (min !== undefined) return `At least ${canonicalJson(min)} characters long.`;
  if (max !== undefined) return `At most ${canonicalJson(max)} characters long.`;
  return null;
}

/** `description` followed by `note` as a sentence of its own. */
function withNote(description: Json | undefined, note: string | null): Json | undefined {
  if (note === null) return description;
  if (typeof description !== "string" || description === "") return note;
  return /[.!?]$/u.test(description) ? `${description} ${note}` : `${description}. ${note}`;
}

/** The node's `type` and `enum` widened to admit `null` (a node that admits it already is kept). */
function nullable(node: JsonObject): JsonObject {
  if (acceptsNull(node)) return node;
  const widened: [string, Json][] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "type") widened.push([key, Array.isArray(value) ? [...value, "null"] : [value, "null"]]);
    else if (key === "enum" && Array.isArray(value)) widened.push([key, [...value, null]]);
    else widened.push([key, value]);
  }
  return Object.fromEntries(widened);
}

function strictNode(node: JsonObject, optional: boolean, where: string): JsonObject {
  const out: [string, Json][] = [];
  const properties = propertiesOf(node);
  for (const [key, value] of Object.entries(node)) {
    if (KEPT.has(key)) out.push([key, copyJson(value)]);
    else if (key === "const") out.push(["enum", [copyJson(value)]]);
    else if (key === "items") out.push([key, strictNode(schemaNode(value, `${where}/items`), false, `${where}/items`)]);
    // `properties`, `required`, `additionalProperties` and `description` are written below;
    // `minLength`/`maxLength` move into the description; nothing else is in the subset.
  }
  if (properties !== undefined || member(node, "type") === "object") {
    const required = requiredNames(node);
    const names = Object.keys(properties ?? {});
    const strictProperties = names.map((name): [string, Json] => {
      const child = schemaNode(member(properties ?? {}, name), `${where}/properties/${name}`);
      return [name, strictNode(child, !required.has(name), `${where}/properties/${name}`)];
    });
    out.push(
      ["properties", Object.fromEntries(strictProperties)],
      ["required", names],
      ["additionalProperties", false],
    );
  }
  const description = withNote(member(node, "description"), lengthNote(node));
  if (description !== undefined) out.push(["description", copyJson(description)]);
  const strict = Object.fromEntries(out);
  return optional ? nullable(strict) : strict;
}

/**
 * The strict form of a tool's input schema (its root an object schema). Throws when the schema
 * is not an object schema: definitions are validated before they are declared.
 */
export function toOpenAiStrictSchema(input: JsonObject): JsonObject {
  if (member(input, "type") !== "object") throw new TypeError("a tool's input schema must be an object schema");
  return strictNode(input, false, "");
}

function restore(node: JsonObject, value: Json): Json {
  if (Array.isArray(value)) {
    const items = member(node, "items");
    return isJsonObject(items) ? value.map((item) => restore(items, item)) : value;
  }
  const properties = propertiesOf(node);
  if (!isJsonObject(value) || properties === undefined) return value;
  const required = requiredNames(node);
  const kept: [string, Json][] = [];
  for (const [name, item] of Object.entries(value)) {
    const child = member(properties, name);
    if (!isJsonObject(child))
      kept.push([name, item]); // not declared: left for the gate to refuse
    else if (item === null && !required.has(name) && !acceptsNull(child))
      continue; // the strict form's "left out"
    else kept.push([name, restore(child, item)]);
  }
  return Object.fromEntries(kept);
}

/**
 * Arguments a model produced against {@link toOpenAiStrictSchema}'s form, read back against the
 * tool's own input schema: a `null` for an optional property whose own schema refuses `null`
 * means "left out" and is removed, at any depth (nested objects, array items). Everything else is
 * returned as it came, for the gate's validation to judge. Pure; the arguments are not modified.
 */
export function fromOpenAiStrictArguments(input: JsonObject, args: JsonObject): JsonObject {
  const restored = restore(input, args);
  if (!isJsonObject(restored)) throw new TypeError("arguments of an object schema stay an object");
  return restored;
}
