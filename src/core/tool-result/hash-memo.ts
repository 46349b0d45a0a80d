/**
 * A hash memo for one call: each text is hashed once, and re-validation of a package built in
 * the same call hits the memo instead of SHA-256.
 * @module
 */
import { canonicalJson, sha256Hex, type Json } from "../json";
import type { HashFn } from "./types";

const MEMO = Symbol("memoized-hash");

/**
 * Wraps a hash so that one text is hashed once. A call computes each binding once; when a
 * package is re-validated, the recomputed canonical text hits the memo instead of SHA-256,
 * yet any change to the package still changes the text and therefore the answer.
 */
export function memoizeHash(hash: HashFn = sha256Hex): HashFn {
  if ((hash as { [MEMO]?: true })[MEMO] === true) return hash;
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
  return Object.assign(memo, { [MEMO]: true as const });
}

/** `hash(canonicalJson(value))`; throws JsonDomainError outside the supported JSON domain. */
export function digestWith(hash: HashFn, value: Json): string {
  return hash(canonicalJson(value));
}
