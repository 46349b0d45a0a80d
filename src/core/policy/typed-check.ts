/**
 * A policy checked against its tool's input schema: `args` declared with the schema's properties
 * and the CEL type the runtime conversion (variables.ts) gives each value, so a rule that reads
 * an argument the schema does not declare (`args.amout`) or compares a string argument with a
 * number is refused when the tool is defined, not denied at every call.
 *
 * Only checking uses the declared shape; evaluation keeps `args` a `map<string, dyn>`. A node the
 * declaration cannot type exactly is `dyn` (checked when evaluated, as before):
 *
 * | schema node                       | CEL type                                       |
 * | --------------------------------- | ---------------------------------------------- |
 * | `string`, `boolean`, `null`       | `string`, `bool`, `null`                       |
 * | `integer`                         | `int` (the reader keeps `1.0` out of it)       |
 * | `number`                          | `dyn` (an integral value is an `int`, else a `double`) |
 * | `array`                           | `list<T>` of its scalar items, else `list<dyn>` |
 * | `object`                          | its declared properties, nothing else          |
 * | a list of types, `anyOf`          | `dyn`                                          |
 * @module
 */
import { codePointLength, type Json, type JsonObject } from "../json";
import type { PolicyRefusal } from "./cel";
import { typedEnvironment, type ArgsShape } from "./environment";

const SCALARS: Readonly<Record<string, string>> = { string: "string", boolean: "bool", null: "null", integer: "int" };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The CEL type (or nested shape) of one schema node. */
function typeOf(node: Json | undefined): string | ArgsShape {
  if (!isObject(node)) return "dyn";
  const type = node["type"];
  if (typeof type !== "string") return "dyn";
  if (type === "object") return shapeOf(node);
  if (type === "array") {
    const item = typeOf(node["items"]);
    return typeof item === "string" && item !== "null" ? `list<${item}>` : "list<dyn>";
  }
  return SCALARS[type] ?? "dyn";
}

/** The declared properties of an object node (own members only: `__proto__` is an ordinary name). */
function shapeOf(node: JsonObject): ArgsShape {
  const shape: ArgsShape = {};
  const properties = node["properties"];
  if (!isObject(properties)) return shape;
  for (const name of Object.keys(properties)) {
    Object.defineProperty(shape, name, { value: typeOf(properties[name]), enumerable: true, writable: true });
  }
  return shape;
}

/** The declared shape of `args` for an input schema (an object schema of the subset, already compiled). */
export function argsShape(input: JsonObject): ArgsShape {
  return shapeOf(input);
}

/**
 * Type-checks a policy that `compilePolicy` accepted, with `args` declared from `input`: null when
 * it passes, else the refusal (its position in code points, like every policy refusal).
 */
export function checkPolicyTypes(source: string, input: JsonObject): PolicyRefusal | null {
  const program = typedEnvironment(argsShape(input)).parse(source);
  const checked = program.check();
  const against = "(checked against the tool's input schema)";
  if (!checked.valid) {
    const start = checked.error?.range?.start;
    const summary = checked.error?.summary ?? "the expression does not type-check";
    const readable = summary.replaceAll("$args", "args");
    // `"cc" in args` has no overload on a declared object: `has()` is the test of an optional argument.
    const hint = /^no such overload: string in args\b/.test(readable) ? "; test an argument with has(args.name)" : "";
    return {
      position: start === undefined ? null : codePointLength(source.slice(0, start)),
      message: `${readable} ${against}${hint}`,
    };
  }
  if (checked.type !== "bool" && checked.type !== "dyn") {
    const type = (checked.type ?? "an unknown type").replaceAll("$args", "args");
    return {
      position: codePointLength(source.slice(0, program.ast.start)),
      message: `the expression must answer a bool, not ${type} ${against}`,
    };
  }
  return null;
}
