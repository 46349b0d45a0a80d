// `npm run bench`: the Tool Result v2 engine vs the Python reference, side by side in one run.
// Passes its arguments on to bench/tool-result.ts (see that file for the options).
// Ends with the bundle sizes, each beside its goal (tools/lib/bench-bundle.ts): the Worker as
// `wrangler deploy --dry-run` builds it beside its ceiling, its contributors and each feature's
// share, and the browser entries as shipped.
// Then the cold start (tools/lib/bench-startup.ts): the Worker's active startup CPU from
// `wrangler check startup`, beside a hello-world Hono Worker measured in the same run and the goal.
import { spawnSync } from "node:child_process";
import { printBundle } from "./lib/bench-bundle.ts";
import { printStartup } from "./lib/bench-startup.ts";
import { ROOT } from "./lib/paths.ts";

const result = spawnSync(process.execPath, ["tools/run.js", "bench/tool-result.ts", ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: "inherit",
  timeout: 15 * 60 * 1000,
});
process.exitCode = result.status ?? 1;

await printBundle();
printStartup();
