/**
 * Rust `Ord` on the engine's map keys. Iteration order is observable (it fixes effect,
 * completion and audit sequence numbers), so every ordered collection uses these.
 * @module
 */
import type { CapabilityRequestKey, PolicyKey } from "./wire-policy";

/** Byte-wise string order (ids are ASCII, so code-unit order equals byte order). */
export function compareStrings(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Numeric bigint order. */
export function compareU64(left: bigint, right: bigint): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** `CapabilityRequestKey` order: consumer, actor, local id. */
export function compareRequestKeys(left: CapabilityRequestKey, right: CapabilityRequestKey): number {
  return (
    compareStrings(left.consumer_id, right.consumer_id) ||
    compareStrings(left.actor_id, right.actor_id) ||
    compareU64(left.local_id, right.local_id)
  );
}

/** `PolicyKey` order: consumer, actor, instance, generation, provider, capability, scope. */
export function comparePolicyKeys(left: PolicyKey, right: PolicyKey): number {
  return (
    compareStrings(left.consumer_id, right.consumer_id) ||
    compareStrings(left.actor_id, right.actor_id) ||
    compareU64(left.instance_id, right.instance_id) ||
    compareU64(left.generation, right.generation) ||
    compareStrings(left.provider_id, right.provider_id) ||
    compareStrings(left.capability_id, right.capability_id) ||
    compareStrings(left.resource_scope_id, right.resource_scope_id)
  );
}

/**
 * Binary search in an array sorted by `compare(item)` (negative: item before target).
 * Returns the index of the match, or `-(insertion point) - 1`.
 */
export function searchSorted<T>(items: readonly T[], compare: (item: T) => number): number {
  let low = 0;
  let high = items.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const order = compare(items[middle] as T);
    if (order < 0) low = middle + 1;
    else if (order > 0) high = middle - 1;
    else return middle;
  }
  return -low - 1;
}

/** Inserts or replaces `item` in a sorted array; returns true when it replaced one. */
export function upsertSorted<T>(items: T[], item: T, compare: (item: T) => number): boolean {
  const index = searchSorted(items, compare);
  if (index >= 0) {
    items[index] = item;
    return true;
  }
  items.splice(-index - 1, 0, item);
  return false;
}

/** True when two request keys are equal. */
export function sameRequestKey(left: CapabilityRequestKey, right: CapabilityRequestKey): boolean {
  return compareRequestKeys(left, right) === 0;
}
