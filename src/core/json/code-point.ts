/**
 * Compares two well-formed strings in Unicode code-point order, as Python sorts `str`.
 *
 * `Array.prototype.sort()` compares UTF-16 code units, which puts an astral character (a surrogate
 * pair, 0xD800–0xDBFF first) before U+E000–U+FFFF. At the first differing unit, when both units are
 * ≥ 0xD800, surrogates are shifted above U+E000–U+FFFF (the ICU technique); elsewhere code-unit and
 * code-point order agree.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x < 0xe000 ? x + 0x2000 : x - 0x800;
      y = y < 0xe000 ? y + 0x2000 : y - 0x800;
    }
    return x - y;
  }
  return a.length - b.length;
}
