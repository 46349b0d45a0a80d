// `npm test`: builds the CLI, checks the packed package's declarations under NodeNext, Node16 and
// Bundler (tools/lib/package-check.ts), runs every vitest project (core, worker, browser, blackbox)
// in side-by-side lanes (tools/lib/test-lanes.ts) and ends with one plain line
// "tests: N passed, N failed" read from vitest's JSON reports. `npm test -- <vitest args>` runs
// vitest once, as asked, after the package check.
//
// With TOOLGATE_WITH_RELIABILITY=1 (what CI sets) the reliability suite's two projects
// (tools/lib/reliability-run.ts, the same run as `npm run test:reliability`) run as lanes beside
// these, then its table follows the "tests: …" line. On CI's two cores the lanes fill each other's
// waits (on `wrangler dev`, a browser, a child process). The reliability suite's workerd project
// starts once one of npm test's lanes is done, in practice the workerd files' (until then both
// would be CPU-bound beside the package check, and a workerd file starved of CPU meets its 30 s
// timeout); its black-box project, whose checks time a write against the catalog tool's 2 s
// timeout (R1) and restart `wrangler dev` under load (R3), once the package check and the Node
// files, the CPU-bound part of the other lane, are done. Both black-box lanes run the Worker built
// once for the run (tools/lib/prebuilt-worker.ts) instead of bundling it at every `wrangler dev`.
import { spawnSync } from "node:child_process";
import { checkPackage } from "./lib/package-check.ts";
import { ROOT } from "./lib/paths.ts";
import { RELIABILITY_PROJECTS, runReliability } from "./lib/reliability-run.ts";
import {
  prebuildForLanes,
  prepareTests,
  reportPath,
  reportTests,
  runTestLanes,
  summaryOf,
  vitestArgs,
} from "./lib/test-lanes.ts";

await prepareTests();
const asked = process.argv.slice(2);
if (asked.length > 0) {
  const packageOk = await checkPackage().catch((error: unknown) => {
    process.stdout.write(`package types: FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
    return false;
  });
  const report = reportPath("vitest-report");
  const run = spawnSync(process.execPath, vitestArgs(report, asked), { cwd: ROOT, stdio: "inherit" });
  process.exitCode = reportTests({ summaries: [summaryOf(report)], failed: run.status !== 0 || !packageOk }) ? 0 : 1;
} else if (process.env.TOOLGATE_WITH_RELIABILITY === "1") {
  let nodeFilesDone = (): void => undefined;
  let laneDone = (): void => undefined;
  const nodeFiles = new Promise<void>((start) => (nodeFilesDone = start));
  const firstLane = new Promise<void>((start) => (laneDone = start));
  // Both black-box lanes run the Worker built once (tools/lib/prebuilt-worker.ts), built meanwhile.
  const prebuilt = prebuildForLanes();
  const [tests, reliable] = await Promise.all([
    runTestLanes(
      () => nodeFilesDone(),
      () => laneDone(),
      prebuilt,
    ),
    runReliability(
      RELIABILITY_PROJECTS,
      { "rel-worker": firstLane, "rel-blackbox": nodeFiles },
      { "rel-blackbox": prebuilt },
    ),
  ]);
  const passed = reportTests(tests);
  process.exit(passed && reliable ? 0 : 1);
} else {
  process.exitCode = reportTests(await runTestLanes(undefined, undefined, prebuildForLanes())) ? 0 : 1;
}
