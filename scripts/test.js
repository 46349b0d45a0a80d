// `npm test`: builds the CLI, runs every vitest project (core, worker, browser, blackbox) and ends
// with one plain line "tests: N passed, N failed" read from vitest's JSON report.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { buildCli } from "./build-cli.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const report = `${root}.toolgate/vitest-report.json`;

await buildCli();
mkdirSync(`${root}.toolgate`, { recursive: true });
rmSync(report, { force: true });
const run = spawnSync(
  process.execPath,
  [`${root}node_modules/vitest/vitest.mjs`, "run", "--reporter=default", "--reporter=json", `--outputFile=${report}`, ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit" },
);
if (existsSync(report)) {
  // A local file vitest just wrote, not untrusted input.
  const summary = JSON.parse(readFileSync(report, "utf8"));
  const skipped = summary.numPendingTests + summary.numTodoTests;
  process.stdout.write(`\ntests: ${summary.numPassedTests} passed, ${summary.numFailedTests} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`);
  if (summary.numTotalTests === 0) process.exitCode = 1;
}
process.exitCode = process.exitCode || (run.status ?? 1);
