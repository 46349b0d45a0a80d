/**
 * The policy language (src/core/policy, CEL) as the object's features use it: loaded when an
 * object starts, not when the isolate does (issue #32, cold start). The CEL library registers its
 * whole standard library when its module is evaluated, some milliseconds that an isolate serving
 * only the Worker's own routes (sign-in, the console's pages, discovery) never needs. Imported
 * dynamically, the module and the library under it stay out of the bundle's start-up code and
 * are evaluated the first time an object loads them.
 *
 * Every use is synchronous (a tool's rules compile inside a transaction), so the object awaits
 * {@link loadPolicyLanguage} before its first operation runs, and {@link policyLanguage} answers
 * the module after that; code outside an object (a test, a benchmark) awaits the load itself.
 * @module
 */
import type * as Policy from "../../core/policy";

let loaded: typeof Policy | undefined;

/** Loads the policy language once (later calls answer the same module). */
export async function loadPolicyLanguage(): Promise<typeof Policy> {
  loaded ??= await import("../../core/policy");
  return loaded;
}

/** The policy language, loaded before (a use before the load is a bug). */
export function policyLanguage(): typeof Policy {
  if (loaded === undefined)
    throw new Error("the policy language is used before it was loaded (an object loads it when it starts)");
  return loaded;
}
