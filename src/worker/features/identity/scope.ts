/**
 * A credential's scope (the `tools` of its binding): `null` is unscoped (every tool and every
 * capability of the consumer); a list is exclusive, naming each tool it may call by its name
 * and each capability it may request as `capability:<capability_id>`. Tool names never hold a
 * colon, so no entry can name both. Every service asks here: the tool-call path, the tool lists
 * (MCP `tools/list` and `GET …/tools`), the App Facade and the capability service.
 * @module
 */

/** A credential's scope: `null` for everything, else the only entries it admits. */
export type Scope = readonly string[] | null;

/** How a scope names a capability: this prefix, then the capability id. */
export const CAPABILITY_SCOPE_PREFIX = "capability:";

/** Whether a scope admits a tool. */
export function admitsTool(scope: Scope, tool: string): boolean {
  return scope === null || scope.includes(tool);
}

/** The items (tools, by their `name`) a scope admits, in their order: the one filter of every tool list. */
export function toolsInScope<T extends { readonly name: string }>(scope: Scope, items: readonly T[]): T[] {
  return items.filter((item) => admitsTool(scope, item.name));
}

/** Whether a scope admits a capability. */
export function admitsCapability(scope: Scope, capabilityId: string): boolean {
  return scope === null || scope.includes(`${CAPABILITY_SCOPE_PREFIX}${capabilityId}`);
}

/** The capability ids a scope names (`null`: every capability). */
export function capabilitiesOf(scope: Scope): readonly string[] | null {
  if (scope === null) return null;
  return scope
    .filter((entry) => entry.startsWith(CAPABILITY_SCOPE_PREFIX))
    .map((entry) => entry.slice(CAPABILITY_SCOPE_PREFIX.length));
}
