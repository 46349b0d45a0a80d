// The cold-start figures of `npm run bench` (issue #32, goal 1), beside a hello-world Hono Worker
// measured in the same run:
// - each Worker is built once as `wrangler deploy --dry-run --outfile` builds it: the gate from
//   wrangler.toml, the hello world (bench/startup-hello.ts) from a config written for it with the
//   gate's compatibility date and flags and the same minify and keep_names settings;
// - each round runs `wrangler check startup --worker <bundle>` on both, one after the other (so both
//   see the same load on the machine), and reads the V8 CPU profile it writes: the active startup
//   CPU is the time of every sample that is not `(idle)` (garbage collection and compilation count),
//   each sample lasting until the next (at most two profiler intervals: a longer gap is time the
//   profiler did not see); a second figure counts those samples times the profiler's
//   interval, which a loaded machine does not stretch and which still sees the hello world's start;
// - printed as median [min–max] over the rounds, the gate's beside its goal (≤ 20 ms must, ≤ 10 ms
//   target) and as a ratio to the hello world's (medians).
// The figures are local: workerd on this machine, sampled every millisecond or so, so a single
// round is noisy; the median over the rounds and the ratio are what to compare.
// `node tools/run.js tools/bench-startup.ts [--rounds N] [--keep DIR]` prints the same section alone.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./paths.ts";

const WRANGLER = join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const GOAL_MS = 20;
const TARGET_MS = 10;

/** Runs wrangler with `args` from `cwd`; throws with its output when it fails. */
function wrangler(args: string[], cwd = ROOT): void {
  const run = spawnSync(process.execPath, [WRANGLER, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", FORCE_COLOR: "0" },
    timeout: 5 * 60 * 1000,
  });
  if (run.status !== 0)
    throw new Error(
      `wrangler ${args[0] ?? ""} failed (exit ${run.status}):\n${`${run.stdout}${run.stderr}`.slice(-2000)}`,
    );
}

/** One setting of wrangler.toml, as its TOML text (the gate's config has it on one line). */
function setting(toml: string, key: string): string {
  const line = new RegExp(`^${key}\\s*=\\s*(.+)$`, "m").exec(toml);
  if (line?.[1] === undefined) throw new Error(`wrangler.toml has no ${key}`);
  return line[1].trim();
}

/** A config for the hello-world Worker: the gate's compatibility date and flags, built as the gate is (minify, names). */
export function helloConfig(gateToml: string, main: string): string {
  return [
    `name = "startup-hello"`,
    `main = ${JSON.stringify(main)}`,
    `compatibility_date = ${setting(gateToml, "compatibility_date")}`,
    `compatibility_flags = ${setting(gateToml, "compatibility_flags")}`,
    `minify = ${setting(gateToml, "minify")}`,
    `keep_names = ${setting(gateToml, "keep_names")}`,
    "",
  ].join("\n");
}

/** What this file reads of a V8 CPU profile. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string } }>;
  samples: number[];
  timeDeltas: number[];
}

/**
 * The active CPU of a profile, in ms: each sample lasts until the next one (timeDeltas[i + 1]; the
 * last one's length is unknown and counts 0), at most `capMicros` (the profiler samples a running
 * isolate about every interval, so a longer gap is time it did not see: the last sample before an
 * `(idle)` one once stretched a hello world's start to 20 ms), and every sample not in `(idle)` counts.
 */
export function activeMs(profile: CpuProfile, capMicros = Infinity): number {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  let micros = 0;
  profile.samples.forEach((node, i) => {
    if (!idle.has(node)) micros += Math.min(profile.timeDeltas[i + 1] ?? 0, capMicros);
  });
  return micros / 1000;
}

/**
 * The samples of a profile outside `(idle)`, and the time between consecutive ones (the
 * profiler's interval while the isolate runs, about 1 ms): a count of samples times that interval
 * estimates the CPU without the gaps a loaded machine puts between two samples, and still sees a
 * start-up shorter than one interval, which {@link activeMs} reads as 0.
 */
export function activeSamples(profile: CpuProfile): { count: number; gaps: number[] } {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  let count = 0;
  const gaps: number[] = [];
  profile.samples.forEach((node, i) => {
    if (idle.has(node)) return;
    count += 1;
    const next = profile.samples[i + 1];
    if (next !== undefined && !idle.has(next)) gaps.push((profile.timeDeltas[i + 1] ?? 0) / 1000);
  });
  return { count, gaps };
}

/** The median and range of some figures. */
export function spread(values: number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return { median, min: sorted[0] ?? 0, max: sorted[sorted.length - 1] ?? 0 };
}

const ms = (s: { median: number; min: number; max: number }): string =>
  `${s.median.toFixed(1)} ms [${s.min.toFixed(1)}–${s.max.toFixed(1)}]`;

/** One round of `wrangler check startup` on a built bundle: its profile. */
function profileOnce(bundle: string, outfile: string): CpuProfile {
  wrangler(["check", "startup", "--worker", bundle, "--outfile", outfile]);
  // The profile workerd's inspector just returned, through wrangler.
  return JSON.parse(readFileSync(outfile, "utf8")) as CpuProfile;
}

/** A sample counts at most this many profiler intervals in {@link activeMs}. */
const SAMPLE_CAP_INTERVALS = 2;

/** The figures {@link printStartup} prints, for a caller that compares them. */
export interface StartupFigures {
  /** Active CPU per round, ms. */
  gate: number[];
  hello: number[];
  /** Active samples per round, and the profiler's interval while running (the median gap), ms. */
  gateSamples: number[];
  helloSamples: number[];
  interval: number;
}

/** Prints the startup section: `rounds` rounds on both Workers; `keep`: a folder for the gate's profiles. */
export function printStartup(rounds = 5, keep?: string): StartupFigures {
  const write = (line: string): boolean => process.stdout.write(`${line}\n`);
  const dir = mkdtempSync(join(tmpdir(), "toolgate-startup-"));
  try {
    write(
      `\nstartup (goal from issue #32: active CPU of \`wrangler check startup\`, ${rounds} rounds, median [min–max]; a sample counts until the next, at most ${SAMPLE_CAP_INTERVALS} profiler intervals)`,
    );
    const gateBundle = join(dir, "gate.bundle");
    wrangler(["deploy", "--dry-run", "--outfile", gateBundle]);
    const config = join(dir, "hello.toml");
    writeFileSync(
      config,
      helloConfig(readFileSync(join(ROOT, "wrangler.toml"), "utf8"), join(ROOT, "bench/startup-hello.ts")),
    );
    const helloBundle = join(dir, "hello.bundle");
    wrangler(["deploy", "--dry-run", "--config", config, "--outfile", helloBundle]);
    const figures: StartupFigures = { gate: [], hello: [], gateSamples: [], helloSamples: [], interval: 0 };
    const profiles: Array<{ gate: CpuProfile; hello: CpuProfile }> = [];
    const gaps: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const file = join(dir, `gate-${round}.cpuprofile`);
      const gate = profileOnce(gateBundle, file);
      if (keep !== undefined) copyFileSync(file, join(keep, `gate-${round}.cpuprofile`));
      const hello = profileOnce(helloBundle, join(dir, `hello-${round}.cpuprofile`));
      profiles.push({ gate, hello });
      const g = activeSamples(gate);
      const h = activeSamples(hello);
      figures.gateSamples.push(g.count);
      figures.helloSamples.push(h.count);
      gaps.push(...g.gaps, ...h.gaps);
    }
    figures.interval = spread(gaps).median;
    const cap = SAMPLE_CAP_INTERVALS * figures.interval * 1000;
    for (const { gate, hello } of profiles) {
      figures.gate.push(activeMs(gate, cap));
      figures.hello.push(activeMs(hello, cap));
    }
    const gate = spread(figures.gate);
    const hello = spread(figures.hello);
    const sampled = (counts: number[]) => spread(counts.map((n) => n * figures.interval));
    const gateSampled = sampled(figures.gateSamples);
    const helloSampled = sampled(figures.helloSamples);
    write(`  gate (wrangler.toml): ${ms(gate)}   (goal ≤ ${GOAL_MS} ms, target ≤ ${TARGET_MS} ms)`);
    write(`  hello-world Hono Worker (bench/startup-hello.ts; same date, flags, minify): ${ms(hello)}`);
    write(
      hello.median >= figures.interval
        ? `  gate / hello world: ${(gate.median / hello.median).toFixed(1)}× (medians), ${(gate.median - hello.median).toFixed(1)} ms above it`
        : "  gate / hello world: no ratio of these (the hello world starts within one interval of the profiler, about 1 ms: its median round is under one sample)",
    );
    write(
      `  rounds, gate / hello world (ms): ${figures.gate.map((g, i) => `${g.toFixed(1)} / ${(figures.hello[i] ?? 0).toFixed(1)}`).join(", ")}`,
    );
    write(
      `  as active samples × the profiler's interval (${figures.interval.toFixed(2)} ms; not stretched by a loaded machine): gate ${ms(gateSampled)}, hello world ${ms(helloSampled)}${helloSampled.median > 0 ? `; gate / hello world ${(gateSampled.median / helloSampled.median).toFixed(1)}×` : ""}`,
    );
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
