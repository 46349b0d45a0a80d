/**
 * The container types: objects (declared `properties`, `required`, other members always refused)
 * and arrays (one `items` schema, `maxItems` required, optional `minItems`).
 * @module
 */
import { codePointLength } from "../json/python-text";
import type { Json, JsonObject } from "../json/value";
import { SCHEMA_LIMITS } from "./limits";
import { hasType, isJsonObject, readCount } from "./scalars";
import { bounded } from "./expected";
import { fail, refuse, segment, type Check } from "./types";

/** Compiles a child schema one level deeper. */
export type ChildCompiler = (schema: Json, pointer: string, depth: number) => Check;

function readProperties(node: JsonObject, pointer: string, depth: number, child: ChildCompiler): Map<string, Check> {
  const members = new Map<string, Check>();
  if (!Object.hasOwn(node, "properties")) return members;
  const at = pointer + segment("properties");
  const properties = node["properties"];
  if (!isJsonObject(properties)) {
    return refuse(at, `"properties" must be an object`);
  }
  const names = Object.keys(properties);
  if (names.length > SCHEMA_LIMITS.maxProperties)
    refuse(at, `"properties" has more than ${SCHEMA_LIMITS.maxProperties} members`);
  for (const name of names) {
    if (codePointLength(name) > SCHEMA_LIMITS.maxPropertyNameLength) {
      refuse(at + segment(name), `a property name is longer than ${SCHEMA_LIMITS.maxPropertyNameLength} code points`);
    }
    members.set(name, child(properties[name] as Json, at + segment(name), depth + 1));
  }
  return members;
}

function readRequired(node: JsonObject, pointer: string, members: Map<string, Check>): string[] {
  if (!Object.hasOwn(node, "required")) return [];
  const at = pointer + segment("required");
  const list = node["required"];
  if (!Array.isArray(list)) return refuse(at, `"required" must be an array of property names`);
  const names: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const name = list[i];
    if (typeof name !== "string") refuse(at + segment(i), `"required" must be an array of property names`);
    if (!members.has(name)) refuse(at + segment(i), `"required" names a property that "properties" does not declare`);
    if (names.includes(name)) refuse(at + segment(i), `"required" repeats a name`);
    names.push(name);
  }
  return names;
}

/** Compiles an `object` node. A member `properties` does not declare fails `additionalProperties`. */
export function compileObject(node: JsonObject, pointer: string, depth: number, child: ChildCompiler): Check {
  const members = readProperties(node, pointer, depth, child);
  const required = readRequired(node, pointer, members);
  if (Object.hasOwn(node, "additionalProperties") && node["additionalProperties"] !== false) {
    refuse(
      pointer + segment("additionalProperties"),
      `"additionalProperties" must be false (undeclared members are always refused)`,
    );
  }
  return (value, trail) => {
    if (!hasType("object", value)) return fail(trail, "type", "an object");
    const record = value as Record<string, unknown>;
    for (const name of required) {
      if (!Object.hasOwn(record, name)) {
        trail?.push("required", "a value: the member is required", segment(name));
        return false;
      }
    }
    for (const key in record) {
      if (!Object.hasOwn(record, key)) continue;
      const check = members.get(key);
      if (check === undefined) {
        // The name is the sender's: shown bounded and visible, never as it came.
        trail?.push("additionalProperties", "no such member: the schema does not declare it", segment(bounded(key)));
        return false;
      }
      if (!check(record[key], trail)) {
        trail?.push(segment(key));
        return false;
      }
    }
    return true;
  };
}

/** Compiles an `array` node: `items` and `maxItems` are required. */
export function compileArray(node: JsonObject, pointer: string, depth: number, child: ChildCompiler): Check {
  if (!Object.hasOwn(node, "items")) refuse(pointer, `an "array" schema requires "items"`);
  const maxItems = readCount(node, "maxItems", pointer, SCHEMA_LIMITS.maxItems);
  if (maxItems === undefined)
    return refuse(pointer, `an "array" schema requires "maxItems" (at most ${SCHEMA_LIMITS.maxItems})`);
  const minItems = readCount(node, "minItems", pointer, SCHEMA_LIMITS.maxItems) ?? 0;
  if (minItems > maxItems) refuse(pointer + segment("minItems"), `"minItems" exceeds "maxItems"`);
  const item = child(node["items"] as Json, pointer + segment("items"), depth + 1);
  return (value, trail) => {
    if (!Array.isArray(value)) return fail(trail, "type", "an array");
    if (value.length > maxItems) return fail(trail, "maxItems", `an array of at most ${maxItems} items`);
    if (value.length < minItems) return fail(trail, "minItems", `an array of at least ${minItems} items`);
    for (let i = 0; i < value.length; i++) {
      if (!item(value[i], trail)) {
        trail?.push(segment(i));
        return false;
      }
    }
    return true;
  };
}
