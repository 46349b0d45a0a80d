// Writes N generated tool-cases-v2 fixtures and, with --golden, the reference's golden data.
//
// Usage (from the repository root):
//   node tools/run.js tools/gen-tool-cases.ts --seed S --count N --out DIR [--golden]
//        [--reference PATH/TO/dump.py] [--python python3] [--jobs J]
//
// --golden runs the reference's dump.py on every fixture (python3 is needed for this step only)
// and writes DIR/expected.json: file -> {exit_code, dump_sha256, dump_bytes}. A fixture the
// reference rejects (exit 2) or crashes on (exit 3/4) is a generator bug: it is reported, deleted
// and the script exits with status 1. The default reference path is
// ../shared/conformance/tool-cases/reference/dump.py relative to the repository root, or the
// TOOLGATE_REFERENCE_DUMP environment variable.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { generateFixture } from "../test/support/tool-cases-generator";

interface Args {
  seed: string;
  count: number;
  out: string;
  golden: boolean;
  reference: string;
  python: string;
  jobs: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    seed: "1",
    count: 10,
    out: "",
    golden: false,
    reference: process.env.TOOLGATE_REFERENCE_DUMP ?? resolve("../shared/conformance/tool-cases/reference/dump.py"),
    python: process.env.PYTHON ?? "python3",
    jobs: 2,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = (): string => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${a} needs a value`);
      return x;
    };
    if (a === "--seed") args.seed = v();
    else if (a === "--count") args.count = Number.parseInt(v(), 10);
    else if (a === "--out") args.out = v();
    else if (a === "--golden") args.golden = true;
    else if (a === "--reference") args.reference = resolve(v());
    else if (a === "--python") args.python = v();
    else if (a === "--jobs") args.jobs = Number.parseInt(v(), 10);
    else throw new Error(`unknown option ${a}`);
  }
  if (args.out === "" || !Number.isSafeInteger(args.count) || args.count < 1) {
    throw new Error("usage: gen-tool-cases.ts --seed S --count N --out DIR [--golden] [--reference dump.py]");
  }
  return args;
}

interface DumpResult {
  exitCode: number;
  sha256: string;
  bytes: number;
  stderr: string;
}

function runReference(python: string, reference: string, file: string): Promise<DumpResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(python, [reference, file], { stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out);
      resolvePromise({
        exitCode: code ?? -1,
        sha256: createHash("sha256").update(stdout).digest("hex"),
        bytes: stdout.length,
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
  });
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  mkdirSync(args.out, { recursive: true });
  const names: string[] = [];
  const predicted = new Map<string, number>();
  const tagCounts = new Map<string, number>();
  let totalBytes = 0;
  const width = String(args.count - 1).length;
  for (let i = 0; i < args.count; i++) {
    const fixture = generateFixture(args.seed, i);
    const name = `s${args.seed}-${String(i).padStart(width, "0")}.json`;
    const bytes = new TextEncoder().encode(fixture.text);
    writeFileSync(join(args.out, name), bytes);
    totalBytes += bytes.length;
    names.push(name);
    predicted.set(name, fixture.predictedExit);
    for (const t of fixture.tags) tagCounts.set(t, (tagCounts.get(t) ?? 0) + 1);
  }
  process.stdout.write(`wrote ${names.length} fixtures (${totalBytes} bytes) to ${args.out}\n`);
  process.stdout.write("fixtures per tag:\n");
  for (const [t, n] of [...tagCounts.entries()].sort()) process.stdout.write(`  ${t}: ${n}\n`);
  if (!args.golden) return 0;

  if (!existsSync(args.reference)) {
    process.stderr.write(`reference dump.py not found at ${args.reference}\n`);
    return 1;
  }
  const results = new Map<string, DumpResult>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const name = names[next++] as string;
      results.set(name, await runReference(args.python, args.reference, join(args.out, name)));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, args.jobs) }, worker));

  const manifest: Record<string, { exit_code: number; dump_sha256: string; dump_bytes: number }> = {};
  const bad: string[] = [];
  const exitCounts = new Map<number, number>();
  let modelMismatch = 0;
  for (const name of names) {
    const r = results.get(name) as DumpResult;
    exitCounts.set(r.exitCode, (exitCounts.get(r.exitCode) ?? 0) + 1);
    if (r.exitCode !== 0 && r.exitCode !== 1) {
      bad.push(`${name}: exit ${r.exitCode}: ${r.stderr.slice(0, 400)}`);
      rmSync(join(args.out, name));
      continue;
    }
    if (r.exitCode !== predicted.get(name)) modelMismatch++;
    manifest[name] = { exit_code: r.exitCode, dump_sha256: r.sha256, dump_bytes: r.bytes };
  }
  // Keep only the fixtures listed in the manifest in the output directory.
  for (const f of readdirSync(args.out)) {
    if (f.endsWith(".json") && f !== "expected.json" && !(f in manifest)) rmSync(join(args.out, f));
  }
  const document = {
    reference: "tool_dispatcher (seed 004_780ab4077f902ab8) via conformance/tool-cases/reference/dump.py",
    generator: { seed: args.seed, count: args.count },
    fixtures: manifest,
  };
  writeFileSync(join(args.out, "expected.json"), `${JSON.stringify(document, null, 1)}\n`);
  process.stdout.write(
    `reference exit codes: ${[...exitCounts.entries()]
      .sort()
      .map(([c, n]) => `${c}=${n}`)
      .join(" ")}; ` + `generator model predicted a different exit code for ${modelMismatch}\n`,
  );
  if (bad.length > 0) {
    process.stderr.write(
      `the reference refused ${bad.length} generated fixtures (generator bug):\n${bad.join("\n")}\n`,
    );
    return 1;
  }
  return 0;
}

process.exitCode = await main();
