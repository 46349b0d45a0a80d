/**
 * JSON Merge Patch (RFC 7396, section 2): a patch object's members replace the target's, a
 * `null` member removes one, an object member merges into the target's object member; any
 * other patch (an array, a scalar) replaces the target whole. Neither input is changed; the
 * values are JSON values (the strict reader's, or a contract's output).
 * @module
 */
import { isPlainObject } from "./domain";

type Members = Record<string, unknown>;

function objectOf(value: unknown): Members | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) && isPlainObject(value)
    ? (value as Members)
    : undefined;
}

/** Sets an own member (a `__proto__` key stays an ordinary member, as the strict reader made it). */
function put(target: Members, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The result of applying `patch` to `target` (RFC 7396 `MergePatch(Target, Patch)`). */
export function mergePatch(target: unknown, patch: unknown): unknown {
  const members = objectOf(patch);
  if (members === undefined) return patch;
  const base = objectOf(target);
  const result: Members = {};
  if (base !== undefined) for (const key of Object.keys(base)) put(result, key, base[key]);
  for (const key of Object.keys(members)) {
    const value = members[key];
    if (value === null) Reflect.deleteProperty(result, key);
    else put(result, key, mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}
