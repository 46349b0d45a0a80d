// The static backtracking check: common patterns pass, each risky construct is refused, and the
// patterns it passes stay fast on hostile subjects of the longest length a pattern may test.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assessPattern, patternRisk, SCHEMA_LIMITS } from "../../../src/core/tool-schema";
import { rawPatternArb } from "./generators";

const ACCEPTED = [
  "^[a-z0-9_-]+$",
  "^\\d{4}-\\d{2}-\\d{2}$",
  "^\\+?[1-9]\\d{1,14}$",
  "^\\d+(\\.\\d+)?$",
  "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
  "^(?:draft|sent|paid)$",
  "^(?<year>\\d{4})-(?<month>\\d{2})$",
  "[\\w-]+",
  "^https://",
  "(?:ab)*c",
  "(?:a|b)*c",
  "(?!x)a",
  "[^a]+a",
  "\\D+\\d",
  "\\s+\\S",
  ".+\\n",
  "[a-c]+d",
  "\\u{1F600}",
  "[😀-😂]+x",
  "^$",
  "[]",
  "a{0,1000}b",
  "\\w+@",
  "[a-z]+-[0-9]+",
  "\\d+(?:\\.\\d+)?x",
  "[^x]*x",
];

// [pattern, reason]: the character sets are exact where they can be, and conservative for \p.
const REFUSED: [string, string][] = [
  ["[^a]+b", "ambiguous: the parts at offsets 0 and 5 can match the same character at the same point"],
  ["[a-c]+b", "ambiguous: the parts at offsets 0 and 6 can match the same character at the same point"],
  ["\\d+1", "ambiguous: the parts at offsets 0 and 3 can match the same character at the same point"],
  ["\\u{1F600}+😀", "ambiguous: the parts at offsets 0 and 10 can match the same character at the same point"],
  ["[\\uD83D\\uDE00]+😀", "ambiguous: the parts at offsets 0 and 15 can match the same character at the same point"],
  ["\\p{L}+1", "ambiguous: the parts at offsets 0 and 6 can match the same character at the same point"],
  ["(?:a|ab)c", "ambiguous: the parts at offsets 3 and 5 can match the same character at the same point"],
  ["^(?:a|b)*(?:a|b)*$", "ambiguous: the parts at offsets 4 and 12 can match the same character at the same point"],
  [".*x", "ambiguous: the parts at offsets 0 and 2 can match the same character at the same point"],
  ["[^x]*x?y", "ambiguous: the parts at offsets 0 and 7 can match the same character at the same point"],
  ["(x+x+)+y", "nested quantifiers: a repeated part holds a quantifier (at offset 6)"],
  ["(?:(?:a)+)+", "nested quantifiers: a repeated part holds a quantifier (at offset 10)"],
];

describe("patternRisk", () => {
  it("passes common patterns", () => {
    expect(ACCEPTED.filter((p) => patternRisk(p) !== null)).toEqual([]);
  });

  it.each(REFUSED)("refuses %s", (pattern, reason) => {
    expect(patternRisk(pattern)).toBe(reason);
  });

  it("keeps every pattern it passes fast on hostile subjects of the longest length it may test", () => {
    const subjects = (n: number) => [
      "a".repeat(n),
      "ab".repeat(n / 2),
      "1".repeat(n),
      "😀".repeat(n),
      `${"a".repeat(n - 1)}!`,
      `${"ab".repeat(n / 2 - 1)}a!`,
    ];
    const searched = subjects(SCHEMA_LIMITS.maxPatternSubjectLength);
    const anchored = subjects(SCHEMA_LIMITS.maxStringLength);
    const generated = fc.sample(rawPatternArb(8), { seed: 7, numRuns: 1_500 }).filter((p) => patternRisk(p) === null);
    const patterns = [...new Set([...ACCEPTED, ...generated])];
    const slowest = { searched: 0, anchored: 0 };
    let anchoredCount = 0;
    for (const pattern of patterns) {
      const regex = new RegExp(pattern, "u");
      const kind = assessPattern(pattern).anchored ? "anchored" : "searched";
      if (kind === "anchored") anchoredCount++;
      for (const subject of kind === "anchored" ? anchored : searched) {
        // The fastest of three runs: compilation, first-use string flattening and GC pauses are noise here.
        let fastest = Infinity;
        for (let run = 0; run < 3; run++) {
          const start = performance.now();
          regex.test(subject);
          fastest = Math.min(fastest, performance.now() - start);
        }
        slowest[kind] = Math.max(slowest[kind], fastest);
      }
    }
    console.log(
      `pattern safety: ${patterns.length} passed patterns (${anchoredCount} anchored, tried on 65,536 code points; the others on 256); ` +
        `slowest (fastest of 3 runs) ${slowest.searched.toFixed(2)} ms searched, ${slowest.anchored.toFixed(2)} ms anchored`,
    );
    expect(generated.length > 300 && anchoredCount > 100).toBe(true);
    // A refused shape such as a*a*b takes seconds on such subjects; these take about a millisecond.
    expect(slowest.searched < 25 && slowest.anchored < 25).toBe(true);
  });
});
