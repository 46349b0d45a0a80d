// Benchmark: the Tool Result v2 engine (in-process, Node) vs the Python reference's run_fixture,
// side by side in one run (7 alternating pairs of 1 s slices, median ratio [min–max]), with the
// ratio of each phase of a step (bench/phases.ts, short slices in the same rounds); then a
// data-defined tool with a CEL authorize beside the built-in get_order (bench/data-tool.ts).
// Where the engine's own time goes, function by function: bench/profile.ts (not run here).
//
//   node tools/run.js bench/tool-result.ts [--pairs 7] [--slice 1] [--phase-slice 0.1] [--reads 250] [--writes 100]
//        [--write-fixture FILE] [--seed-module PATH] [--python python3] [--no-python]
//
// The fixture has two cases: "reads" (get_order ORDER-7 for tenant-a/user-1, distinct call and
// operation ids) and "writes" (create_refund_draft with distinct idempotency keys and a valid
// bound approval). --write-fixture FILE also writes it, so the reference can run the same steps.
// The reference module defaults to ../shared/seeds/004_780ab4077f902ab8.txt relative to the
// repository root (or TOOLGATE_REFERENCE_SEED). Without python3 or the seed, only the TypeScript
// figures are printed.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { readJson, sha256Hex, prettyJson } from "../src/core/json";
import { parseToolCasesFixture, runFixture, type ToolCasesFixture } from "../src/conformance/tool-cases";
import { benchDataTool } from "./data-tool";
import { benchFixture } from "./fixture";
import { PHASES, preparePhases, type Phase } from "./phases";

interface Options {
  pairs: number;
  slice: number;
  phaseSlice: number;
  reads: number;
  writes: number;
  writeFixture: string | null;
  seedModule: string;
  python: string;
  usePython: boolean;
}

function parseOptions(argv: string[]): Options {
  const o: Options = {
    pairs: 7,
    slice: 1,
    phaseSlice: 0.1,
    reads: 250,
    writes: 100,
    writeFixture: null,
    seedModule: process.env.TOOLGATE_REFERENCE_SEED ?? resolve("../shared/seeds/004_780ab4077f902ab8.txt"),
    python: process.env.PYTHON ?? "python3",
    usePython: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = (): string => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${a} needs a value`);
      return x;
    };
    if (a === "--pairs") o.pairs = Number(v());
    else if (a === "--slice") o.slice = Number(v());
    else if (a === "--phase-slice") o.phaseSlice = Number(v());
    else if (a === "--reads") o.reads = Number(v());
    else if (a === "--writes") o.writes = Number(v());
    else if (a === "--write-fixture") o.writeFixture = v();
    else if (a === "--seed-module") o.seedModule = resolve(v());
    else if (a === "--python") o.python = v();
    else if (a === "--no-python") o.usePython = false;
    else throw new Error(`unknown option ${a}`);
  }
  if (!(
    o.pairs >= 1 &&
    o.pairs <= 50 &&
    o.slice > 0 &&
    o.slice <= 10 &&
    o.phaseSlice > 0 &&
    o.phaseSlice <= 2 &&
    o.reads >= 1 &&
    o.writes >= 1
  )) {
    throw new Error("out-of-range option");
  }
  return o;
}

function parseFixture(text: string): ToolCasesFixture {
  const read = readJson(text, { maxBytes: 1 << 26 });
  if (!read.ok) throw new Error(`bench fixture: ${read.error.message}`);
  const parsed = parseToolCasesFixture(read.value);
  if (!parsed.ok) throw new Error(`bench fixture: ${parsed.error.message}`);
  return parsed.fixture;
}

function only(fixture: ToolCasesFixture, caseId: string): ToolCasesFixture {
  return { ...fixture, cases: fixture.cases.filter((c) => c.id === caseId) };
}

function stepsOf(fixture: ToolCasesFixture): number {
  return fixture.cases.reduce((n, c) => n + c.steps.length, 0);
}

// ---------------------------------------------------------------------------------------------
// TypeScript side

type Hash = (text: string) => string;

/** The engine's default hash is @noble/hashes; node:crypto is the native variant available on Node (and workerd). */
const VARIANTS: ReadonlyArray<{ name: string; hash: Hash | undefined }> = [
  { name: "TypeScript (noble)", hash: undefined },
  { name: "TypeScript (node:crypto)", hash: (text) => createHash("sha256").update(text, "utf8").digest("hex") },
];

function runTs(fixture: ToolCasesFixture, hash?: Hash): void {
  const result = runFixture(fixture, hash === undefined ? {} : { hash });
  if (!result.ok || result.run.exitCode !== 0) throw new Error("the TypeScript engine did not pass the bench fixture");
}

function timeTs(
  fixture: ToolCasesFixture,
  seconds: number,
  hash?: Hash,
): { runs: number; steps: number; elapsed: number } {
  const steps = stepsOf(fixture);
  let runs = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < seconds * 1000) {
    runTs(fixture, hash);
    runs++;
    elapsed = performance.now() - start;
  }
  return { runs, steps: runs * steps, elapsed: elapsed / 1000 };
}

function countTs(
  fixture: ToolCasesFixture,
  base: Hash = sha256Hex,
): { digests: number; bytes: number; unique: Set<string> } {
  const encoder = new TextEncoder();
  const counts = { digests: 0, bytes: 0, unique: new Set<string>() };
  const hash = (text: string): string => {
    counts.digests++;
    counts.bytes += encoder.encode(text).length;
    const hex = base(text);
    counts.unique.add(hex);
    return hex;
  };
  const result = runFixture(fixture, { hash });
  if (!result.ok || result.run.exitCode !== 0) throw new Error("the TypeScript engine did not pass the bench fixture");
  return counts;
}

// ---------------------------------------------------------------------------------------------
// Python side: one long-lived process answering line commands

class PythonTimer {
  private readonly lines: string[] = [];
  private waiting: ((line: string) => void) | null = null;
  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (this.waiting !== null) {
        const w = this.waiting;
        this.waiting = null;
        w(line);
      } else this.lines.push(line);
    });
  }

  static start(python: string, seedModule: string, fixtureFile: string): PythonTimer {
    const child = spawn(
      python,
      [resolve("bench/reference_timer.py"), "--fixture", fixtureFile, "--seed-module", seedModule],
      {
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    child.stderr.on("data", (b: Buffer) => process.stderr.write(`[python] ${b.toString("utf8")}`));
    return new PythonTimer(child);
  }

  next(timeoutMs: number): Promise<Record<string, unknown>> {
    const queued = this.lines.shift();
    if (queued !== undefined) return Promise.resolve(parseLine(queued));
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        this.waiting = null;
        reject(new Error("the Python timer did not answer in time"));
      }, timeoutMs);
      this.waiting = (line) => {
        clearTimeout(timer);
        resolvePromise(parseLine(line));
      };
    });
  }

  async ask(command: Record<string, unknown>, timeoutMs: number): Promise<Record<string, unknown>> {
    this.child.stdin.write(`${JSON.stringify(command)}\n`);
    return this.next(timeoutMs);
  }

  stop(): void {
    try {
      this.child.stdin.write(`${JSON.stringify({ cmd: "quit" })}\n`);
      this.child.stdin.end();
    } catch {
      // already gone
    }
    setTimeout(() => this.child.kill("SIGKILL"), 2000).unref();
  }
}

function parseLine(line: string): Record<string, unknown> {
  const read = readJson(line, { maxBytes: 1 << 24 });
  if (!read.ok || read.value === null || typeof read.value !== "object" || Array.isArray(read.value)) {
    throw new Error(`unexpected line from the Python timer: ${line.slice(0, 200)}`);
  }
  return read.value as unknown as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

const fmt = (x: number, d = 0): string =>
  x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });

async function main(): Promise<number> {
  const o = parseOptions(process.argv.slice(2));
  const deadline = Date.now() + 10 * 60 * 1000;
  const document = benchFixture(o.reads, o.writes);
  const text = `${JSON.stringify(document)}\n`;
  if (o.writeFixture !== null) {
    writeFileSync(o.writeFixture, text);
    process.stdout.write(
      `wrote the bench fixture (${o.reads} read + ${o.writes} write steps, ${text.length} bytes) to ${o.writeFixture}\n`,
    );
  }
  const fixture = parseFixture(text);
  const parts = { reads: only(fixture, "reads"), writes: only(fixture, "writes") };

  // Correctness and warm-up on the TypeScript side.
  for (const v of VARIANTS) for (let i = 0; i < 20; i++) runTs(fixture, v.hash);
  const tsCounts = { reads: countTs(parts.reads), writes: countTs(parts.writes) };
  for (const part of ["reads", "writes"] as const) {
    const native = countTs(parts[part], VARIANTS[1]?.hash);
    const same =
      native.unique.size === tsCounts[part].unique.size &&
      [...native.unique].every((h) => tsCounts[part].unique.has(h));
    if (!same) throw new Error("node:crypto and noble digests differ");
  }

  let py: PythonTimer | null = null;
  let tmp: string | null = null;
  let reason = "";
  if (!o.usePython) reason = "--no-python";
  else if (!existsSync(o.seedModule)) reason = `reference seed not found at ${o.seedModule}`;
  else if (spawnSync(o.python, ["--version"], { timeout: 10_000 }).status !== 0) reason = `${o.python} not available`;
  if (reason === "") {
    tmp = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
    const file = join(tmp, "bench-fixture.json");
    writeFileSync(file, text);
    py = PythonTimer.start(o.python, o.seedModule, file);
    const ready = await py.next(120_000);
    if (ready.ready !== true || ready.passed !== true) {
      process.stderr.write(`the reference refused or failed the bench fixture: ${JSON.stringify(ready)}\n`);
      py.stop();
      return 1;
    }
    process.stdout.write(
      `reference: Python ${String(ready.python)}, run_fixture in-process (${String(ready.steps)} steps pass)\n`,
    );
  } else {
    process.stdout.write(`Python reference not run (${reason}): TypeScript figures only\n`);
  }

  try {
    const pyCounts: Record<string, { digests: number; bytes: number; unique: string[] }> = {};
    if (py !== null) {
      // Correctness before timing: the same summary, and every document toolgate hashes is one the
      // reference hashes too (equal SHA-256 ⇒ byte-identical canonical text).
      for (const part of ["reads", "writes"] as const) {
        const summary = (await py.ask({ cmd: "summary", case: part }, 120_000)).summary;
        const ours = runFixture(parts[part]);
        if (!ours.ok) throw new Error("TypeScript run failed");
        const same = prettyJson(ours.run.summary as never) === prettyJson(readJsonValue(JSON.stringify(summary)));
        const counts = (await py.ask({ cmd: "digests", case: part }, 120_000)) as unknown as {
          digests: number;
          bytes: number;
          unique: string[];
        };
        pyCounts[part] = counts;
        const theirs = new Set(counts.unique);
        const missing = [...tsCounts[part].unique].filter((h) => !theirs.has(h));
        process.stdout.write(
          `correctness ${part}: summaries ${same ? "identical" : "DIFFER"}; ` +
            `${tsCounts[part].unique.size} distinct TypeScript digests, ${missing.length} not among the reference's ${theirs.size}\n`,
        );
        if (!same || missing.length > 0) throw new Error("TypeScript and reference disagree on the bench fixture");
      }
    }

    for (const part of ["reads", "writes"] as const) {
      const f = parts[part];
      const tsRates: number[][] = VARIANTS.map(() => []);
      const ratios: number[][] = VARIANTS.map(() => []);
      const pyRates: number[] = [];
      const phaseSet = preparePhases(f);
      const tsPhases = new Map<string, number[]>();
      const pyPhases = new Map<string, number[]>();
      const phaseRatios = new Map<string, number[]>();
      let rounds = 0;
      for (let pair = 0; pair < o.pairs && Date.now() < deadline; pair++) {
        const measurePy = async (): Promise<void> => {
          if (py === null) return;
          const r = (await py.ask({ cmd: "time", case: part, seconds: o.slice }, (o.slice + 60) * 1000)) as {
            steps: number;
            elapsed: number;
          };
          pyRates.push(r.steps / r.elapsed);
        };
        const round: number[] = new Array<number>(VARIANTS.length).fill(0);
        const measureTs = (): void => {
          VARIANTS.forEach((v, k) => {
            const r = timeTs(f, o.slice, v.hash);
            round[k] = r.steps / r.elapsed;
          });
        };
        const roundTsPhases = new Map<string, number>();
        let roundPyPhases: Record<string, number> | null = null;
        const measurePhasesTs = (): void => {
          for (const row of PHASE_ROWS) roundTsPhases.set(row.name, phaseSet.time(row.phase, o.phaseSlice, row.native));
        };
        const measurePhasesPy = async (): Promise<void> => {
          if (py === null) return;
          const budget = (PHASES.length * o.phaseSlice + 120) * 1000;
          roundPyPhases = (await py.ask({ cmd: "phases", case: part, seconds: o.phaseSlice }, budget)).phases as Record<
            string,
            number
          >;
        };
        // alternate which side goes first
        if (pair % 2 === 0) {
          await measurePy();
          measureTs();
          await measurePhasesPy();
          measurePhasesTs();
        } else {
          measureTs();
          await measurePy();
          measurePhasesTs();
          await measurePhasesPy();
        }
        for (const row of PHASE_ROWS) {
          const ts = roundTsPhases.get(row.name) as number;
          push(tsPhases, row.name, ts);
          const ref = (roundPyPhases as Record<string, number> | null)?.[row.phase];
          if (ref !== undefined) {
            push(pyPhases, row.name, ref);
            push(phaseRatios, row.name, ref / ts);
          }
        }
        round.forEach((rate, k) => {
          (tsRates[k] as number[]).push(rate);
          if (py !== null) (ratios[k] as number[]).push(rate / (pyRates[pyRates.length - 1] as number));
        });
        rounds++;
      }
      const n = stepsOf(f);
      const tc = tsCounts[part];
      process.stdout.write(
        `\n${part}: ${n} steps, ${rounds} rounds of ${o.slice} s slices (reference and each TypeScript variant back to back)\n`,
      );
      VARIANTS.forEach((v, k) => {
        const rates = tsRates[k] as number[];
        process.stdout.write(
          `  ${v.name.padEnd(26)} ${fmt(median(rates))} steps/s [${fmt(Math.min(...rates))}–${fmt(Math.max(...rates))}], ` +
            `${fmt(1e6 / median(rates), 1)} µs/step, SHA-256 calls/step ${fmt(tc.digests / n, 2)}, bytes hashed/step ${fmt(tc.bytes / n)}\n`,
        );
      });
      if (py !== null) {
        const pc = pyCounts[part] as { digests: number; bytes: number };
        process.stdout.write(
          `  ${"reference (Python)".padEnd(26)} ${fmt(median(pyRates))} steps/s [${fmt(Math.min(...pyRates))}–${fmt(Math.max(...pyRates))}], ` +
            `${fmt(1e6 / median(pyRates), 1)} µs/step, _digest calls/step ${fmt(pc.digests / n, 2)}, bytes hashed/step ${fmt(pc.bytes / n)}\n`,
        );
        VARIANTS.forEach((v, k) => {
          const rs = ratios[k] as number[];
          const m = median(rs);
          process.stdout.write(
            `  ratio ${v.name}/Python: median ${fmt(m, 2)}× [${fmt(Math.min(...rs), 2)}–${fmt(Math.max(...rs), 2)}] (goal ≥ 6× must, ≥ 8× target: ${m >= 8 ? "target met" : m >= 6 ? "must met, target not" : "NOT met"})\n`,
          );
        });
      }
      const stepUs = 1e6 / median(tsRates[0] as number[]);
      process.stdout.write(printPhases(tsPhases, pyPhases, phaseRatios, stepUs, rounds, o.phaseSlice));
    }
  } finally {
    py?.stop();
    if (tmp !== null) rmSync(tmp, { recursive: true, force: true });
  }
  // A data-defined tool beside the built-in get_order (bench/data-tool.ts): 2·pairs+1 rounds of 2/3 of a slice.
  process.stdout.write(`\n${benchDataTool(2 * o.pairs + 1, (o.slice * 2) / 3).join("\n")}\n`);
  return 0;
}

/** The rows of the phase table: every phase with noble, and the hashing rows again with node:crypto. */
const PHASE_ROWS: ReadonlyArray<{ name: string; phase: Phase; native: boolean }> = [
  ...PHASES.map((phase) => ({ name: phase, phase, native: false })),
  { name: "digests (node:crypto)", phase: "digests", native: true },
  { name: "SHA-256 (node:crypto)", phase: "SHA-256", native: true },
];

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** The phase table: µs per step on each side (medians), the ratio per round (median [min–max]), the share of the noble step. */
function printPhases(
  ts: Map<string, number[]>,
  py: Map<string, number[]>,
  ratios: Map<string, number[]>,
  stepUs: number,
  rounds: number,
  slice: number,
): string {
  const lines = [
    `  phases, µs per step (medians of ${rounds} rounds of ${slice} s per phase and side; the first five with SHA-256 stubbed, see bench/phases.ts):`,
    `    ${"phase".padEnd(22)} ${"TypeScript".padStart(10)} ${"reference".padStart(10)}   ${"ratio [min–max]".padEnd(22)} share of the step`,
  ];
  for (const row of PHASE_ROWS) {
    const t = median(ts.get(row.name) ?? [NaN]);
    const r = py.get(row.name);
    const rs = ratios.get(row.name);
    const ratio =
      rs === undefined ? "–" : `${fmt(median(rs), 2)}× [${fmt(Math.min(...rs), 2)}–${fmt(Math.max(...rs), 2)}]`;
    const share = row.native ? "" : `${fmt((100 * t) / stepUs, 0)} %`;
    lines.push(
      `    ${row.name.padEnd(22)} ${fmt(t, 2).padStart(10)} ${(r === undefined ? "–" : fmt(median(r), 2)).padStart(10)}   ${ratio.padEnd(22)} ${share.padStart(5)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

function readJsonValue(text: string): never {
  const read = readJson(text, { maxBytes: 1 << 24 });
  if (!read.ok) throw new Error(read.error.message);
  return read.value as never;
}

process.exitCode = await main();
