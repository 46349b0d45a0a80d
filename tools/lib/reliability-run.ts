// One run of the reliability and security suite (`npm run test:reliability`, and CI's `npm test`
// with TOOLGATE_WITH_RELIABILITY=1, beside the tests): the workerd project and the wrangler-dev black-box project of
// test/reliability/vitest.config.ts side by side, the figures each check prints, the scan of the
// whole run's output for leaked credentials and canaries, .toolgate/reliability.json and one table
// (tools/lib/reliability.ts).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./paths.ts";
import { EXPECTED, figuresIn, MARKER, ordered, reliabilityTable, secretsFigure, type Figure } from "./reliability.ts";
import { runLane } from "./side-by-side.ts";

const CONFIG = "test/reliability/vitest.config.ts";
/** Whole-suite budget; each project gets what is left. */
const BUDGET_MS = 14 * 60_000;
/** Both lanes: a run of only some of them reports only their checks. */
export const RELIABILITY_PROJECTS = ["rel-worker", "rel-blackbox"];
/** The vitest projects of a lane, where it is more than its namesake: the workerd checks are two (see CONFIG). */
const LANE_PROJECTS: Readonly<Record<string, readonly string[]>> = {
  "rel-worker": ["rel-worker", "rel-worker-shared"],
};

interface ProjectRun {
  project: string;
  code: number;
  out: string;
}

/**
 * Runs `projects` side by side, prints the table and answers whether every check passed. The
 * workerd project runs its files one at a time and the black-box one drives one `wrangler dev`
 * at a time: each keeps about one core busy. A project named in `after` starts once its promise
 * settles (CI's `npm test` holds them back while its own lanes need the cores); each has the
 * whole budget from its own start. `env`: what a project's lane adds to its environment (CI's
 * `npm test` gives the black-box one the Worker it built, ./prebuilt-worker.ts).
 */
export async function runReliability(
  projects: readonly string[] = RELIABILITY_PROJECTS,
  after: Readonly<Record<string, Promise<unknown>>> = {},
  env: Readonly<Record<string, Promise<Readonly<Record<string, string>>>>> = {},
): Promise<boolean> {
  const started = Date.now();
  /** Where the black-box checks append everything `wrangler dev` printed (scanned for R10). */
  const logs = join(ROOT, ".toolgate", "reliability-logs");
  rmSync(logs, { recursive: true, force: true });
  mkdirSync(logs, { recursive: true });

  const run = async (project: string): Promise<ProjectRun> => {
    await after[project];
    const begun = Date.now();
    // Figure lines are for the table and not echoed.
    const { code, out } = await runLane({
      label: project,
      args: [
        join(ROOT, "node_modules", "vitest", "vitest.mjs"),
        "run",
        "--config",
        CONFIG,
        ...(LANE_PROJECTS[project] ?? [project]).flatMap((name) => ["--project", name]),
      ],
      quiet: MARKER,
      budgetMs: BUDGET_MS - (Date.now() - begun),
      env: await env[project],
    });
    return { project, code, out };
  };
  const results = await Promise.all(projects.map(run));

  const figures: Figure[] = [];
  let output = "";
  for (const r of results) {
    output += r.out;
    figures.push(...figuresIn(r.out));
  }
  // R10 over the whole run's captured output (test logs, workerd console) and every
  // `wrangler dev` log the black-box checks kept: no full credential, no argument canary.
  const logFiles = existsSync(logs) ? readdirSync(logs).map((name) => readFileSync(join(logs, name), "utf8")) : [];
  figures.push(secretsFigure([output, ...logFiles], logFiles.length));
  for (const r of results) {
    figures.push({ id: "run", check: `vitest project ${r.project}`, figure: `exit ${r.code}`, pass: r.code === 0 });
  }
  const reported = new Set(figures.map((f) => f.id));
  if (RELIABILITY_PROJECTS.every((p) => projects.includes(p))) {
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
  return sorted.every((f) => f.pass);
}
