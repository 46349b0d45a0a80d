import type { JsonObject } from "../../../core/json";
import type { ArgumentRule, ToolRegistry, ToolSpec } from "../../../core/tool-result/tool-spec";

const SCHEMA_TYPES = { str: "string", int: "integer", float: "number", bool: "boolean" } as const;

/** A flat argument rule as a JSON Schema property (the catalog's and embedded tools'). */
function ruleSchema(rule: ArgumentRule): JsonObject {
  const schema: JsonObject = { type: SCHEMA_TYPES[rule.type] };
  if (rule.minLength !== undefined) schema["minLength"] = rule.minLength;
  if (rule.maxLength !== undefined) schema["maxLength"] = rule.maxLength;
  if (rule.enum !== undefined) schema["enum"] = [...rule.enum];
  return schema;
}

/** A tool's input as a JSON Schema: its own schema, or one written from its flat rules. */
export function inputSchemaOf(spec: ToolSpec): JsonObject {
  if (spec.inputSchema !== undefined) return spec.inputSchema.document;
  const names = Object.keys(spec.arguments).sort();
  const properties: JsonObject = {};
  for (const name of names) properties[name] = ruleSchema(spec.arguments[name] as ArgumentRule);
  return { type: "object", properties, required: names, additionalProperties: false };
}

/** What the declarations of a registry's tools are made from, by name. */
export function declarationInputs(
  registry: ToolRegistry,
): Array<{ name: string; description: string; input: JsonObject; confirmedBy?: "end_user" }> {
  return [...registry.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((spec) => ({
      name: spec.name,
      description: spec.description ?? `${spec.risk === "write" ? "Changes" : "Reads"} data through ${spec.name}.`,
      input: inputSchemaOf(spec),
      ...(spec.confirmedBy === "end_user" ? { confirmedBy: "end_user" as const } : {}),
    }));
}
