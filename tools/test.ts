// `npm test`: builds the CLI, checks the packed package's declarations under NodeNext, Node16 and
// Bundler (tools/lib/package-check.ts), runs every vitest project (core, worker, browser, blackbox)
// in two lanes side by side (tools/lib/test-lanes.ts) and ends with one plain line
// "tests: N passed, N failed" read from vitest's JSON reports. `npm test -- <vitest args>` runs
// vitest once, as asked, after the package check.
import { spawnSync } from "node:child_process";
import { checkPackage } from "./lib/package-check.ts";
import { ROOT } from "./lib/paths.ts";
import { prepareTests, reportPath, reportTests, runTestLanes, summaryOf, vitestArgs } from "./lib/test-lanes.ts";

await prepareTests();
const asked = process.argv.slice(2);
let passed: boolean;
if (asked.length > 0) {
  const packageOk = await checkPackage().catch((error: unknown) => {
    process.stdout.write(`package types: FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
    return false;
  });
  const report = reportPath("vitest-report");
  const run = spawnSync(process.execPath, vitestArgs(report, asked), { cwd: ROOT, stdio: "inherit" });
  passed = reportTests({ summaries: [summaryOf(report)], failed: run.status !== 0 || !packageOk });
} else {
  passed = reportTests(await runTestLanes());
}
process.exitCode = passed ? 0 : 1;
