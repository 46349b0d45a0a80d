import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCapability } from "../../src/cli/capability";
import type { CliIo } from "../../src/cli/io";

const dir = "fixtures/capability";
const files = readdirSync(dir)
  .filter((name) => name.endsWith(".json"))
  .sort();

function io(files: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    readFile: (path) => (path in files ? new TextEncoder().encode(files[path]) : new Uint8Array(readFileSync(path))),
  };
  return { cli, out, err };
}

describe("toolgate capability", () => {
  it("has at least 40 scenarios", () => {
    expect(files.length >= 40).toBe(true);
  });

  it.each(files)("runs %s with exit 0", (name) => {
    const { cli, err } = io();
    expect(runCapability(["--fixture", `${dir}/${name}`], cli)).toBe(0);
    expect(err.join("")).toBe("");
  });

  it("exits 1 and names the step when an outcome differs", () => {
    const doc =
      '{"format":"capability-cases-v1","name":"m","steps":[{"op":{"advance-time":{"tick":0}},"expect":{"Ok":true}}]}';
    const { cli, out, err } = io({ "m.json": doc });
    expect(runCapability(["--fixture", "m.json"], cli)).toBe(1);
    expect(err.join("")).toBe("toolgate capability: m.json: 1 step(s) did not match: 0\n");
    expect(out.join("")).toContain('"matched": false');
  });

  it("exits 2 with the path of an invalid operation", () => {
    const doc =
      '{"format":"capability-cases-v1","name":"m","steps":[{"op":"snapshot"},{"op":{"advance-time":{"tick":-1}}}]}';
    const { cli, err } = io({ "m.json": doc });
    expect(runCapability(["--fixture", "m.json"], cli)).toBe(2);
    expect(err.join("").startsWith("toolgate capability: m.json: invalid-scenario\nat steps.1.op")).toBe(true);
  });

  it("exits 2 for malformed JSON, a wrong format and bad arguments", () => {
    const bad = io({ "a.json": "{", "b.json": '{"format":"capability-cases-v2","name":"x","steps":[]}' });
    expect(runCapability(["--fixture", "a.json"], bad.cli)).toBe(2);
    expect(runCapability(["--fixture", "b.json"], bad.cli)).toBe(2);
    expect(runCapability([], bad.cli)).toBe(2);
    expect(bad.err[2]).toBe("usage: toolgate capability --fixture FILE\n");
  });
});
