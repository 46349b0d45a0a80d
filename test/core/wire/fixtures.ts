import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Json, readJson } from "../../../src/core/json";

const dir = fileURLToPath(new URL("../../../fixtures/execution/", import.meta.url));

/** The 12 golden envelope fixture names. */
export const FIXTURE_NAMES = readdirSync(dir)
  .filter((name) => name.endsWith(".v1.json"))
  .sort();

/** The text of a fixture file. */
export function fixtureText(name: string): string {
  return readFileSync(`${dir}${name}`, "utf8");
}

/** A fixture read with the strict reader, as a mutable JSON value. */
export function fixtureValue(name: string): Json {
  const read = readJson(fixtureText(name), { integers: "bigint", maxBytes: 1 << 20 });
  if (!read.ok) throw new Error(`fixture ${name} is not JSON: ${read.error.message}`);
  return read.value;
}

/** Test-side JSON text for a mutated value (fixtures hold no floats that need care except 0.5). */
export function toText(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? `__big__${item}` : item)).replace(
    /"__big__(-?\d+)"/g,
    "$1",
  );
}

/** Reads a nested value by keys/indices; throws when absent so a typo cannot pass silently. */
export function at(value: Json, ...path: (string | number)[]): Json {
  let node: unknown = value;
  for (const key of path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key))
      throw new Error(`no ${String(key)} in fixture path`);
    node = (node as Record<string | number, unknown>)[key];
  }
  return node as Json;
}

/** Sets a nested value; the parent must exist. */
export function setAt(value: Json, path: (string | number)[], item: Json | undefined): void {
  const parent = at(value, ...path.slice(0, -1)) as Record<string | number, Json>;
  const key = path[path.length - 1] as string | number;
  if (item === undefined) delete parent[key];
  else parent[key] = item;
}
