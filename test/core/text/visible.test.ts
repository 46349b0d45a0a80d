/**
 * The visible escapes of text a person reads. Every expected value is written by hand from the
 * Unicode code charts (the code point, its block and general category), never produced by the
 * code under test; inputs spell each code point as a `\u` escape so the source shows them.
 */
import { describe, expect, it } from "vitest";
import {
  escapeCodePoint,
  hiddenCount,
  hiddenKind,
  holdsRightToLeft,
  isRightToLeft,
  visibleParts,
  visibleText,
} from "../../../src/core/text";

describe("hiddenKind", () => {
  it("names the bidirectional controls: ALM, LRM, RLM, LRE…RLO, LRI…PDI", () => {
    const points = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
    expect(points.map(hiddenKind)).toEqual(Array(12).fill("bidi"));
  });

  it("names invisible code points: zero-width, word joiner, invisible operators, BOM, soft hyphen, Mongolian vowel separator, variation selectors, tags", () => {
    const points = [
      0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x00ad, 0x180e, 0xfe00, 0xfe0f, 0xe0100,
      0xe01ef, 0xe0001, 0xe0041, 0xe007f, 0x034f, 0x115f, 0x3164, 0xffa0, 0x2800, 0x17b4,
    ];
    expect(points.map(hiddenKind)).toEqual(Array(24).fill("invisible"));
  });

  it("names other format characters (Cf) invisible: Arabic number sign, interlinear annotation anchor", () => {
    expect([hiddenKind(0x0600), hiddenKind(0xfff9), hiddenKind(0x110bd)]).toEqual([
      "invisible",
      "invisible",
      "invisible",
    ]);
  });

  it("names controls (Cc) and the line and paragraph separators (Zl, Zp)", () => {
    expect([0x00, 0x09, 0x0a, 0x0d, 0x1b, 0x7f, 0x85, 0x9f, 0x2028, 0x2029].map(hiddenKind)).toEqual(
      Array(10).fill("control"),
    );
  });

  it("names every space separator but U+0020: no-break, ogham, en quad…hair, narrow no-break, medium mathematical, ideographic", () => {
    const spaces = [0x00a0, 0x1680, 0x2000, 0x2005, 0x200a, 0x202f, 0x205f, 0x3000];
    expect([hiddenKind(0x20), ...spaces.map(hiddenKind)]).toEqual([null, ...Array(8).fill("space")]);
  });

  it("names private-use, unassigned (and noncharacters) and lone surrogates", () => {
    expect([0xe000, 0xf8ff, 0xf0000, 0x100000].map(hiddenKind)).toEqual(Array(4).fill("private-use"));
    // U+0378 (a hole in the Greek block since Unicode 1.1), U+FFFF and U+FDD0 (noncharacters), U+2065 (an ignorable hole: invisible).
    expect([hiddenKind(0x0378), hiddenKind(0xffff), hiddenKind(0xfdd0), hiddenKind(0x2065)]).toEqual([
      "unassigned",
      "unassigned",
      "unassigned",
      "invisible",
    ]);
    expect([hiddenKind(0xd800), hiddenKind(0xdfff)]).toEqual(["surrogate", "surrogate"]);
  });

  it("shows letters, digits, signs and emoji as they are", () => {
    // a, Z, 0, ~, é, Cyrillic а (alone it is a letter), Hebrew alef, CJK 中, em dash, euro sign, 😀, ☃, superscript two.
    const shown = [0x61, 0x5a, 0x30, 0x7e, 0xe9, 0x430, 0x5d0, 0x4e2d, 0x2014, 0x20ac, 0x1f600, 0x2603, 0xb2];
    expect(shown.map(hiddenKind)).toEqual(Array(13).fill(null));
  });
});

describe("escapeCodePoint", () => {
  it("writes at least four upper-case hex digits between ⟨U+ and ⟩", () => {
    expect([
      escapeCodePoint(0x9),
      escapeCodePoint(0x202e),
      escapeCodePoint(0xe0041),
      escapeCodePoint(0x10ffff),
    ]).toEqual(["⟨U+0009⟩", "⟨U+202E⟩", "⟨U+E0041⟩", "⟨U+10FFFF⟩"]);
  });
});

describe("visibleText", () => {
  it("shows the reordering IBAN memo with its overrides escaped, in stored order", () => {
    expect(visibleText("IBAN DE89 3704 \u202E0044 0532\u202C 0130 00")).toBe(
      "IBAN DE89 3704 ⟨U+202E⟩0044 0532⟨U+202C⟩ 0130 00",
    );
  });

  it("escapes zero-width characters, isolates, tags and variation selectors where they stand", () => {
    expect(visibleText("pay\u200Bpal\u2067x\u2069")).toBe("pay⟨U+200B⟩pal⟨U+2067⟩x⟨U+2069⟩");
    expect(visibleText("ok\u{E0041}\u{E007F}")).toBe("ok⟨U+E0041⟩⟨U+E007F⟩");
    expect(visibleText("\u2764\uFE0F")).toBe("\u2764⟨U+FE0F⟩");
  });

  it("escapes controls, line breaks and tabs, unless the text is shown laid out (then TAB and LF stay; CR does not)", () => {
    expect(visibleText("a\tb\nc\rd")).toBe("a⟨U+0009⟩b⟨U+000A⟩c⟨U+000D⟩d");
    expect(visibleText("a\tb\nc\rd", { layout: true })).toBe("a\tb\nc⟨U+000D⟩d");
    expect(visibleText("a\u2028b", { layout: true })).toBe("a⟨U+2028⟩b");
  });

  it("keeps at most two line feeds in a row when laid out: the rest are escaped, so blank lines cannot push text out of sight", () => {
    expect(visibleText("a\n\nb", { layout: true })).toBe("a\n\nb");
    expect(visibleText("a\n\n\n\nb\nc", { layout: true })).toBe("a\n\n⟨U+000A⟩⟨U+000A⟩b\nc");
    expect(visibleText("\n \n \n", { layout: true })).toBe("\n \n \n");
  });

  it("escapes a Cyrillic or Greek letter inside a Latin word", () => {
    // U+0430 CYRILLIC SMALL LETTER A; U+03BF GREEK SMALL LETTER OMICRON.
    expect(visibleText("p\u0430ypal.com")).toBe("p⟨U+0430⟩ypal.com");
    expect(visibleText("g\u03BF\u03BFgle")).toBe("g⟨U+03BF⟩⟨U+03BF⟩gle");
  });

  it("escapes a word of Latin look-alikes among Latin words, but not a foreign word that looks foreign", () => {
    // U+0440 U+0430 U+0443 (Cyrillic er, a, u: reads "pay"); U+0418 U+0432 U+0430 U+043D ("Ivan": И and в pass for no Latin letter).
    expect(visibleText("Send \u0440\u0430\u0443 now")).toBe("Send ⟨U+0440⟩⟨U+0430⟩⟨U+0443⟩ now");
    expect(visibleText("Pay \u0418\u0432\u0430\u043D")).toBe("Pay \u0418\u0432\u0430\u043D");
    // Greek text alone, or beside Latin, stays as it is when it does not pass for Latin.
    expect(visibleText("\u0395\u03BB\u03BB\u03B7\u03BD\u03B9\u03BA\u03AC and more")).toBe(
      "\u0395\u03BB\u03BB\u03B7\u03BD\u03B9\u03BA\u03AC and more",
    );
    // Without Latin letters anywhere, Cyrillic look-alikes are just Cyrillic.
    expect(visibleText("\u0440\u0430\u0443")).toBe("\u0440\u0430\u0443");
  });

  it("escapes compatibility variants of ASCII wherever they stand: fullwidth, mathematical bold, the fi ligature", () => {
    expect(visibleText("\uFF50ay \u{1D429}ay \uFB01le \uFF0Fx")).toBe("⟨U+FF50⟩ay ⟨U+1D429⟩ay ⟨U+FB01⟩le ⟨U+FF0F⟩x");
  });

  it("escapes a non-ASCII decimal digit among ASCII digits, and leaves precomposed accents, superscripts and signs alone", () => {
    expect(visibleText("12\u06604 0044")).toBe("12⟨U+0660⟩4 0044");
    expect(visibleText("caf\u00E9 m\u00B2 \u2026 \u20AC5")).toBe("caf\u00E9 m\u00B2 \u2026 \u20AC5");
  });

  it("escapes a combining mark that makes a Latin letter pass for a precomposed one (decomposed: NFC differs, and so does the digest)", () => {
    // o U+0308 COMBINING DIAERESIS reads ö (U+00F6); e U+0301 COMBINING ACUTE ACCENT reads é (U+00E9).
    expect(visibleText("K\u00F6ln vs Ko\u0308ln")).toBe("K\u00F6ln vs Ko⟨U+0308⟩ln");
    expect(visibleText("cafe\u0301")).toBe("cafe⟨U+0301⟩");
    expect(visibleParts("o\u0308")).toEqual([
      { hidden: null, text: "o" },
      { hidden: "combining", codePoint: 0x308, text: "⟨U+0308⟩" },
    ]);
  });

  it("escapes stacked marks and marks on a Latin letter, a digit, a sign or nothing, even when nothing composes them", () => {
    // a with three U+0301; x U+0308 (no precomposed x with diaeresis); 0 U+0338 COMBINING LONG SOLIDUS OVERLAY; a mark at the start.
    expect(visibleText("a\u0301\u0301\u0301 x\u0308 0\u0338 \u0301b")).toBe(
      "a⟨U+0301⟩⟨U+0301⟩⟨U+0301⟩ x⟨U+0308⟩ 0⟨U+0338⟩ ⟨U+0301⟩b",
    );
    // The keycap 1 U+FE0F U+20E3: the variation selector is invisible, the enclosing keycap a mark on a digit.
    expect(visibleText("1\uFE0F\u20E3")).toBe("1⟨U+FE0F⟩⟨U+20E3⟩");
  });

  it("leaves the marks of scripts written with them as they are, when composed (NFC)", () => {
    // Hindi हिन्दी (vowel signs U+093F, U+0940, virama U+094D); Hebrew alef with qamats U+05B8; Arabic beh with fatha U+064E.
    expect(visibleText("\u0939\u093F\u0928\u094D\u0926\u0940 \u05D0\u05B8 \u0628\u064E")).toBe(
      "\u0939\u093F\u0928\u094D\u0926\u0940 \u05D0\u05B8 \u0628\u064E",
    );
  });

  it("escapes a value made only of Latin look-alikes when it is read beside Latin text, and not otherwise", () => {
    expect(visibleText("\u0420\u0410\u0423", { latinContext: true })).toBe("⟨U+0420⟩⟨U+0410⟩⟨U+0423⟩");
    expect(visibleText("\u0420\u0410\u0423")).toBe("\u0420\u0410\u0423");
  });

  it("escapes, in a name, a word of Latin look-alikes even with no Latin letter around it", () => {
    // U+0440 U+0430 U+0443 reads "pay": as text alone it is Cyrillic, as an argument name a look-alike of "pay".
    expect(visibleText("\u0440\u0430\u0443")).toBe("\u0440\u0430\u0443");
    expect(visibleText("\u0440\u0430\u0443", { latinContext: true })).toBe("⟨U+0440⟩⟨U+0430⟩⟨U+0443⟩");
    expect(visibleText("\u0418\u0432\u0430\u043D", { latinContext: true })).toBe("\u0418\u0432\u0430\u043D");
  });

  it("escapes strong right-to-left letters only when asked (a terminal), their marks with them", () => {
    // U+05D0 HEBREW LETTER ALEF before two digit groups; U+0627 ARABIC LETTER ALEF; U+05D0 U+05B8 (qamats on the escaped alef).
    expect(visibleText("\u05D0 0044 0532")).toBe("\u05D0 0044 0532");
    expect(visibleText("\u05D0 0044 0532", { escapeRightToLeft: true })).toBe("⟨U+05D0⟩ 0044 0532");
    expect(visibleText("\u0627 12 \u05D0\u05B8", { escapeRightToLeft: true })).toBe("⟨U+0627⟩ 12 ⟨U+05D0⟩⟨U+05B8⟩");
  });

  it("shows non-ASCII whitespace, private-use, unassigned and lone surrogates escaped", () => {
    expect(visibleText("1\u00A0000\u3000x\uE000\u0378\uD800")).toBe("1⟨U+00A0⟩000⟨U+3000⟩x⟨U+E000⟩⟨U+0378⟩⟨U+D800⟩");
  });

  it("leaves plain text, and text already escaped, as it is", () => {
    expect(visibleText("IBAN DE89 3704 0044 0532 0130 00")).toBe("IBAN DE89 3704 0044 0532 0130 00");
    expect(visibleText("⟨U+202E⟩")).toBe("⟨U+202E⟩");
  });
});

describe("visibleParts and hiddenCount", () => {
  it("cuts text into plain runs and escaped code points, each with its kind", () => {
    expect(visibleParts("a\u202Eb\u200Bp\u0430y")).toEqual([
      { hidden: null, text: "a" },
      { hidden: "bidi", codePoint: 0x202e, text: "⟨U+202E⟩" },
      { hidden: null, text: "b" },
      { hidden: "invisible", codePoint: 0x200b, text: "⟨U+200B⟩" },
      { hidden: null, text: "p" },
      { hidden: "confusable", codePoint: 0x430, text: "⟨U+0430⟩" },
      { hidden: null, text: "y" },
    ]);
    expect(visibleParts("")).toEqual([]);
  });

  it("counts the escaped code points", () => {
    expect([
      hiddenCount("IBAN DE89 3704 \u202E0044 0532\u202C 0130 00"),
      hiddenCount("plain"),
      hiddenCount("a\nb"),
      hiddenCount("a\nb", { layout: true }),
    ]).toEqual([2, 0, 1, 0]);
  });
});

describe("right-to-left letters", () => {
  it("names strong right-to-left code points (bidi classes R and AL), not their digits, marks, separators or controls", () => {
    // R: U+05D0 alef, U+05BE maqaf, U+FB1D, U+10900 Phoenician alf, U+1E900 Adlam; AL: U+0627 alef, U+061F question mark, U+FE70.
    expect([0x5d0, 0x5be, 0xfb1d, 0x10900, 0x1e900, 0x627, 0x61f, 0xfe70].map(isRightToLeft)).toEqual(
      Array(8).fill(true),
    );
    // U+060C Arabic comma (CS), U+0660 and U+06F1 digits (AN, EN), U+064E fatha (NSM), U+0600 number sign (AN), U+200F RLM (a bidi control, escaped anyway), A, 0.
    expect([0x60c, 0x660, 0x6f1, 0x64e, 0x600, 0x200f, 0x41, 0x30].map(isRightToLeft)).toEqual(Array(8).fill(false));
  });

  it("tells whether text shows a right-to-left letter as itself", () => {
    // A Hebrew letter inside a Latin word is escaped as a look-alike: nothing right-to-left is left to show.
    expect([
      holdsRightToLeft("\u05D0 0044 0532"),
      holdsRightToLeft("IBAN 0044"),
      holdsRightToLeft("ab\u05D0c"),
      holdsRightToLeft("\u0627", { escapeRightToLeft: true }),
    ]).toEqual([true, false, false, false]);
  });
});
