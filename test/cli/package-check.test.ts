/**
 * How the package check (tools/lib/package-check.ts) reads a sample's expected errors and tsc's
 * output: a wrong sample passes only with exactly its marked codes on its marked lines, and any
 * other line tsc prints (a config error, an error elsewhere) counts as unexpected.
 */
import { describe, expect, it } from "vitest";
import { expectedErrors, reportedErrors } from "../../tools/lib/package-check";

describe("the package check's comparison", () => {
  it("reads `// error TSnnnn` markers with their line numbers", () => {
    const text = 'import { x } from "toolgate";\nexport const a = x(1); // error TS2345\n// error TS1 is prose\n';
    expect(expectedErrors("wrong.ts", text)).toEqual(["wrong.ts:2 TS2345"]);
  });

  it("reads tsc's plain errors, skips message continuations and keeps any other line whole", () => {
    const output = [
      "wrong.ts(2,18): error TS2345: Argument of type 'number' is not assignable to parameter of type 'string'.",
      "  Type 'number' is not assignable to type 'string'.",
      "error TS5083: Cannot read file 'tsconfig.base.json'.",
      "",
    ].join("\n");
    expect(reportedErrors(output)).toEqual([
      "wrong.ts:2 TS2345",
      "error TS5083: Cannot read file 'tsconfig.base.json'.",
    ]);
  });
});
