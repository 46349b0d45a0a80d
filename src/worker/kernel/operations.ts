/**
 * The consumer object's RPC operations (./feature `Operations`), run by name over the registry.
 * The Worker calls them through `objectRpc(stub)` (./object-rpc).
 * @module
 */
import type { Services } from "./feature";
import { FEATURES } from "./features";

/** An operation as the registry holds it: its arguments were typed where it was declared. */
type Erased = (s: Services, ...args: readonly unknown[]) => unknown;

const OPERATIONS = new Map<string, Erased>();
for (const feature of FEATURES) {
  for (const [name, operation] of Object.entries(feature.operations ?? {})) {
    if (OPERATIONS.has(name)) throw new Error(`two features register the operation ${name}`);
    // Typed by `Operations` where the feature declared it; the Worker's calls are typed by `ObjectRpc`.
    OPERATIONS.set(name, operation as Erased);
  }
}

/** Runs one operation (the object's `rpc` method); an unknown name is a bug of the Worker, not input. */
export function runOperation(services: Services, name: string, args: readonly unknown[]): unknown {
  const operation = OPERATIONS.get(name);
  if (operation === undefined) throw new Error(`the consumer object has no operation ${name}`);
  return operation(services, ...args);
}
