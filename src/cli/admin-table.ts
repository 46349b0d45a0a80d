/**
 * `toolgate admin`'s human-readable output: aligned tables, `name: value` blocks, times and
 * clipped JSON. Scripts read `--json` instead; this layout may change between versions.
 * @module
 */
import { canonicalJson, type Json } from "../core/json";

/** Characters a cell is clipped to (JSON arguments, audit records). */
export const CLIP_CHARS = 60;

function width(text: string): number {
  return [...text].length;
}

/**
 * An aligned table: a header row, then one row per item; columns two spaces apart, the last
 * column unpadded. No rows: the header, then `(none)`.
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => width(row[i] ?? ""))));
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - width(cell))))
      .join("  ")
      .trimEnd();
  return `${[line(header), ...rows.map(line), ...(rows.length === 0 ? ["(none)"] : [])].join("\n")}\n`;
}

/** `name: value` lines, the values aligned one column after the longest name's colon (or `nameWidth`'s). */
export function fields(pairs: readonly (readonly [string, string])[], nameWidth = 0): string {
  const longest = Math.max(nameWidth, ...pairs.map(([name]) => width(name)));
  return pairs.map(([name, value]) => `${name}:${" ".repeat(longest - width(name) + 2)}${value}`.trimEnd()).join("\n") + "\n";
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
