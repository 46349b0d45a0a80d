// `npm run test:reliability [project…]`: the reliability and security suite (tools/lib/reliability-run.ts).
// Runs the workerd project and the wrangler-dev black-box project of test/reliability/vitest.config.ts
// (loopback only, every loop bounded, fixed seeds printed on failure), collects the figures each check
// prints, scans the whole run's output for leaked credentials and canaries, writes
// .toolgate/reliability.json and ends with one table. Exit code 1 if any check fails or is missing.
import { RELIABILITY_PROJECTS, runReliability } from "./lib/reliability-run.ts";

const asked = process.argv.slice(2);
process.exit((await runReliability(asked.length > 0 ? asked : RELIABILITY_PROJECTS)) ? 0 : 1);
