// Differential test: toolgate's `cases --dump` against the reference's dump, for every fixture of
// the generated corpus in fixtures/tool-cases/generated. The golden data (SHA-256 and length of
// the reference's exact dump bytes, and its exit status) was produced by the reference
// implementation with tools/gen-tool-cases.ts --golden; nothing here is computed by toolgate
// except the value under test.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCases } from "../../src/cli/cases";
import type { CliIo } from "../../src/cli/io";
import { readJson } from "../../src/core/json";
import { generateFixture } from "../support/tool-cases-generator";

const DIR = new URL("../../fixtures/tool-cases/generated/", import.meta.url);

interface Golden {
  exit_code: number;
  dump_sha256: string;
  dump_bytes: number;
}

function loadManifest(): { seed: string; fixtures: Map<string, Golden> } {
  const read = readJson(new Uint8Array(readFileSync(new URL("expected.json", DIR))), { maxBytes: 1 << 22 });
  if (!read.ok) throw new Error(`expected.json: ${read.error.message}`);
  const doc = read.value as unknown as { generator: { seed: string }; fixtures: Record<string, Golden> };
  return { seed: doc.generator.seed, fixtures: new Map(Object.entries(doc.fixtures)) };
}

function runDump(file: string): { exitCode: number; stdout: Uint8Array; stderr: string } {
  let out = "";
  let err = "";
  const io: CliIo = {
    stdout: (text) => {
      out += text;
    },
    stderr: (text) => {
      err += text;
    },
    readFile: (path) => new Uint8Array(readFileSync(path)),
  };
  const exitCode = runCases(["--fixture", file, "--dump"], io);
  if (typeof exitCode !== "number") throw new Error("runCases must be synchronous");
  return { exitCode, stdout: new TextEncoder().encode(out), stderr: err };
}

const manifest = loadManifest();
const names = [...manifest.fixtures.keys()].sort();

describe("generated corpus", () => {
  it("lists exactly the fixture files on disk, at least 240 of them", () => {
    const onDisk = readdirSync(DIR)
      .filter((f) => f.endsWith(".json") && f !== "expected.json")
      .sort();
    expect(onDisk).toEqual(names);
    expect(names.length >= 240).toBe(true);
  });

  it("has fixtures the reference accepts with both exit statuses", () => {
    const exits = new Set([...manifest.fixtures.values()].map((g) => g.exit_code));
    expect([...exits].sort()).toEqual([0, 1]);
  });

  it("is reproducible from its seed (the generator is deterministic)", () => {
    for (const name of names.slice(0, 12)) {
      const index = Number.parseInt(name.replace(/^s[^-]*-/, "").replace(/\.json$/, ""), 10);
      const text = new TextDecoder().decode(readFileSync(new URL(name, DIR)));
      expect(generateFixture(manifest.seed, index).text).toBe(text);
    }
  });
});

describe("toolgate cases --dump equals the reference dump byte for byte", () => {
  it.each(names)("%s", (name) => {
    const golden = manifest.fixtures.get(name) as Golden;
    const { exitCode, stdout } = runDump(new URL(name, DIR).pathname);
    const sha = createHash("sha256").update(stdout).digest("hex");
    expect({ exit_code: exitCode, dump_bytes: stdout.length, dump_sha256: sha }).toEqual({
      exit_code: golden.exit_code,
      dump_bytes: golden.dump_bytes,
      dump_sha256: golden.dump_sha256,
    });
  });
});
