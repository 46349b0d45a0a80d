/**
 * HTML with every value escaped: the `html` tag escapes each interpolated value unless it is
 * already {@link SafeHtml} (the output of another `html` template), so no stored text (a tool's
 * description, an argument, a subject) can become markup. Text is also shown as a person must
 * see it (core `text.visibleText`): a bidi control, an invisible or a look-alike character
 * becomes its escape (`⟨U+202E⟩`), in attributes and titles too, and {@link shown} marks each
 * escape in the page.
 * @module
 */
import { escapeToBuffer } from "hono/utils/html";
import {
  HIDDEN_KIND_TITLES,
  holdsRightToLeft,
  visibleParts,
  visibleText,
  type VisibleOptions,
} from "../../../core/text";

/** Markup built by {@link html}; only it makes one. */
export class SafeHtml {
  readonly #text: string;

  private constructor(text: string) {
    this.#text = text;
  }

  /** Internal: markup the `html` tag assembled from escaped parts. */
  static trusted(text: string): SafeHtml {
    return new SafeHtml(text);
  }

  toString(): string {
    return this.#text;
  }
}

/** Text escaped for an element's content or a quoted attribute value (hono's escaper: `& < > " '`). */
export function escapeHtml(text: string): string {
  const buffer: [string] = [""];
  escapeToBuffer(text, buffer);
  return buffer[0];
}

function part(value: unknown): string {
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(part).join("");
  if (value === null || value === undefined || value === false) return "";
  if (typeof value === "string") return escapeHtml(visibleText(value));
  if (typeof value === "number" || typeof value === "boolean") return escapeHtml(String(value));
  throw new Error("an HTML template value is not text, a number or markup");
}

/**
 * Text for a form control's content (a `<textarea>`, which shows markup as text): every hidden
 * character as its escape, without marks; `layout` keeps a JSON document's line feeds.
 */
export function controlText(text: string, options: VisibleOptions = {}): SafeHtml {
  return SafeHtml.trusted(escapeHtml(visibleText(text, options)));
}

/** A template whose values are escaped (arrays are joined; `null`, `undefined` and `false` render nothing). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += part(values[i]) + (strings[i + 1] ?? "");
  return SafeHtml.trusted(out);
}

/** The note after a value shown in stored order because it holds right-to-left letters. */
export const STORED_ORDER_NOTE = "contains right-to-left text, shown in stored order";

/**
 * Text a person reads, each escaped code point marked: `<mark class="hidden-char hidden-bidi"
 * title="…">⟨U+202E⟩</mark>` (the class names its kind). `layout` keeps TAB and LINE FEED, for
 * text shown pre-formatted. Text holding a strong right-to-left letter is laid out left to right
 * in its stored order, isolated from its neighbours (`<span class="stored-order">`: the style
 * sheet's `unicode-bidi: isolate-override; direction: ltr`), so no Hebrew or Arabic letter can
 * reverse the digit groups beside it, and a note after it says so.
 */
export function shown(text: string, options: VisibleOptions = {}): SafeHtml {
  const out = visibleParts(text, options).map((part) =>
    part.hidden === null
      ? escapeHtml(part.text)
      : `<mark class="hidden-char hidden-${part.hidden}" title="${escapeHtml(HIDDEN_KIND_TITLES[part.hidden])}">${part.text}</mark>`,
  );
  if (!holdsRightToLeft(text, options)) return SafeHtml.trusted(out.join(""));
  return SafeHtml.trusted(
    `<span class="stored-order" dir="ltr">${out.join("")}</span> <small class="stored-order-note">(${STORED_ORDER_NOTE})</small>`,
  );
}

/** Unix seconds as an ISO 8601 UTC instant without fractions (`2026-01-02T03:04:05Z`). */
export function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A `<time>` element of Unix seconds. */
export function timeElement(seconds: number): SafeHtml {
  const iso = isoTime(seconds);
  return html`<time datetime="${iso}">${iso.replace("T", " ").replace("Z", " UTC")}</time>`;
}

/** "14 min 05 s" (or "expired"): the time left until `until` at `now`, as the page shows it before its script runs. */
export function timeLeft(until: number, now: number): string {
  const left = until - now;
  if (left <= 0) return "expired";
  const minutes = Math.floor(left / 60);
  const seconds = String(left % 60).padStart(2, "0");
  return minutes > 0 ? `${minutes} min ${seconds} s` : `${left} s`;
}
