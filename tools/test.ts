// `npm test`: builds the CLI, checks the packed package's declarations under NodeNext, Node16 and
// Bundler (tools/lib/package-check.ts), runs every vitest project (core, worker, browser, blackbox)
// and ends with one plain line "tests: N passed, N failed" read from vitest's JSON reports.
//
// On CI's two cores the work runs in two lanes side by side: the in-process projects (core and the
// workerd files, two at a time, CPU-bound) in one; in the other the package check and then the
// black-box and Chromium files, which spend most of their time waiting on `wrangler dev`, a
// browser or a child process, one file at a time. `npm test -- <vitest args>` runs vitest once,
// as asked, after the package check.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { buildCli } from "./lib/build-cli.ts";
import { writeFeaturesIndex } from "./lib/features-index.ts";
import { checkPackage } from "./lib/package-check.ts";
import { ROOT } from "./lib/paths.ts";
import { runLane } from "./lib/side-by-side.ts";

const VITEST = `${ROOT}/node_modules/vitest/vitest.mjs`;
const REPORTS = `${ROOT}/.toolgate`;

/** The counts of vitest's JSON report this command reads. */
interface VitestSummary {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numTotalTests: number;
}

/** vitest's arguments for one run that also writes its JSON report to `report`. */
function vitestArgs(report: string, args: readonly string[]): string[] {
  rmSync(report, { force: true });
  return [VITEST, "run", "--reporter=default", "--reporter=json", `--outputFile=${report}`, ...args];
}

/** The summary a finished run left, or null if it wrote none (it crashed or was killed). */
function summaryOf(report: string): VitestSummary | null {
  // A local file vitest just wrote, not untrusted input.
  return existsSync(report) ? (JSON.parse(readFileSync(report, "utf8")) as VitestSummary) : null;
}

/** Set for the black-box files when this run has just built dist/ (test/blackbox/packed-install.test.ts). */
const PACKAGE_BUILT = "TOOLGATE_PACKAGE_BUILT";

/** The package check as a lane of its own (its builds run tsc and esbuild as child processes). */
const PACKAGE_LANE = { label: "package", args: [`${ROOT}/tools/run.js`, `${ROOT}/tools/check-package.ts`] };

// A feature folder added since the last run is registered before anything is built.
if (await writeFeaturesIndex())
  process.stdout.write("registered the feature folders in src/worker/features/index.ts\n");
await buildCli();
mkdirSync(REPORTS, { recursive: true });

const asked = process.argv.slice(2);
const summaries: Array<VitestSummary | null> = [];
let failed = false;
if (asked.length > 0) {
  const packageOk = await checkPackage().catch((error: unknown) => {
    process.stdout.write(`package types: FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
    return false;
  });
  const report = `${REPORTS}/vitest-report.json`;
  const run = spawnSync(process.execPath, vitestArgs(report, asked), { cwd: ROOT, stdio: "inherit" });
  summaries.push(summaryOf(report));
  failed = run.status !== 0 || !packageOk;
} else {
  const inProcess = `${REPORTS}/vitest-report.json`;
  const outside = `${REPORTS}/vitest-report-outside.json`;
  const lanes = await Promise.all([
    runLane({ label: "core+worker", args: vitestArgs(inProcess, ["--project", "core", "--project", "worker"]) }),
    // The package check builds dist/ from these sources first; the packed-install tests then pack
    // that build instead of building it again (they build it themselves when run on their own).
    runLane(PACKAGE_LANE).then(async (checked) => [
      checked,
      await runLane({
        label: "blackbox+browser",
        args: vitestArgs(outside, ["--project", "blackbox", "--project", "browser"]),
        env: checked.code === 0 ? { [PACKAGE_BUILT]: "1" } : {},
      }),
    ]),
  ]);
  summaries.push(summaryOf(inProcess), summaryOf(outside));
  failed = lanes.flat().some((lane) => lane.code !== 0);
}

const counted = summaries.filter((s): s is VitestSummary => s !== null);
const sum = (pick: (s: VitestSummary) => number): number => counted.reduce((n, s) => n + pick(s), 0);
const skipped = sum((s) => s.numPendingTests + s.numTodoTests);
if (counted.length > 0)
  process.stdout.write(
    `\ntests: ${sum((s) => s.numPassedTests)} passed, ${sum((s) => s.numFailedTests)} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`,
  );
// A run that wrote no report, or reports with no test at all, is a failure, never a pass.
if (counted.length < summaries.length || sum((s) => s.numTotalTests) === 0) failed = true;
process.exitCode = failed ? 1 : 0;
