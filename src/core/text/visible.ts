/**
 * Text as a person must see it to decide on it: every code point that is invisible, reorders
 * its neighbours or passes for another (./classify.ts, and the look-alikes found here from
 * their context) becomes a visible escape such as `⟨U+202E⟩`, so a memo holding U+202E and
 * U+202C reads `IBAN DE89 3704 ⟨U+202E⟩0044 0532⟨U+202C⟩ 0130 00`, never the reordered
 * `IBAN DE89 3704 00 0130 2350 4400`. The escapes are for display only: what is stored, hashed
 * and approved is the text itself.
 *
 * A look-alike (`confusable`) is:
 * - a letter of another script inside a word that holds Latin letters (`pXypal` with a Cyrillic
 *   U+0430 for the X);
 * - every letter of a word made only of Cyrillic, Greek or Armenian letters that pass for Latin
 *   ones (U+0440 U+0430 U+0443, read `pay`), in text that holds Latin letters elsewhere;
 * - a compatibility variant of an ASCII letter, digit or sign (fullwidth U+FF50, mathematical
 *   bold U+1D429, the ligature U+FB01), wherever it stands;
 * - a decimal digit other than 0–9 in a word that holds Latin letters or ASCII digits
 *   (ARABIC-INDIC DIGIT ZERO U+0660 among ASCII digits).
 * A word is a run of letters, marks and decimal digits.
 *
 * A `combining` mark is one that changes the character before it into what passes for another:
 * every mark of a cluster (a character and the marks after it) that Unicode would compose
 * differently (`o` U+0308 is stored decomposed: NFC makes it `ö` U+00F6, whose bytes and digest
 * differ), and every mark after a Latin letter, a digit, a sign or a space even when nothing
 * composes it (stacked accents). Marks on letters of scripts written with them (Devanagari
 * vowel signs, Arabic or Hebrew points) stay as they are when the text is composed (NFC).
 *
 * Strong right-to-left letters (bidi classes R and AL) are shown as they are; a display that
 * cannot lay them out in stored order (a terminal) asks for them escaped (`escapeRightToLeft`).
 * {@link holdsRightToLeft} tells a display that must keep stored order (an approval) to mark it.
 * @module
 */
import { escapeCodePoint, hiddenKind, isRightToLeft, type HiddenKind } from "./classify";
import { lazyPattern } from "./pattern";

/** A run of text shown as it is. */
export interface PlainPart {
  readonly hidden: null;
  readonly text: string;
}

/** One code point shown as its escape (`text`, e.g. `⟨U+202E⟩`), and why. */
export interface HiddenPart {
  readonly hidden: HiddenKind;
  readonly codePoint: number;
  readonly text: string;
}

/** Text cut into runs shown as they are and code points shown escaped. */
export type VisiblePart = PlainPart | HiddenPart;

/** How text is shown. */
export interface VisibleOptions {
  /** Keep TAB and LINE FEED as they are: the text is shown laid out (pre-formatted, or a JSON document's own indentation). */
  readonly layout?: boolean;
  /**
   * The text is read among Latin text (an argument's name, or its value beside Latin names): a
   * word made only of letters that pass for Latin ones is a look-alike even when no Latin letter
   * stands elsewhere in the text itself (`РАУ` shown alone reads as `PAY`).
   */
  readonly latinContext?: boolean;
  /** Escape every strong right-to-left letter (`right-to-left`): for a display that may reorder the text around it (a terminal). */
  readonly escapeRightToLeft?: boolean;
}

// The Unicode classes are made on first use (./pattern.ts).
const WORD = lazyPattern(() => /^[\p{L}\p{M}\p{Nd}]$/u);
const MARK = lazyPattern(() => /^\p{M}$/u);
const LETTER = lazyPattern(() => /^\p{L}$/u);
const DIGIT = lazyPattern(() => /^\p{Nd}$/u);
const LATIN = lazyPattern(() => /^\p{Script=Latin}$/u);
const NO_SCRIPT = lazyPattern(() => /^[\p{Script=Common}\p{Script=Inherited}]$/u);
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/** Cyrillic, Greek and Armenian letters that pass for Latin ones (UTS #39 confusables, the common ones). */
const LATIN_LOOKALIKES = new Set([
  ..."\u0410\u0412\u0415\u0405\u0406\u0408\u041A\u041C\u041D\u041E\u0420\u0421\u0422\u0423\u0425\u04AE\u0474\u051A\u051C\u0430\u0435\u0456\u0458\u043E\u0441\u0440\u0443\u0445\u0455\u04BB\u0501\u051B\u051D\u04CF\u04AF\u0475", // Cyrillic for A B E S I J K M H O P C T Y X Y V Q W a e i j o c p y x s h d q w l y v
  ..."\u0391\u0392\u0395\u0396\u0397\u0399\u039A\u039C\u039D\u039F\u03A1\u03A4\u03A5\u03A7\u03F9\u03F3\u03F2\u03BF\u03B9\u03BD", // Greek for A B E Z H I K M N O P T Y X C j c o i v
  ..."\u0585\u057D\u0570\u0578", // Armenian for o u h n
]);

interface Point {
  readonly ch: string;
  readonly cp: number;
  hidden: HiddenKind | null;
}

/** Line feeds in a row a layout keeps (one blank line); the rest are shown escaped, so no run of them can push text out of sight. */
const KEPT_LINE_FEEDS = 2;

function pointsOf(text: string, layout: boolean): Point[] {
  const points: Point[] = [];
  let feeds = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    feeds = cp === 0x0a ? feeds + 1 : 0;
    const laidOut = layout && (cp === 0x09 || (cp === 0x0a && feeds <= KEPT_LINE_FEEDS));
    points.push({ ch, cp, hidden: laidOut ? null : hiddenKind(cp) });
  }
  return points;
}

/** A compatibility variant of printable ASCII (NFKC folds it to ASCII): fullwidth forms, mathematical letters, ligatures. */
function isAsciiVariant(point: Point): boolean {
  if (point.cp < 0x80) return false;
  if (!LETTER.test(point.ch) && !DIGIT.test(point.ch) && !(point.cp >= 0xff01 && point.cp <= 0xff5e)) return false;
  const folded = point.ch.normalize("NFKC");
  return folded !== point.ch && PRINTABLE_ASCII.test(folded);
}

/** Marks the look-alikes of one word (`points[start, end)`), given whether the text has Latin letters. */
function markWord(points: Point[], start: number, end: number, textHasLatin: boolean): void {
  const word = points.slice(start, end);
  const letters = word.filter((p) => LETTER.test(p.ch));
  const hasLatin = letters.some((p) => LATIN.test(p.ch));
  const hasAsciiDigit = word.some((p) => p.cp >= 0x30 && p.cp <= 0x39);
  const allLookalikes =
    !hasLatin && textHasLatin && letters.length > 0 && letters.every((p) => LATIN_LOOKALIKES.has(p.ch));
  for (const p of word) {
    const foreignLetter = LETTER.test(p.ch) && !LATIN.test(p.ch) && !NO_SCRIPT.test(p.ch);
    const foreignDigit = p.cp > 0x7f && DIGIT.test(p.ch);
    if (
      (hasLatin && foreignLetter) ||
      (allLookalikes && LETTER.test(p.ch)) ||
      ((hasLatin || hasAsciiDigit) && foreignDigit)
    )
      p.hidden = "confusable";
  }
}

function markConfusables(points: Point[], name: boolean): void {
  const textHasLatin = name || points.some((p) => p.hidden === null && LATIN.test(p.ch) && LETTER.test(p.ch));
  let start = -1;
  for (let i = 0; i <= points.length; i++) {
    const point = points[i];
    const inWord = point !== undefined && point.hidden === null && WORD.test(point.ch);
    if (inWord && start < 0) start = i;
    if (!inWord && start >= 0) {
      markWord(points, start, i, textHasLatin);
      start = -1;
    }
    if (point !== undefined && point.hidden === null && isAsciiVariant(point)) point.hidden = "confusable";
  }
}

/** Whether a cluster's marks belong to its base: a letter of a script written with marks, shown as itself, the cluster composed. */
function marksBelong(cluster: readonly Point[]): boolean {
  const base = cluster[0];
  if (
    base === undefined ||
    base.hidden !== null ||
    MARK.test(base.ch) ||
    !LETTER.test(base.ch) ||
    LATIN.test(base.ch) ||
    NO_SCRIPT.test(base.ch)
  )
    return false;
  const text = cluster.map((p) => p.ch).join("");
  return text.normalize("NFC") === text;
}

/** Marks the combining marks that make the character before them pass for another (see above). */
function markCombining(points: Point[]): void {
  let start = 0;
  for (let i = 1; i <= points.length; i++) {
    const point = points[i];
    if (point !== undefined && MARK.test(point.ch)) continue;
    const cluster = points.slice(start, i);
    if (cluster.some((p) => MARK.test(p.ch)) && !marksBelong(cluster)) {
      for (const p of cluster) if (p.hidden === null && MARK.test(p.ch)) p.hidden = "combining";
    }
    start = i;
  }
}

/** The text cut into runs shown as they are and code points shown escaped, in order. */
export function visibleParts(text: string, options: VisibleOptions = {}): VisiblePart[] {
  // Printable ASCII and spaces (most text) hold nothing to escape.
  if (PLAIN_ASCII.test(text)) return text === "" ? [] : [{ hidden: null, text }];
  const points = pointsOf(text, options.layout === true);
  markConfusables(points, options.latinContext === true);
  // Before the marks: a mark on an escaped letter would stand on its escape.
  if (options.escapeRightToLeft === true)
    for (const p of points) if (p.hidden === null && isRightToLeft(p.cp)) p.hidden = "right-to-left";
  markCombining(points);
  const parts: VisiblePart[] = [];
  let plain = "";
  for (const p of points) {
    if (p.hidden === null) {
      plain += p.ch;
      continue;
    }
    if (plain !== "") parts.push({ hidden: null, text: plain });
    plain = "";
    parts.push({ hidden: p.hidden, codePoint: p.cp, text: escapeCodePoint(p.cp) });
  }
  if (plain !== "") parts.push({ hidden: null, text: plain });
  return parts;
}

/** The text with every hidden, reordering or look-alike code point escaped (`⟨U+202E⟩`). */
export function visibleText(text: string, options: VisibleOptions = {}): string {
  return visibleParts(text, options)
    .map((part) => part.text)
    .join("");
}

/** How many code points of the text {@link visibleText} escapes. */
export function hiddenCount(text: string, options: VisibleOptions = {}): number {
  return visibleParts(text, options).filter((part) => part.hidden !== null).length;
}

/** Whether the text, as {@link visibleText} shows it, holds a strong right-to-left letter (bidi class R or AL) shown as itself. */
export function holdsRightToLeft(text: string, options: VisibleOptions = {}): boolean {
  if (PLAIN_ASCII.test(text)) return false;
  return visibleParts(text, options).some(
    (part) => part.hidden === null && [...part.text].some((ch) => isRightToLeft(ch.codePointAt(0) ?? 0)),
  );
}
