/**
 * The consumer object's services, built once over its kernel from the registry (./features):
 * each feature's factories (./feature) name the services they use, and a service is built the
 * first time one is named, so the registry's order is not a build order. Every service is built
 * when the object starts.
 * @module
 */
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { Factory, Services } from "./feature";
import { FEATURES } from "./features";
import type { ObjectKernel } from "./kernel";
import { migrate } from "./migrations";

/** The factory of each service, from the registry. */
const FACTORIES = new Map<keyof Services, Factory<unknown>>();
for (const feature of FEATURES) {
  for (const [name, factory] of Object.entries(feature.services ?? {}) as [keyof Services, Factory<unknown>][]) {
    if (FACTORIES.has(name)) throw new Error(`two features register the service ${name}`);
    FACTORIES.set(name, factory);
  }
}

/** Builds every service of one object (`codeTools`: the embedding Worker's tools written as code). */
export function consumerServices(kernel: ObjectKernel, codeTools: () => readonly ToolSpec[]): Services {
  const built: { -readonly [K in keyof Services]?: Services[K] } = { kernel, codeTools };
  const building: (keyof Services)[] = [];
  const use = <K extends keyof Services>(name: K): Services[K] => {
    const existing = built[name];
    if (existing !== undefined) return existing;
    const factory = FACTORIES.get(name);
    if (factory === undefined) throw new Error(`no feature registers the service ${name}`);
    if (building.includes(name)) throw new Error(`services that need each other: ${[...building, name].join(" → ")}`);
    building.push(name);
    // Each name's factory is typed by `Factories`, so what it builds is that service.
    const service = factory(use) as Services[K];
    building.pop();
    built[name] = service;
    return service;
  };
  for (const name of FACTORIES.keys()) use(name);
  // Every registered name was built above; `kernel` and `codeTools` were given.
  return built as Services;
}

/** The object's start (inside `blockConcurrencyWhile`): the schema, then each feature's start in registry order. */
export function start(services: Services): void {
  services.kernel.transaction(() => migrate(services.kernel.sql));
  for (const feature of FEATURES) feature.start?.(services);
}
