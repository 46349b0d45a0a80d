// `npm test`: builds the CLI, checks the packed package's declarations under NodeNext, Node16 and
// Bundler (tools/lib/package-check.ts), runs every vitest project (core, worker, browser, blackbox)
// and ends with one plain line "tests: N passed, N failed" read from vitest's JSON report.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { buildCli } from "./lib/build-cli.ts";
import { writeFeaturesIndex } from "./lib/features-index.ts";
import { checkPackage } from "./lib/package-check.ts";
import { ROOT } from "./lib/paths.ts";

const root = `${ROOT}/`;
const report = `${root}.toolgate/vitest-report.json`;

/** The counts of vitest's JSON report this command reads. */
interface VitestSummary {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numTotalTests: number;
}

// A feature folder added since the last run is registered before anything is built.
if (await writeFeaturesIndex())
  process.stdout.write("registered the feature folders in src/worker/features/index.ts\n");
await buildCli();
// Before vitest: it builds dist/ itself, and the packed-install tests build it again, never both at once.
const packageOk = await checkPackage().catch((error: unknown) => {
  process.stdout.write(`package types: FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  return false;
});
mkdirSync(`${root}.toolgate`, { recursive: true });
rmSync(report, { force: true });
const run = spawnSync(
  process.execPath,
  [
    `${root}node_modules/vitest/vitest.mjs`,
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile=${report}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: "inherit" },
);
if (existsSync(report)) {
  // A local file vitest just wrote, not untrusted input.
  const summary = JSON.parse(readFileSync(report, "utf8")) as VitestSummary;
  const skipped = summary.numPendingTests + summary.numTodoTests;
  process.stdout.write(
    `\ntests: ${summary.numPassedTests} passed, ${summary.numFailedTests} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`,
  );
  if (summary.numTotalTests === 0) process.exitCode = 1;
}
process.exitCode = process.exitCode || (run.status ?? 1) || (packageOk ? 0 : 1);
