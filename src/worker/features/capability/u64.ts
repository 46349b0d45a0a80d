import { U64_MAX } from "../../../core/capability";

/**
 * The largest authority sequence the gate accepts. The default sequence of the next command is
 * the last accepted one + 1, so the last one must leave room for a successor that is still a
 * u64: sequences never wrap and nothing out of range is ever journaled.
 */
export const MAX_AUTHORITY_SEQUENCE = U64_MAX - 1n;

/**
 * The first bigint in `value` (an engine operation, walked in full) that is not a u64, or
 * `null` when every one is. The host refuses to apply or journal an operation that holds one:
 * the stored log must always decode.
 */
export function outOfU64(value: unknown): bigint | null {
  if (typeof value === "bigint") return value < 0n || value > U64_MAX ? value : null;
  if (value === null || typeof value !== "object") return null;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    const bad = outOfU64(item);
    if (bad !== null) return bad;
  }
  return null;
}
