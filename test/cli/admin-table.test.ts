/**
 * `toolgate admin`'s tables and `name: value` blocks show what the gate holds as a person must
 * see it: bidi controls, invisible and look-alike characters escaped (`⟨U+202E⟩`), alignment
 * counted on what is shown, and a note under the output. Expected text is written by hand.
 */
import { describe, expect, it } from "vitest";
import { fields, table } from "../../src/cli/admin-table";

const NOTE =
  "note: ⟨U+…⟩ stands for a character shown by its code point: a bidi control, an invisible, control or look-alike character, a combining mark, or a right-to-left letter on a line with digits or Latin letters\n";

describe("admin tables", () => {
  it("escapes the IBAN memo's overrides in a cell, aligns on the escaped text and adds the note", () => {
    const out = table(
      ["ID", "MEMO", "SUBJECT"],
      [
        ["apr_1", "IBAN DE89 3704 \u202E0044 0532\u202C 0130 00", "user-1"],
        ["apr_2", "plain", "us\u0435r-2"],
      ],
    );
    expect(out).toBe(
      // The MEMO column is 48 characters wide as shown (15 + 8 + 9 + 8 + 8), then two spaces.
      `ID     MEMO${" ".repeat(44 + 2)}SUBJECT\n` +
        "apr_1  IBAN DE89 3704 ⟨U+202E⟩0044 0532⟨U+202C⟩ 0130 00  user-1\n" +
        `apr_2  plain${" ".repeat(43 + 2)}us⟨U+0435⟩r-2\n` +
        NOTE,
    );
  });

  it("escapes a line break or a zero-width space in a cell, so no cell can add a row or hide a character", () => {
    // The first column is 20 characters wide as shown (1 + 8 + 11).
    expect(table(["A", "B"], [["x\nID2  forged", "a\u200Bb"]])).toBe(
      `A${" ".repeat(19 + 2)}B\nx⟨U+000A⟩ID2  forged  a⟨U+200B⟩b\n` + NOTE,
    );
  });

  it("leaves plain output as it was, with no note", () => {
    expect(table(["ID", "TOOL"], [["apr_1", "get_order"]])).toBe("ID     TOOL\napr_1  get_order\n");
    expect(table(["ID"], [])).toBe("ID\n(none)\n");
    expect(fields([["tool", "get_order"]])).toBe("tool:  get_order\n");
  });

  it("escapes values of name: value lines and adds the note", () => {
    expect(
      fields([
        ["arguments", '{"memo":"IBAN \u202E0044\u202C"}'],
        ["subject", "user-1"],
      ]),
    ).toBe('arguments:  {"memo":"IBAN ⟨U+202E⟩0044⟨U+202C⟩"}\nsubject:    user-1\n' + NOTE);
  });

  it("escapes a right-to-left letter on a row with digits or Latin letters, so a terminal cannot reverse the digit groups", () => {
    // A terminal applying the bidi algorithm would print "א 0044 0532" as "0532 0044 א". U+05D0 HEBREW LETTER ALEF.
    expect(table(["ID", "MEMO"], [["apr_1", "\u05D0 0044 0532"]])).toBe(
      "ID     MEMO\napr_1  ⟨U+05D0⟩ 0044 0532\n" + NOTE,
    );
    // The letter's cell holds no digit, its row does: the whole line is what a terminal reorders.
    expect(table(["A", "B"], [["\u05E9\u05DC\u05D5\u05DD", "0044 0532"]])).toBe(
      `A${" ".repeat(31 + 2)}B\n⟨U+05E9⟩⟨U+05DC⟩⟨U+05D5⟩⟨U+05DD⟩  0044 0532\n` + NOTE,
    );
    expect(fields([["memo", "\u0627\u0644 12"]])).toBe("memo:  ⟨U+0627⟩⟨U+0644⟩ 12\n" + NOTE);
  });

  it("leaves a row of right-to-left text with no digit and no Latin letter as it is", () => {
    expect(table(["A"], [["\u05E9\u05DC\u05D5\u05DD \u05E2\u05D5\u05DC\u05DD"]])).toBe(
      "A\n\u05E9\u05DC\u05D5\u05DD \u05E2\u05D5\u05DC\u05DD\n",
    );
  });

  it("escapes a combining mark and a decomposed letter in a cell", () => {
    expect(table(["NAME"], [["Ko\u0308ln"]])).toBe("NAME\nKo⟨U+0308⟩ln\n" + NOTE);
  });
});
