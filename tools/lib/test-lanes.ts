// The lanes of `npm test` (tools/test.ts; with TOOLGATE_WITH_RELIABILITY=1 beside the reliability
// suite's): what they need built first, the lanes themselves, and the one line
// "tests: N passed, N failed" read from vitest's JSON reports.
//
// On CI's two cores the work runs in two lanes side by side: the workerd files (two at a time,
// CPU-bound, the longest) in one; in the other the package check, the Node files, and then the
// black-box and Chromium files, which spend most of their time waiting on `wrangler dev`, a
// browser or a child process, one file at a time.
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { buildCli } from "./build-cli.ts";
import { writeFeaturesIndex } from "./features-index.ts";
import { ROOT } from "./paths.ts";
import { PREBUILT_WORKER, prebuildWorker } from "./prebuilt-worker.ts";
import { runLane } from "./side-by-side.ts";

const VITEST = `${ROOT}/node_modules/vitest/vitest.mjs`;
const REPORTS = `${ROOT}/.toolgate`;

/** The counts of vitest's JSON report this command reads. */
export interface VitestSummary {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numTotalTests: number;
  testResults?: ReadonlyArray<{
    name: string;
    message?: string;
    assertionResults?: ReadonlyArray<{ fullName: string; status: string; failureMessages?: readonly string[] }>;
  }>;
}

/** What a run of vitest left: its report's summary (null: it wrote none) and whether it failed. */
export interface TestsRun {
  readonly summaries: ReadonlyArray<VitestSummary | null>;
  readonly failed: boolean;
}

/** Where one run of vitest writes its JSON report. */
export function reportPath(name: string): string {
  return `${REPORTS}/${name}.json`;
}

/** vitest's arguments for one run that also writes its JSON report to `report`. */
export function vitestArgs(report: string, args: readonly string[]): string[] {
  rmSync(report, { force: true });
  return [VITEST, "run", "--reporter=default", "--reporter=json", `--outputFile=${report}`, ...args];
}

/** The summary a finished run left, or null if it wrote none (it crashed or was killed). */
export function summaryOf(report: string): VitestSummary | null {
  // A local file vitest just wrote, not untrusted input.
  return existsSync(report) ? (JSON.parse(readFileSync(report, "utf8")) as VitestSummary) : null;
}

/** Set for the black-box files when this run has just built dist/ (test/blackbox/packed-install.test.ts). */
const PACKAGE_BUILT = "TOOLGATE_PACKAGE_BUILT";

/** The package check as a lane of its own (its builds run tsc and esbuild as child processes). */
const PACKAGE_LANE = { label: "package", args: [`${ROOT}/tools/run.js`, `${ROOT}/tools/check-package.ts`] };

/**
 * Builds the Worker once for the black-box files' `wrangler dev` (./prebuilt-worker.ts) and
 * answers what the black-box lanes add to their environment: the script's path, or nothing when
 * it could not be built (they then bundle as they would alone).
 */
export async function prebuildForLanes(): Promise<Record<string, string>> {
  const script = await prebuildWorker();
  return script === null ? {} : { [PREBUILT_WORKER]: script };
}

/** What every run of the tests needs first: the feature folders registered, then the CLI built. */
export async function prepareTests(): Promise<void> {
  // A feature folder added since the last run is registered before anything is built.
  if (await writeFeaturesIndex())
    process.stdout.write("registered the feature folders in src/worker/features/index.ts\n");
  await buildCli();
  mkdirSync(REPORTS, { recursive: true });
}

/**
 * Every vitest project of `npm test`, in two lanes side by side: the workerd files alone in one
 * (two at a time: vitest gives a run's projects one pool of workers, so Node files in the same run
 * would take the workerd files' turns); in the other the package check, the Node files, then the
 * black-box and Chromium files. `nodeFilesDone` is called when the package check (four tsc runs at
 * once) and the Node files (two at a time), the CPU-bound part of that lane, have finished.
 */
export async function runTestLanes(
  nodeFilesDone?: () => void,
  laneDone?: () => void,
  prebuilt: Promise<Record<string, string>> = Promise.resolve({}),
): Promise<TestsRun> {
  const inWorkerd = reportPath("vitest-report");
  const inNode = reportPath("vitest-report-core");
  const outside = reportPath("vitest-report-outside");
  const lanes = await Promise.all([
    runLane({ label: "worker", args: vitestArgs(inWorkerd, ["--project", "worker"]) }).then((lane) => {
      laneDone?.();
      return lane;
    }),
    // The package check builds dist/ from these sources first; the packed-install tests then pack
    // that build instead of building it again (they build it themselves when run on their own).
    runLane(PACKAGE_LANE).then(async (checked) => {
      const core = await runLane({ label: "core", args: vitestArgs(inNode, ["--project", "core"]) });
      nodeFilesDone?.();
      const blackbox = await runLane({
        label: "blackbox+browser",
        args: vitestArgs(outside, ["--project", "blackbox", "--project", "browser"]),
        env: { ...(checked.code === 0 ? { [PACKAGE_BUILT]: "1" } : {}), ...(await prebuilt) },
      });
      laneDone?.();
      return [checked, core, blackbox];
    }),
  ]);
  return {
    summaries: [summaryOf(inWorkerd), summaryOf(inNode), summaryOf(outside)],
    failed: lanes.flat().some((l) => l.code !== 0),
  };
}

/** At most this many failures are named under the "tests: …" line. */
const FAILURES_NAMED = 20;

/**
 * Each failed test (or file that failed before its tests ran) as "  ✗ file › test: first line of
 * its error", so a log whose end alone is kept still says what failed.
 */
function failureLines(summaries: readonly VitestSummary[]): string[] {
  const firstLine = (text: string | undefined): string => (text ?? "").trim().split("\n", 1)[0]!.slice(0, 240);
  const lines: string[] = [];
  for (const file of summaries.flatMap((s) => s.testResults ?? [])) {
    const where = file.name.startsWith(`${ROOT}/`) ? file.name.slice(ROOT.length + 1) : file.name;
    const failed = (file.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const test of failed) lines.push(`  ✗ ${where} › ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
    if (failed.length === 0 && file.message) lines.push(`  ✗ ${where}: ${firstLine(file.message)}`);
  }
  return lines.length > FAILURES_NAMED
    ? [...lines.slice(0, FAILURES_NAMED), `  … and ${lines.length - FAILURES_NAMED} more`]
    : lines;
}

/**
 * Prints "tests: N passed, N failed[, N skipped]" over the runs' reports, then names each failure;
 * answers whether the tests passed. A run that wrote no report, or reports with no test at all, is
 * a failure.
 */
export function reportTests(run: TestsRun): boolean {
  const counted = run.summaries.filter((s): s is VitestSummary => s !== null);
  const sum = (pick: (s: VitestSummary) => number): number => counted.reduce((n, s) => n + pick(s), 0);
  const skipped = sum((s) => s.numPendingTests + s.numTodoTests);
  if (counted.length > 0)
    process.stdout.write(
      `\ntests: ${sum((s) => s.numPassedTests)} passed, ${sum((s) => s.numFailedTests)} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n` +
        failureLines(counted)
          .map((line) => `${line}\n`)
          .join(""),
    );
  return !run.failed && counted.length === run.summaries.length && sum((s) => s.numTotalTests) > 0;
}
