// The written-out character sets against the runtime's own regular expressions: for every code
// point, `\s` and `.` (no `s` flag) match exactly the points the sets hold; and against their
// definitions through union() and complement().
import { describe, expect, it } from "vitest";
import { complement, DOT, MAX_CODE_POINT, SPACE, union, type CharSet } from "../../../src/core/tool-schema/char-set";

const holds = (set: CharSet, cp: number): boolean => set.some(([lo, hi]) => lo <= cp && cp <= hi);

/** The code points (surrogates as lone units) where `set` and `pattern` disagree. */
function disagreements(set: CharSet, pattern: RegExp): number[] {
  const out: number[] = [];
  for (let cp = 0; cp <= MAX_CODE_POINT; cp++) {
    if (holds(set, cp) !== pattern.test(String.fromCodePoint(cp))) out.push(cp);
  }
  return out;
}

describe("the character sets of the pattern check", () => {
  it("match `\\s` and `.` as the runtime's regular expressions do, code point by code point", () => {
    expect(disagreements(SPACE, /^\s$/u)).toEqual([]);
    expect(disagreements(DOT, /^.$/u)).toEqual([]);
  });

  it("are what their definitions build", () => {
    expect(
      union(
        [[0x09, 0x0d]],
        [[0x20, 0x20]],
        [[0xa0, 0xa0]],
        [[0x1680, 0x1680]],
        [[0x2000, 0x200a]],
        [[0x2028, 0x2029]],
        [[0x202f, 0x202f]],
        [[0x205f, 0x205f]],
        [[0x3000, 0x3000]],
        [[0xfeff, 0xfeff]],
      ),
    ).toEqual(SPACE);
    expect(
      complement([
        [0x0a, 0x0a],
        [0x0d, 0x0d],
        [0x2028, 0x2029],
      ]),
    ).toEqual(DOT);
  });
});
