/**
 * A runtime's built-in module (`node:crypto` under `nodejs_compat`), loaded on first use through
 * `process.getBuiltinModule`, so importing the code that uses it costs nothing at start.
 * @module
 */

interface BuiltinModules {
  getBuiltinModule?(id: string): unknown;
}

/** The built-in module `id`, or `undefined` in a runtime without it. */
export function builtinModule(id: string): unknown {
  const host: BuiltinModules | undefined = (globalThis as { process?: BuiltinModules }).process;
  return typeof host?.getBuiltinModule === "function" ? host.getBuiltinModule(id) : undefined;
}
