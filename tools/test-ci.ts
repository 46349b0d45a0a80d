// `npm run test:ci`: what CI runs after the install and beside the static checks: every lane of
// `npm test` (tools/lib/test-lanes.ts) and the reliability suite's two projects
// (tools/lib/reliability-run.ts) side by side, then npm test's "tests: …" line and the reliability
// table. Same checks, same reports, as the two commands one after the other; on CI's two cores the
// lanes fill each other's waits (on `wrangler dev`, a browser, a child process). The reliability
// projects start once the package check and the Node files are done: until then that lane is as
// CPU-bound as the workerd files' lane, and a workerd file starved of CPU meets its 30 s timeout.
import { runReliability } from "./lib/reliability-run.ts";
import { prepareTests, reportTests, runTestLanes } from "./lib/test-lanes.ts";

await prepareTests();
let nodeFilesDone = (): void => undefined;
const reliabilityMayStart = new Promise<void>((start) => (nodeFilesDone = start));
const [tests, reliable] = await Promise.all([
  runTestLanes(() => nodeFilesDone()),
  reliabilityMayStart.then(() => runReliability()),
]);
const passed = reportTests(tests);
process.exit(passed && reliable ? 0 : 1);
