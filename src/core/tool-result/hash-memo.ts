/**
 * A hash memo for one call: each text is hashed once, and re-validation of a package built in
 * the same call hits the memo instead of SHA-256.
 * @module
 */
import { canonicalJson, sha256Hex, type Json } from "../json";
import type { HashFn } from "./types";

const MEMO = Symbol("memoized-hash");
const BASE = Symbol("memoized-hash-base");

type Memo = HashFn & { readonly [MEMO]?: true; readonly [BASE]?: HashFn };

/**
 * Wraps a hash so that one text is hashed once. A call computes each binding once; when a
 * package is re-validated, the recomputed canonical text hits the memo instead of SHA-256,
 * yet any change to the package still changes the text and therefore the answer.
 */
export function memoizeHash(hash: HashFn = sha256Hex): HashFn {
  if ((hash as Memo)[MEMO] === true) return hash;
  // A call hashes a handful of texts, so a short list compared by `===` (length first, then
  // bytes) beats a Map, which would hash every long text just to store it.
  const texts: string[] = [];
  const hexes: string[] = [];
  const memo = (text: string): string => {
    for (let i = 0; i < texts.length; i++) if (texts[i] === text) return hexes[i] as string;
    const hex = hash(text);
    if (texts.length === 16) {
      texts.shift();
      hexes.shift();
    }
    texts.push(text);
    hexes.push(hex);
    return hex;
  };
  return Object.assign(memo, { [MEMO]: true as const, [BASE]: hash });
}

// Texts that recur from call to call (a principal's reference), hashed once per hash function.
// Keyed by the hash a memo wraps, so every call's memo over the same hash shares the entries.
const RECURRING_LIMIT = 256;
const recurring = new WeakMap<HashFn, Map<string, string>>();

/**
 * `hash(text)` for a text that recurs across calls: answered from a small per-hash cache (a
 * hash is a pure function of the text, so a hit is the same hex). The cache is cleared when it
 * reaches 256 texts, so it stays bounded whatever the callers.
 */
export function hashRecurring(hash: HashFn, text: string): string {
  const base = (hash as Memo)[BASE] ?? hash;
  let cache = recurring.get(base);
  if (cache === undefined) {
    cache = new Map();
    recurring.set(base, cache);
  }
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const hex = hash(text);
  if (cache.size >= RECURRING_LIMIT) cache.clear();
  cache.set(text, hex);
  return hex;
}

/** `hash(canonicalJson(value))`; throws JsonDomainError outside the supported JSON domain. */
export function digestWith(hash: HashFn, value: Json): string {
  return hash(canonicalJson(value));
}
