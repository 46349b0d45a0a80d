/**
 * The schema library every contract is written in: `zod/mini`, the functional build of zod 4
 * (`z.optional(s)`, `s.check(z.maxLength(64))`), which bundles only the parts a contract uses
 * (about 12 KiB gzipped against 29 KiB for zod classic, issue #17), with the same issues,
 * messages and JSON Schema.
 *
 * zod/mini loads no locale by itself, so this module sets English messages once, before any
 * schema parses. Import it as a namespace (`import * as z` of this module, so a bundler keeps
 * only the functions used), never "zod" or "zod/mini" directly: every message an answer
 * carries then reads as it always did.
 *
 * `z.deferred(() => schema)` (./zod-deferred.ts) builds a module-level schema on its first use
 * instead of at start-up; `z.registry()` is zod's, known to it.
 * @module
 */
// The English locale alone (its own module: "zod/locales" is every locale, which a bundler
// drops but a test's module loader does not).
import en from "zod/v4/locales/en.js";
import { config, globalRegistry, registry as zodRegistry, type core } from "zod/mini";

config(en());

export * from "zod/mini";

// Schemas built on first use (issue #32, cold start): a zod schema costs its construction when
// the module that declares it starts, and a Worker starts every module it bundles, so hundreds of
// contracts would be built before the first request, most of them for routes it never sees.
// `deferred(() => schema)` stands for the schema from the start and builds it when anything first
// reads it (a parse, a `check`, another schema's construction that looks inside it).
//
// What stands in is a proxy over the built schema: it answers every read, `in`, `instanceof` and
// key listing as the schema does, and registries know it as the schema, so it keeps one identity
// wherever it is used (in other schemas, as a registry entry, as a map key). The metadata the
// builder registers for the schema (`register`, `z.meta`) is copied onto the proxy in zod's global
// registry and in every registry made by `registry()` below. `buildDeferred()` builds every
// deferred schema not built yet, in the order they were declared: what needs all of them (the
// OpenAPI document reads a registry) calls it first, so each registers where it always did.

/** What a deferred schema reads and writes of a registry: its entries by schema and by id. */
interface RegistryMaps {
  readonly _map: WeakMap<core.$ZodType, unknown>;
  readonly _idmap: Map<string, core.$ZodType>;
}

/** Every registry a schema may be registered in: zod's global one and each made by {@link registry}. */
const registries: RegistryMaps[] = [globalRegistry];

/** zod's `registry()`, known to the deferred schemas (they copy their entries into it); kept for the isolate's life, so made at module scope. */
export function registry<Meta extends Record<string, unknown>>(): core.$ZodRegistry<Meta> {
  const made = zodRegistry<Meta>();
  registries.push(made);
  return made;
}

/** The builders of the deferred schemas not built yet, in declaration order. */
const pending = new Set<() => void>();

/** Builds every deferred schema not built yet, in the order they were declared. */
export function buildDeferred(): void {
  for (const build of pending) build();
}

/** The registries' entries of `built` given to `proxy` as well (ids keep their place in the id map). */
function adopt(proxy: core.$ZodType, built: core.$ZodType): void {
  for (const registry of registries) {
    const meta = registry._map.get(built);
    if (meta === undefined) continue;
    registry._map.set(proxy, meta);
    const id = typeof meta === "object" && meta !== null && "id" in meta ? meta.id : undefined;
    if (typeof id === "string" && registry._idmap.get(id) === built) registry._idmap.set(id, proxy);
  }
}

/**
 * Schemas several schemas share (an object's members, spread into each), built by the first call
 * and the same ones after it: a module-level object of schemas would be built when its module starts.
 */
export function deferredShape<T extends object>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

/** Each deferred schema's shell (its proxy's target) and what builds it, or answers it once built. */
const builders = new WeakMap<object, () => core.$ZodType>();

/** The schema a shell stands for, built on the first call. */
function builtOf(shell: object): core.$ZodType {
  const schema = builders.get(shell);
  if (schema === undefined) throw new Error("a deferred schema's shell without its builder");
  return schema();
}

/**
 * The one handler of every deferred schema's proxy (one set of traps, not one per schema: the
 * ~300 contracts are declared when their modules start). Each trap builds the schema if need be
 * and answers as it does.
 */
const DEFERRED: ProxyHandler<object> = {
  get: (shell, key): unknown => Reflect.get(builtOf(shell), key),
  set: (shell, key, value) => Reflect.set(builtOf(shell), key, value),
  has: (shell, key) => Reflect.has(builtOf(shell), key),
  ownKeys: (shell) => {
    builtOf(shell);
    return Reflect.ownKeys(shell);
  },
  getOwnPropertyDescriptor: (shell, key) => {
    builtOf(shell);
    return Reflect.getOwnPropertyDescriptor(shell, key);
  },
  getPrototypeOf: (shell) => Reflect.getPrototypeOf(builtOf(shell)),
  defineProperty: (shell, key, attributes) => Reflect.defineProperty(builtOf(shell), key, attributes),
  deleteProperty: (shell, key) => Reflect.deleteProperty(builtOf(shell), key),
};

/** A schema built by `build` on its first use (above). */
export function deferred<T extends core.$ZodType>(build: () => T): T {
  // The proxy's target takes the built schema's own properties and prototype once it is built,
  // so the proxy's invariants (a non-configurable property must be reported as it is) hold.
  const shell = {} as T;
  let built: T | undefined;
  const schema = (): T => {
    if (built !== undefined) return built;
    pending.delete(schema);
    built = build();
    Object.defineProperties(shell, Object.getOwnPropertyDescriptors(built));
    Object.setPrototypeOf(shell, Reflect.getPrototypeOf(built));
    adopt(proxy, built);
    return built;
  };
  pending.add(schema);
  builders.set(shell, schema);
  const proxy = new Proxy(shell, DEFERRED) as T;
  return proxy;
}
