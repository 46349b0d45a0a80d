/**
 * The warning above an approval's arguments when they hold characters a person cannot see as
 * they are (core `text`): how many, of which kinds, and that each is shown as a highlighted
 * escape. It counts what the page escapes: argument names as written (as names: a word of
 * letters that pass for Latin ones is a look-alike), every string inside the values laid out (a
 * TAB or LINE FEED in a value is shown as such, not escaped).
 * @module
 */
import { PyFloat, type Json } from "../../../core/json";
import { visibleParts, type HiddenKind, type VisibleOptions } from "../../../core/text";
import { html, type SafeHtml } from "./html";

/** Each kind as the warning counts it (a plural adds "s"). */
const KIND_LABELS: Readonly<Record<HiddenKind, string>> = {
  bidi: "bidirectional control",
  invisible: "invisible character",
  control: "control character",
  space: "unusual space",
  confusable: "look-alike character",
  combining: "combining mark",
  "right-to-left": "right-to-left letter",
  "private-use": "private-use character",
  unassigned: "unassigned code point",
  surrogate: "lone surrogate",
};

const NAME: VisibleOptions = { latinContext: true };
const LAID_OUT_NAME: VisibleOptions = { layout: true, latinContext: true };

function count(text: string, options: VisibleOptions, into: Map<HiddenKind, number>): void {
  for (const part of visibleParts(text, options))
    if (part.hidden !== null) into.set(part.hidden, (into.get(part.hidden) ?? 0) + 1);
}

function countValue(value: Json, into: Map<HiddenKind, number>): void {
  if (typeof value === "string") count(value, LAID_OUT_NAME, into);
  else if (Array.isArray(value)) for (const item of value) countValue(item, into);
  else if (typeof value === "object" && value !== null && !(value instanceof PyFloat)) {
    for (const [name, item] of Object.entries(value)) {
      count(name, LAID_OUT_NAME, into);
      countValue(item, into);
    }
  }
}

/** The warning (an element with id `id`) when the arguments hold any character shown escaped; `null` when they hold none. */
export function hiddenArguments(args: Readonly<Record<string, Json>>, id: string): SafeHtml | null {
  const kinds = new Map<HiddenKind, number>();
  for (const [name, value] of Object.entries(args)) {
    count(name, NAME, kinds);
    countValue(value, kinds);
  }
  let total = 0;
  for (const n of kinds.values()) total += n;
  if (total === 0) return null;
  const which = [...kinds].map(([kind, n]) => `${n} ${KIND_LABELS[kind]}${n === 1 ? "" : "s"}`).join(", ");
  return html`<div class="hidden-warning" id="${id}" role="note"><p><strong>Warning: these arguments hold ${total} ${total === 1 ? "character" : "characters"} you could not see as ${total === 1 ? "it is" : "they are"}</strong> (${which}). Each is shown highlighted as its code point, <code>⟨U+…⟩</code>. Your decision binds the arguments as they are stored, these characters included.</p></div>`;
}
