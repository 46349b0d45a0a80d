// `npm run test:reliability`: the reliability and security suite. Runs the workerd project and
// the wrangler-dev black-box project of test/reliability/vitest.config.ts (loopback only, every
// loop bounded, fixed seeds printed on failure), collects the figures each check prints, scans
// the whole run's output for leaked credentials and canaries, writes .toolgate/reliability.json
// and ends with one table (tools/lib/reliability.ts). Exit code 1 if any check fails or is missing.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./lib/paths.ts";
import { runLane } from "./lib/side-by-side.ts";
import {
  EXPECTED,
  figuresIn,
  MARKER,
  ordered,
  reliabilityTable,
  secretsFigure,
  type Figure,
} from "./lib/reliability.ts";

const CONFIG = "test/reliability/vitest.config.ts";
/** Whole-suite budget; each project gets what is left. */
const BUDGET_MS = 14 * 60_000;

const started = Date.now();
/** Where the black-box checks append everything `wrangler dev` printed (scanned for R10). */
const LOGS = join(ROOT, ".toolgate", "reliability-logs");
rmSync(LOGS, { recursive: true, force: true });
mkdirSync(LOGS, { recursive: true });
const projects = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["rel-worker", "rel-blackbox"];

interface ProjectRun {
  project: string;
  code: number;
  out: string;
}

async function run(project: string): Promise<ProjectRun> {
  // Figure lines are for the table and not echoed.
  const { code, out } = await runLane({
    label: project,
    args: [join(ROOT, "node_modules", "vitest", "vitest.mjs"), "run", "--config", CONFIG, "--project", project],
    quiet: MARKER,
    budgetMs: BUDGET_MS - (Date.now() - started),
  });
  return { project, code, out };
}

// The workerd project runs its files one at a time and the black-box one drives one `wrangler dev`
// at a time: each keeps about one core busy, so on CI's two cores they run side by side.
const results: ProjectRun[] = await Promise.all(projects.map(run));

const figures: Figure[] = [];
let output = "";
for (const r of results) {
  output += r.out;
  figures.push(...figuresIn(r.out));
}

// R10 over the whole run's captured output (test logs, workerd console) and every
// `wrangler dev` log the black-box checks kept: no full credential, no argument canary.
const logFiles = existsSync(LOGS) ? readdirSync(LOGS).map((name) => readFileSync(join(LOGS, name), "utf8")) : [];
figures.push(secretsFigure([output, ...logFiles], logFiles.length));
for (const r of results) {
  figures.push({ id: "run", check: `vitest project ${r.project}`, figure: `exit ${r.code}`, pass: r.code === 0 });
}
const reported = new Set(figures.map((f) => f.id));
if (projects.length === 2) {
  for (const id of EXPECTED)
    if (!reported.has(id)) figures.push({ id, check: "(not reported)", figure: "missing", pass: false });
}

const sorted = ordered(figures);
const seconds = ((Date.now() - started) / 1000).toFixed(0);
mkdirSync(join(ROOT, ".toolgate"), { recursive: true });
writeFileSync(
  join(ROOT, ".toolgate", "reliability.json"),
  JSON.stringify({ at: new Date().toISOString(), seconds: Number(seconds), figures: sorted }, null, 2),
);
process.stdout.write(reliabilityTable(sorted, seconds));
process.exit(sorted.every((f) => f.pass) ? 0 : 1);
