import { describe, expect, it } from "vitest";
import { runCases } from "../../src/cli/cases";
import { captureIo, fixturePath, fixtureText, listFixtures } from "../core/tool-result/fixture-files";

describe("toolgate cases", () => {
  it("prints the reference CLI's summary byte for byte and exits 0 on the public fixture", () => {
    const io = captureIo();
    const code = runCases(["--fixture", fixturePath("public-cases.json")], io);
    expect(code).toBe(0);
    expect(io.out).toBe(fixtureText("public-cases.summary.txt"));
    expect(io.err).toBe("");
  });

  it("dumps every package and projection byte-identical to the reference (public fixture)", () => {
    const io = captureIo();
    expect(runCases([`--fixture=${fixturePath("public-cases.json")}`, "--dump"], io)).toBe(0);
    expect(io.out).toBe(fixtureText("public-cases.expected.json"));
  });

  const traps = listFixtures("traps/", (name) => /^\d\d-.*(?<!\.expected)\.json$/.test(name));
  it("has the trap fixtures", () => {
    expect(traps.length).toBe(8);
  });
  it.each(traps)("dumps %s byte-identical to the reference, with its exit status", (name) => {
    const expected = fixtureText(name.replace(/\.json$/, ".expected.json"));
    const io = captureIo();
    const code = runCases(["--fixture", fixturePath(name), "--dump"], io);
    expect(io.out).toBe(expected);
    expect(code).toBe(name.includes("exits-1") ? 1 : 0);
  });

  const rejected = listFixtures("rejected/", (name) => name.endsWith(".json"));
  it("has the 20 rejected fixtures", () => {
    expect(rejected.length).toBe(20);
  });
  it.each([...rejected, ...listFixtures("traps/", (name) => name.startsWith("rejected-"))])(
    "refuses %s with exit 2, empty stdout and a message naming the fixture",
    (name) => {
      const io = captureIo();
      expect(runCases(["--fixture", fixturePath(name)], io)).toBe(2);
      expect(io.out).toBe("");
      expect(io.err.startsWith(`toolgate cases: ${fixturePath(name)}: `)).toBe(true);
    },
  );

  it("names the offending field of a refused fixture", () => {
    const io = captureIo();
    runCases(["--fixture", fixturePath("rejected/09-unknown-step-field.json")], io);
    expect(io.err).toBe(
      `toolgate cases: ${fixturePath("rejected/09-unknown-step-field.json")}: fixture validation failed:\n- cases[0].steps[0]: Unrecognized key: "comment"\n`,
    );
  });

  it("reports a run-time refusal (rejected 20) with the reason", () => {
    const io = captureIo();
    const name = fixturePath("rejected/20-runtime-timeout-after-commit-on-read.json");
    expect(runCases(["--fixture", name], io)).toBe(2);
    expect(io.err).toBe(
      `toolgate cases: ${name}: fixture refused while running: timeout_after_commit applies only to write actions\n`,
    );
  });

  it("prints the rejected dump document with --dump", () => {
    const io = captureIo();
    const name = fixturePath("rejected/19-runtime-approval-for-unknown-tool.json");
    expect(runCases(["--fixture", name, "--dump"], io)).toBe(2);
    expect(io.out).toBe(
      `{\n  "exit_code": 2,\n  "message": "${name}: fixture refused while running: an unknown tool cannot create approval\\n",\n  "rejected": true\n}\n`,
    );
  });

  it("exits 2 with usage on bad arguments", () => {
    for (const args of [[], ["--fixture"], ["--verbose"], ["--dump"]]) {
      const io = captureIo();
      expect(runCases(args, io)).toBe(2);
      expect(io.out).toBe("");
      expect(io.err.endsWith("usage: toolgate cases --fixture FILE [--dump]\n")).toBe(true);
    }
  });

  it("exits 2 on a missing or unreadable file", () => {
    const io = captureIo();
    expect(runCases(["--fixture", "/nonexistent/tool-cases.json"], io)).toBe(2);
    expect(io.err).toBe("toolgate cases: cannot read fixture /nonexistent/tool-cases.json (ENOENT)\n");
    const dir = captureIo();
    expect(runCases(["--fixture", fixturePath("rejected/")], dir)).toBe(2);
    expect(dir.err).toBe(`toolgate cases: cannot read fixture ${fixturePath("rejected/")} (EISDIR)\n`);
  });
});
