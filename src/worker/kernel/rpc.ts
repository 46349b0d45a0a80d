import { checkJsonDomain, PyFloat, readJson } from "../../core/json";
import type * as z from "../../core/zod";
import { STORED_JSON } from "./sql";

/** Where a value sits inside a document: its keys and indexes from the root. */
export type ValuePath = readonly (string | number)[];

/**
 * A value the Worker read strictly and checked against its contract, as RPC carries it to the
 * object. Structured clone keeps plain data but not the reader's `PyFloat` class (an integral
 * float such as `1.0`): each travels as its number, and `floats` names where it was, so the
 * object restores it exactly without reading any text again.
 */
export interface Carried<T> {
  /** The value, each `PyFloat` replaced by its number (a copy along those paths only). */
  readonly value: T;
  readonly floats: readonly ValuePath[];
}

/**
 * The value as RPC carries it ({@link Carried}), or the domain error text of a value the
 * canonical writer would refuse (the reader's own domain makes that a body built in code).
 */
export function carried<T>(value: T): Carried<T> | { readonly outside: string } {
  const outside = checkJsonDomain(value);
  if (outside !== null) return { outside };
  const floats: ValuePath[] = [];
  const plain = withoutFloats(value, [], floats);
  // Only the paths holding a float were copied; everything else is the reader's own value.
  return { value: floats.length === 0 ? value : (plain as T), floats };
}

function withoutFloats(value: unknown, path: (string | number)[], floats: ValuePath[]): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (value instanceof PyFloat) {
    floats.push([...path]);
    return value.value;
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const item = withoutFloats(value[i], path, floats);
      path.pop();
      if (item !== value[i]) (copy ??= value.slice())[i] = item;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    path.push(key);
    const member = withoutFloats(record[key], path, floats);
    path.pop();
    // `defineProperty`: a `__proto__` key stays an own member, as the reader made it.
    if (member !== record[key])
      Object.defineProperty((copy ??= { ...record }), key, {
        value: member,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return copy ?? value;
}

/** Puts each carried `PyFloat` back in place (the value is the object's own structured clone). */
function withFloats(value: unknown, floats: readonly ValuePath[]): unknown {
  let root = value;
  for (const path of floats) {
    if (path.length === 0) {
      root = float(root);
      continue;
    }
    let parent: unknown = root;
    for (let i = 0; i < path.length - 1; i++) parent = member(parent, path[i]);
    const last = path[path.length - 1];
    if (typeof parent !== "object" || parent === null || last === undefined)
      throw new Error("a carried float outside its value");
    Object.defineProperty(parent, last, {
      value: float(member(parent, last)),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return root;
}

function member(parent: unknown, key: string | number | undefined): unknown {
  if (typeof parent !== "object" || parent === null || key === undefined || !Object.hasOwn(parent, key))
    throw new Error("a carried float outside its value");
  return (parent as Record<string | number, unknown>)[key];
}

function float(value: unknown): PyFloat {
  if (typeof value !== "number") throw new Error("a carried float that is not a number");
  return new PyFloat(value);
}

/**
 * A value the Worker validated ({@link carried}), at the object's own RPC boundary: its floats
 * restored, then the same contract checked again on the value (an object embedded in another
 * Worker gets the same guarantee); a failure is a bug.
 */
export function received<S extends z.ZodMiniType>(input: Carried<unknown>, schema: S): z.output<S> {
  const parsed = schema.safeParse(withFloats(input.value, input.floats));
  if (!parsed.success) throw new Error("the Worker sent a value outside its contract");
  return parsed.data;
}

/** Reads a body this object stored as canonical JSON text and checks it against its contract; a failure is a bug. */
export function fromStored<S extends z.ZodMiniType>(text: string, schema: S): z.output<S> {
  const read = readJson(text, STORED_JSON);
  const parsed = read.ok ? schema.safeParse(read.value) : undefined;
  if (parsed === undefined || !parsed.success) throw new Error("a stored body outside its contract");
  return parsed.data;
}
