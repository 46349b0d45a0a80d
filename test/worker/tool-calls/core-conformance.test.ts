import { describe, expect, it } from "vitest";
import publicFixture from "../../../fixtures/tool-cases/public-cases.json?raw";
import publicDump from "../../../fixtures/tool-cases/public-cases.expected.json?raw";
import publicSummary from "../../../fixtures/tool-cases/public-cases.summary.txt?raw";
import trapFixture from "../../../fixtures/tool-cases/traps/04-int-and-float-arguments.json?raw";
import trapDump from "../../../fixtures/tool-cases/traps/04-int-and-float-arguments.expected.json?raw";
import statusFixture from "../../../fixtures/tool-cases/traps/06-status-query-traps.json?raw";
import statusDump from "../../../fixtures/tool-cases/traps/06-status-query-traps.expected.json?raw";
import { runCases } from "../../../src/cli/cases";

// The same reference-made golden files as the Node suite, run by the engine inside workerd.
const files: Record<string, string> = {
  "public.json": publicFixture,
  "trap-04.json": trapFixture,
  "trap-06.json": statusFixture,
};

function run(args: string[]): { code: number; out: string; err: string } {
  let out = "";
  let err = "";
  const code = runCases(args, {
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    readFile: (path) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error("missing"), { code: "ENOENT" });
      return new TextEncoder().encode(text);
    },
  }) as number;
  return { code, out, err };
}

describe("Tool Result v2 engine inside workerd", () => {
  it("dumps the public fixture byte-identical to the reference", () => {
    expect(run(["--fixture", "public.json", "--dump"])).toEqual({ code: 0, out: publicDump, err: "" });
  });

  it("prints the reference CLI's summary for the public fixture", () => {
    expect(run(["--fixture", "public.json"])).toEqual({ code: 0, out: publicSummary, err: "" });
  });

  it.each([
    ["trap-04.json", trapDump],
    ["trap-06.json", statusDump],
  ])("dumps %s byte-identical to the reference", (name, expected) => {
    expect(run(["--fixture", name, "--dump"])).toEqual({ code: 0, out: expected, err: "" });
  });
});
