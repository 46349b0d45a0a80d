/**
 * Fixed-shape canonical documents: the key order is sorted once, each digest only writes its
 * member texts (the same bytes as `canonicalJson` of the equivalent object).
 * @module
 */
import { canonicalJson, canonicalMember, compareCodePoints, JsonDomainError, type Json } from "../json";

/**
 * A fixed-shape document whose key order is sorted once: each call only writes the member
 * texts, which gives the same bytes as `canonicalJson` of the equivalent object at a fraction of
 * the cost. Values are written one level below the root, as inside the whole document.
 */
export function documentTemplate(keys: readonly string[]): (members: Readonly<Record<string, string>>) => string {
  const order = [...keys].sort(compareCodePoints);
  const prefixes = order.map((key, i) => `${i === 0 ? "{" : ","}${JSON.stringify(key)}:`);
  return (members) => {
    let out = "";
    for (let i = 0; i < order.length; i++) out += (prefixes[i] as string) + (members[order[i] as string] as string);
    return `${out}}`;
  };
}

/** A member's canonical text at depth 1, or at `depth` for nested members. */
export const m = (value: unknown, depth = 1): string => canonicalMember(value, depth);

/**
 * Builds a digest's text with a template, falling back to the generic encoder when a value is
 * outside the domain so that the error (and its message) is exactly the generic one.
 */
export function templated(fast: () => string, document: () => Json): string {
  try {
    return fast();
  } catch (error) {
    if (!(error instanceof JsonDomainError)) throw error;
    return canonicalJson(document());
  }
}
