/**
 * What a consumer object holds in memory between calls, each structure beside the bound that
 * keeps it from growing with the calls the object serves (an object lives as long as its
 * traffic, so nothing it keeps may grow per call). Read by code in the object's own isolate:
 * `npm run bench:http` prints it after 10,000 calls (bench/cost-worker.ts); a test can read it
 * through `runInDurableObject`. Everything else of a consumer lives in SQLite.
 * @module
 */
import type { HeldInMemory, Services } from "./feature";
import { FEATURES } from "./features";

export type { HeldInMemory } from "./feature";

const tracked = new WeakMap<object, Services>();

/** Registers the services whose structures an object counts (its constructor does, once). */
export function trackMemory(object: object, services: Services): void {
  tracked.set(object, services);
}

/** The object's in-memory structures beside their bounds, feature by feature (./features); empty for an object that never registered. */
export function heldInMemory(object: object): HeldInMemory[] {
  const services = tracked.get(object);
  return services === undefined ? [] : FEATURES.flatMap((feature) => feature.memory?.(services) ?? []);
}
