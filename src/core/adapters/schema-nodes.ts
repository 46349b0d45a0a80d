/**
 * Small readers over a tool's input schema (the gate's JSON Schema 2020-12 subset), shared by the
 * declaration builders and the OpenAI strict-arguments reader. Every input reaching them was
 * checked at definition time, so a malformed node is a caller's bug and throws.
 * @module
 */
import { PyFloat, type Json, type JsonObject } from "../json";

/** True for a JSON object (not an array, not null, not a {@link PyFloat}). */
export function isJsonObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof PyFloat);
}

/** The node at `value`, which must be a schema object (a definition validated upstream). */
export function schemaNode(value: Json | undefined, where: string): JsonObject {
  if (!isJsonObject(value)) throw new TypeError(`${where} is not a schema object: the definition was not validated`);
  return value;
}

/** Own member of a JSON object (a member named `__proto__` included), or `undefined`. */
export function member(node: JsonObject, key: string): Json | undefined {
  return Object.prototype.hasOwnProperty.call(node, key) ? node[key] : undefined;
}

/** The names in a node's `required` list (none when it has no list). */
export function requiredNames(node: JsonObject): ReadonlySet<string> {
  const required = member(node, "required");
  if (required === undefined) return new Set();
  if (!Array.isArray(required) || !required.every((name) => typeof name === "string")) {
    throw new TypeError("`required` is not a list of names: the definition was not validated");
  }
  return new Set(required);
}

/** A node's `properties` map, or `undefined` when it declares none. */
export function propertiesOf(node: JsonObject): JsonObject | undefined {
  const properties = member(node, "properties");
  return properties === undefined ? undefined : schemaNode(properties, "`properties`");
}

/**
 * True when `null` satisfies the node's `type`, `enum` and `const` (the keywords of the subset
 * that can refuse it): an optional property whose schema already admits `null` keeps its schema
 * in the strict form, and a `null` sent for it stays a value.
 */
export function acceptsNull(node: JsonObject): boolean {
  const type = member(node, "type");
  const typeOk = type === undefined || type === "null" || (Array.isArray(type) && type.includes("null"));
  const values = member(node, "enum");
  const enumOk = values === undefined || (Array.isArray(values) && values.includes(null));
  const constant = member(node, "const");
  return typeOk && enumOk && (constant === undefined || constant === null);
}

/** A deep copy of a JSON value: new objects and arrays, `__proto__` kept as an ordinary key. */
export function copyJson(value: Json): Json {
  if (Array.isArray(value)) return value.map(copyJson);
  if (isJsonObject(value)) return copyObject(value);
  return value;
}

/** A deep copy of a JSON object (see {@link copyJson}). */
export function copyObject(node: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, copyJson(item)]));
}
