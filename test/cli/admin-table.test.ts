/**
 * `toolgate admin`'s tables and `name: value` blocks show what the gate holds as a person must
 * see it: bidi controls, invisible and look-alike characters escaped (`⟨U+202E⟩`), alignment
 * counted on what is shown, and a note under the output. Expected text is written by hand.
 */
import { describe, expect, it } from "vitest";
import { fields, table } from "../../src/cli/admin-table";

const NOTE = "note: ⟨U+…⟩ stands for a character shown by its code point: a bidi control, an invisible, control or look-alike character\n";

describe("admin tables", () => {
  it("escapes the IBAN memo's overrides in a cell, aligns on the escaped text and adds the note", () => {
    const out = table(["ID", "MEMO", "SUBJECT"], [["apr_1", "IBAN DE89 3704 \u202E0044 0532\u202C 0130 00", "user-1"], ["apr_2", "plain", "us\u0435r-2"]]);
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
    expect(table(["A", "B"], [["x\nID2  forged", "a\u200Bb"]])).toBe(`A${" ".repeat(19 + 2)}B\nx⟨U+000A⟩ID2  forged  a⟨U+200B⟩b\n` + NOTE);
  });

  it("leaves plain output as it was, with no note", () => {
    expect(table(["ID", "TOOL"], [["apr_1", "get_order"]])).toBe("ID     TOOL\napr_1  get_order\n");
    expect(table(["ID"], [])).toBe("ID\n(none)\n");
    expect(fields([["tool", "get_order"]])).toBe("tool:  get_order\n");
  });

  it("escapes values of name: value lines and adds the note", () => {
    expect(fields([["arguments", '{"memo":"IBAN \u202E0044\u202C"}'], ["subject", "user-1"]])).toBe('arguments:  {"memo":"IBAN ⟨U+202E⟩0044⟨U+202C⟩"}\nsubject:    user-1\n' + NOTE);
  });
});
