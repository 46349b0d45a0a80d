/**
 * Which code points a person cannot see as they are: bidirectional controls that reorder the
 * text around them, invisible characters (format characters, zero-width and default-ignorable
 * code points, variation selectors, tag characters), controls and line separators, whitespace
 * other than U+0020, private-use, unassigned and lone surrogate code points. The code point
 * alone decides; look-alike letters depend on their neighbours and are found by ./visible.ts.
 * @module
 */
import { lazyPattern } from "./pattern";

/** Why a code point is shown escaped rather than as itself. */
export type HiddenKind =
  | "bidi"
  | "invisible"
  | "control"
  | "space"
  | "confusable"
  | "combining"
  | "right-to-left"
  | "private-use"
  | "unassigned"
  | "surrogate";

/** What a person is told about each kind (a mark's title, a legend). */
export const HIDDEN_KIND_TITLES: Readonly<Record<HiddenKind, string>> = {
  bidi: "bidirectional control: reorders the text around it",
  invisible: "invisible character",
  control: "control character or line separator",
  space: "whitespace other than a plain space",
  confusable: "look-alike of a Latin letter, digit or sign",
  combining: "combining mark: with the character before it, passes for another letter (stored decomposed or stacked)",
  "right-to-left": "right-to-left letter: shown escaped so the text around it keeps its stored order",
  "private-use": "private-use character: no agreed glyph",
  unassigned: "unassigned code point or noncharacter",
  surrogate: "lone surrogate: not a character",
};

/** U+061C, U+200E–U+200F, U+202A–U+202E and U+2066–U+2069 (UAX #9 explicit formatting characters and marks). */
function isBidiControl(cp: number): boolean {
  return (
    cp === 0x061c || cp === 0x200e || cp === 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)
  );
}

/**
 * Invisible code points that are not format characters (general category Cf, caught below):
 * default-ignorable letters and marks (UCD DerivedCoreProperties) and blank look-alikes.
 * [first, last] inclusive.
 */
const INVISIBLE_RANGES: readonly (readonly [number, number])[] = [
  [0x034f, 0x034f], // COMBINING GRAPHEME JOINER
  [0x115f, 0x1160], // HANGUL CHOSEONG / JUNGSEONG FILLER
  [0x17b4, 0x17b5], // KHMER VOWEL INHERENT AQ / AA
  [0x180b, 0x180f], // MONGOLIAN FREE VARIATION SELECTORS, VOWEL SEPARATOR
  [0x2060, 0x206f], // WORD JOINER … NOMINAL DIGIT SHAPES (U+2065 unassigned, still ignorable)
  [0x2800, 0x2800], // BRAILLE PATTERN BLANK
  [0x3164, 0x3164], // HANGUL FILLER
  [0xfe00, 0xfe0f], // VARIATION SELECTOR-1 … 16
  [0xffa0, 0xffa0], // HALFWIDTH HANGUL FILLER
  [0x1bca0, 0x1bca3], // SHORTHAND FORMAT CONTROLS
  [0xe0000, 0xe0fff], // TAGS and VARIATION SELECTORS SUPPLEMENT (the whole default-ignorable plane-14 run)
];

function inRanges(cp: number, ranges: readonly (readonly [number, number])[]): boolean {
  for (const [first, last] of ranges) if (cp >= first && cp <= last) return true;
  return false;
}

// Made on first use (./pattern.ts).
const FORMAT = lazyPattern(() => /^\p{Cf}$/u);
const CONTROL = lazyPattern(() => /^[\p{Cc}\p{Zl}\p{Zp}]$/u);
const SPACE = lazyPattern(() => /^\p{Zs}$/u);
const PRIVATE_USE = lazyPattern(() => /^\p{Co}$/u);
const UNASSIGNED = lazyPattern(() => /^\p{Cn}$/u);

/**
 * Why a code point cannot be shown as itself, or `null` when it can (this ignores its
 * neighbours: a Cyrillic `а` is `null` here). `U+0009` and `U+000A` are controls; a caller that
 * shows text laid out (pre-formatted) keeps them (./visible.ts).
 */
export function hiddenKind(cp: number): HiddenKind | null {
  if (cp >= 0x21 && cp <= 0x7e) return null;
  if (isBidiControl(cp)) return "bidi";
  if (cp >= 0xd800 && cp <= 0xdfff) return "surrogate";
  if (inRanges(cp, INVISIBLE_RANGES)) return "invisible";
  const ch = String.fromCodePoint(cp);
  if (FORMAT.test(ch)) return "invisible";
  if (CONTROL.test(ch)) return "control";
  if (SPACE.test(ch)) return cp === 0x20 ? null : "space";
  if (PRIVATE_USE.test(ch)) return "private-use";
  if (UNASSIGNED.test(ch)) return "unassigned";
  return null;
}

/**
 * The code points whose bidi class is R or AL (UAX #9 strong right-to-left), as far as a
 * display needs: the right-to-left blocks (Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan,
 * Mandaic, their presentation forms and supplements, and the right-to-left ranges of service 1),
 * less their marks, digits, number signs, separators and format characters, which are weak or
 * neutral. [first, last] inclusive.
 */
const RIGHT_TO_LEFT_RANGES: readonly (readonly [number, number])[] = [
  [0x0590, 0x08ff],
  [0xfb1d, 0xfdff],
  [0xfe70, 0xfefe],
  [0x10800, 0x10fff],
  [0x1e800, 0x1efff],
];
/** Weak or neutral code points inside those blocks that are not marks, digits or format characters (Arabic comma, percent, separators). */
const RIGHT_TO_LEFT_NEUTRALS = new Set([
  0x0606, 0x0607, 0x0609, 0x060a, 0x060c, 0x060e, 0x060f, 0x066a, 0x066b, 0x066c, 0x06de, 0x06e9, 0x06fd, 0x06fe,
  0x07f6, 0x07f7, 0x07f8, 0x07f9, 0xfd3e, 0xfd3f,
]);
const WEAK = lazyPattern(() => /^[\p{M}\p{Nd}\p{Cf}\p{Cn}\p{Zs}]$/u);

/** Whether a code point is strong right-to-left (bidi class R or AL): beside digits it reverses their groups in a left-to-right line. */
export function isRightToLeft(cp: number): boolean {
  if (cp < 0x0590 || !inRanges(cp, RIGHT_TO_LEFT_RANGES) || RIGHT_TO_LEFT_NEUTRALS.has(cp)) return false;
  return !WEAK.test(String.fromCodePoint(cp));
}

/** `⟨U+202E⟩`: a code point as its escape (at least four upper-case hex digits). */
export function escapeCodePoint(cp: number): string {
  return `⟨U+${cp.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}
