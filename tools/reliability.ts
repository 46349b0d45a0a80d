// `npm run test:reliability`: the reliability and security suite. Runs the workerd project and
// the wrangler-dev black-box project of test/reliability/vitest.config.ts (loopback only, every
// loop bounded, fixed seeds printed on failure), collects the figures each check prints, scans
// the whole run's output for leaked credentials and canaries, writes .toolgate/reliability.json
// and ends with one table (tools/lib/reliability.ts). Exit code 1 if any check fails or is missing.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { ROOT } from "./lib/paths.ts";
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

function run(project: string): Promise<ProjectRun> {
  return new Promise((done) => {
    const left = BUDGET_MS - (Date.now() - started);
    const child = spawn(
      process.execPath,
      [join(ROOT, "node_modules", "vitest", "vitest.mjs"), "run", "--config", CONFIG, "--project", project],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
      },
    );
    let out = "";
    // The two projects run side by side, so each echoes whole lines under its name; figure lines
    // are for the table and not echoed.
    const take = (stream: Readable, sink: NodeJS.WriteStream): void => {
      let partial = "";
      stream.setEncoding("utf8");
      stream.on("data", (text: string) => {
        out += text;
        const lines = (partial + text).split("\n");
        partial = lines.pop() ?? "";
        const shown = lines.filter((l) => !l.includes(MARKER)).map((l) => `[${project}] ${l}\n`);
        if (shown.length > 0) sink.write(shown.join(""));
      });
      stream.on("end", () => {
        if (partial !== "" && !partial.includes(MARKER)) sink.write(`[${project}] ${partial}\n`);
      });
    };
    take(child.stdout, process.stdout);
    take(child.stderr, process.stderr);
    const timer = setTimeout(
      () => {
        out += `\n[reliability] ${project} exceeded the budget; killed\n`;
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // gone
        }
      },
      Math.max(10_000, left),
    );
    child.on("exit", (code) => {
      clearTimeout(timer);
      done({ project, code: code ?? 1, out });
    });
  });
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
