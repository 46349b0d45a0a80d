// `npm run bench`: the Tool Result v2 engine vs the Python reference, side by side in one run.
// Passes its arguments on to bench/tool-result.ts (see that file for the options).
// Ends with the bundle sizes, each beside its goal (scripts/bench-bundle.js): the Worker as
// `wrangler deploy --dry-run` builds it and its top contributors, the core and the client for a browser.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { printBundle } from "./bench-bundle.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const result = spawnSync(process.execPath, ["scripts/run-ts.js", "bench/tool-result.ts", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
  timeout: 15 * 60 * 1000,
});
process.exitCode = result.status ?? 1;

await printBundle();
