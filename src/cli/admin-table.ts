/**
 * `toolgate admin`'s human-readable output: aligned tables, `name: value` blocks, times and
 * clipped JSON. Scripts read `--json` instead; this layout may change between versions. Every
 * cell and value is shown as a person must see it (core `text.visibleText`): a bidi control, an
 * invisible, control, look-alike character or combining mark becomes its escape (`⟨U+202E⟩`), and
 * a note under the output says so whenever one was escaped. A terminal may apply the bidi
 * algorithm to a line, where one Hebrew or Arabic letter reverses the digit groups beside it
 * (`א 0044 0532` shows as `0532 0044 א`): on a line that also holds a decimal digit or a Latin
 * letter, every strong right-to-left letter is escaped too, so what is printed left to right is
 * the stored order. Error messages go through the same escapes ({@link forPerson}).
 * @module
 */
import { canonicalJson, type Json } from "../core/json";
import { visibleText, type VisibleOptions } from "../core/text";

/** Characters a cell is clipped to (JSON arguments, audit records). */
export const CLIP_CHARS = 60;

function width(text: string): number {
  return [...text].length;
}

/** The line under output that holds escapes. */
export const ESCAPED_NOTE =
  "note: ⟨U+…⟩ stands for a character shown by its code point: a bidi control, an invisible, control or look-alike character, a combining mark, or a right-to-left letter on a line with digits or Latin letters";

/** A line a terminal could reorder around a right-to-left letter: it holds a decimal digit or a Latin letter. */
const LEFT_TO_RIGHT = /[\p{Nd}\p{Script=Latin}]/u;

/** How the texts of one line (`line`) are shown: right-to-left letters escaped when the line could reorder. */
function optionsFor(line: string, layout: boolean): VisibleOptions {
  return { layout, escapeRightToLeft: LEFT_TO_RIGHT.test(visibleText(line)) };
}

/** Texts as shown, and whether any was escaped. */
function seen(texts: readonly string[], options: VisibleOptions): { shown: string[]; escaped: boolean } {
  const shown = texts.map((text) => visibleText(text, options));
  return { shown, escaped: shown.some((text, i) => text !== texts[i]) };
}

function noted(text: string, escaped: boolean): string {
  return escaped ? `${text}${ESCAPED_NOTE}\n` : text;
}

/**
 * Any text printed for a person (an error message, a verb's report), each line shown escaped
 * as a cell is (line breaks and tabs kept), the note added when something was escaped and the
 * text does not already end with it. Idempotent: escapes are shown as they are.
 */
export function forPerson(text: string): string {
  const shown = text
    .split("\n")
    .map((line) => visibleText(line, optionsFor(line, true)))
    .join("\n");
  if (shown === text) return text;
  return shown.endsWith(`${ESCAPED_NOTE}\n`) ? shown : noted(shown.endsWith("\n") ? shown : `${shown}\n`, true);
}

/**
 * An aligned table: a header row, then one row per item; columns two spaces apart, the last
 * column unpadded. No rows: the header, then `(none)`. Cells are shown escaped (see above).
 */
export function table(header: readonly string[], cells: readonly (readonly string[])[]): string {
  const shownRows = cells.map((row) => seen(row, optionsFor(row.join(" "), false)));
  const rows = shownRows.map((row) => row.shown);
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => width(row[i] ?? ""))));
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - width(cell))))
      .join("  ")
      .trimEnd();
  const text = `${[line(header), ...rows.map(line), ...(rows.length === 0 ? ["(none)"] : [])].join("\n")}\n`;
  return noted(
    text,
    shownRows.some((row) => row.escaped),
  );
}

/** `name: value` lines, the values aligned one column after the longest name's colon (or `nameWidth`'s); values shown escaped (see above). */
export function fields(pairs: readonly (readonly [string, string])[], nameWidth = 0): string {
  const longest = Math.max(nameWidth, ...pairs.map(([name]) => width(name)));
  // Each line starts with its (Latin) name: a right-to-left letter in its value is always escaped.
  const values = seen(
    pairs.map(([, value]) => value),
    { escapeRightToLeft: true },
  );
  const text =
    pairs
      .map(([name], i) => `${name}:${" ".repeat(longest - width(name) + 2)}${values.shown[i] ?? ""}`.trimEnd())
      .join("\n") + "\n";
  return noted(text, values.escaped);
}

/** A Unix time as UTC ISO 8601 to the second; `null` as `never` (or what `none` says). */
export function when(seconds: number | null, none = "never"): string {
  if (seconds === null) return none;
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Text clipped to `max` characters, the last one an ellipsis when clipped. */
export function clip(text: string, max = CLIP_CHARS): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** Canonical JSON of a value as read (a float written `1.0` stays `1.0`). */
export function compact(value: Json | undefined): string {
  return value === undefined ? "" : canonicalJson(value);
}

/** A list of names, `-` when empty. */
export function names(values: readonly string[], empty = "-"): string {
  return values.length === 0 ? empty : values.join(", ");
}

/** A value shown in a cell: text as is, null as `-`, anything else as compact JSON. */
export function cell(value: Json | undefined): string {
  if (value === undefined || value === null) return "-";
  return typeof value === "string" ? value : compact(value);
}
