/**
 * Python `repr` of strings, lists and tuples of strings, for error texts that quote the
 * reference's (`missing=['a'], extra=[]`). Only the shapes the engine prints are covered.
 * @module
 */
import { compareCodePoints } from "../json";

/** Python `repr(str)`: single quotes unless the text has `'` and no `"`; escapes like CPython. */
export function pyStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp >= 0x80 && cp < 0xa0) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + quote;
}

/** Python `repr(sorted(strings))`. */
export function pySortedListRepr(items: Iterable<string>): string {
  return `[${[...items].sort(compareCodePoints).map(pyStrRepr).join(", ")}]`;
}

/** Python `repr(tuple_of_strings)`. */
export function pyTupleRepr(items: readonly string[]): string {
  return items.length === 1 ? `(${pyStrRepr(items[0] ?? "")},)` : `(${items.map(pyStrRepr).join(", ")})`;
}
