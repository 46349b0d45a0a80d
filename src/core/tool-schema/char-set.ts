/**
 * Sets of code points as sorted, disjoint, non-adjacent inclusive ranges: what one position of a
 * `pattern` can match, for the ambiguity check in pattern-safety.ts.
 * @module
 */

/** Inclusive code-point ranges, sorted and disjoint. */
export type CharSet = readonly (readonly [number, number])[];

/** The last code point. */
export const MAX_CODE_POINT = 0x10ffff;

/** Every code point. */
export const ANY: CharSet = [[0, MAX_CODE_POINT]];

/** One code point. */
export function single(c: number): CharSet {
  return [[c, c]];
}

/** The union of some sets. */
export function union(...sets: CharSet[]): CharSet {
  const ranges = sets
    .flat()
    .slice()
    .sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of ranges) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** Every code point not in the set. */
export function complement(set: CharSet): CharSet {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of union(set)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

/** `\d`. */
export const DIGIT: CharSet = [[0x30, 0x39]];
/** `\w` (no `i` flag): ASCII letters, digits and `_`. */
export const WORD: CharSet = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
// The sets below are written out (sorted, disjoint, non-adjacent), not built with union() and
// complement() at module scope, so loading the module runs no code (issue #32, goal 1);
// test/core/tool-schema/char-set.test.ts builds each from its definition and compares.
/** `\s`: ECMAScript WhiteSpace and LineTerminator (U+0009–U+000D, U+0020, U+00A0, U+1680, U+2000–U+200A, U+2028–U+2029, U+202F, U+205F, U+3000, U+FEFF). */
export const SPACE: CharSet = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
/** `.` without the `s` flag: everything but the line terminators U+000A, U+000D, U+2028 and U+2029. */
export const DOT: CharSet = [
  [0x00, 0x09],
  [0x0b, 0x0c],
  [0x0e, 0x2027],
  [0x202a, MAX_CODE_POINT],
];
