/**
 * Rust `str::trim` semantics for the envelope's blank checks.
 *
 * Rust trims characters with the Unicode `White_Space` property. JavaScript's `trim()` differs in
 * two places: it also strips U+FEFF (not White_Space) and keeps U+0085 (White_Space). A blank
 * check done with `trim()` would therefore disagree with the seed on those two characters.
 * @module
 */

const WHITE_SPACE = "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const BLANK = new RegExp(`^[${WHITE_SPACE}]*$`);
const EDGE_SPACE = new RegExp(`^[${WHITE_SPACE}]|[${WHITE_SPACE}]$`);

/** True when `value.trim().is_empty()` holds in Rust. */
export function isBlank(value: string): boolean {
  return BLANK.test(value);
}

/** True when Rust's `trim()` would change `value`. */
export function hasEdgeWhiteSpace(value: string): boolean {
  return EDGE_SPACE.test(value);
}
