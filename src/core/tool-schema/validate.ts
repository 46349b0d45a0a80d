/**
 * The compiled schema: `validate` runs the closures with no trail; `explain` runs them again with
 * one and formats the first failure. Each closure descends one schema level, so the recursion is
 * bounded by the schema's depth (at most 16), never by the instance.
 * @module
 */
import type { Json, JsonObject } from "../json/value";
import type { Check, CompiledSchema } from "./types";

/** Wraps a document and its root check. */
export function compiledSchema(document: JsonObject, root: Check): CompiledSchema {
  return {
    document,
    validate: (value: Json) => root(value, null),
    explain: (value: Json) => {
      const trail: string[] = [];
      if (root(value, trail)) return null;
      const [keyword, , ...segments] = trail;
      const pointer = segments.reverse().join("");
      return `${pointer === "" ? "(root)" : pointer}: ${keyword}`;
    },
    describe: (value: Json) => {
      const trail: string[] = [];
      if (root(value, trail)) return null;
      const [, expected = "", ...segments] = trail;
      return { pointer: segments.reverse().join(""), expected };
    },
  };
}
