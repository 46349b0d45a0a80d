/** Text helpers that reproduce Python's `str` semantics where JavaScript differs. */

// Python's str.isspace() set: JavaScript's trim() set minus U+FEFF, plus U+001C–U+001F and U+0085.
const PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Python `str.strip()` with no arguments. */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, "");
}

/** Python `len(str)`: the number of code points, not UTF-16 units. */
export function codePointLength(s: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return s.length - surrogatePairs;
}

/** True when the string has no lone surrogate, so Python could encode it as UTF-8. */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}
