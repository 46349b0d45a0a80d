// `npm run test:reliability`: the reliability and security suite. Runs the workerd project and
// the wrangler-dev black-box project of test/reliability/vitest.config.ts (loopback only, every
// loop bounded, fixed seeds printed on failure), collects the figures each check prints, scans
// the whole run's output for leaked credentials and canaries, writes .toolgate/reliability.json
// and ends with one table. Exit code 1 if any check fails or is missing.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CONFIG = "test/reliability/vitest.config.ts";
const MARKER = "@@toolgate-figure ";
const CREDENTIAL = /tg_(?:agent|approver|provider|runtime|auditor)_[0-9A-Za-z]{40}_[0-9A-Za-z]{6}/g;
const CANARY = /zzcanary/g;
/** Whole-suite budget; each project gets what is left. */
const BUDGET_MS = 14 * 60_000;
/** Every check the suite must report (a missing one fails). */
const EXPECTED = ["R1", "R1b", "R1c", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "R10", "R11", "R13d"];

const started = Date.now();
/** Where the black-box checks append everything `wrangler dev` printed (scanned for R10). */
const LOGS = join(ROOT, ".toolgate", "reliability-logs");
rmSync(LOGS, { recursive: true, force: true });
mkdirSync(LOGS, { recursive: true });
const projects = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["rel-worker", "rel-blackbox"];

function run(project) {
  return new Promise((done) => {
    const left = BUDGET_MS - (Date.now() - started);
    const child = spawn(process.execPath, [join(ROOT, "node_modules", "vitest", "vitest.mjs"), "run", "--config", CONFIG, "--project", project], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    let out = "";
    const take = (stream, sink) => stream.on("data", (d) => {
      const text = d.toString();
      out += text;
      // Figure lines are for the table; the rest is echoed.
      sink.write(text.split("\n").filter((l) => !l.includes(MARKER)).join("\n"));
    });
    take(child.stdout, process.stdout);
    take(child.stderr, process.stderr);
    const timer = setTimeout(() => {
      out += `\n[reliability] ${project} exceeded the budget; killed\n`;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
    }, Math.max(10_000, left));
    child.on("exit", (code) => {
      clearTimeout(timer);
      done({ project, code: code ?? 1, out });
    });
  });
}

const results = [];
for (const project of projects) results.push(await run(project));

const figures = [];
let output = "";
for (const r of results) {
  output += r.out;
  for (const line of r.out.split("\n")) {
    const at = line.indexOf(MARKER);
    if (at >= 0) {
      try {
        figures.push(JSON.parse(line.slice(at + MARKER.length)));
      } catch {
        // a truncated line: the check then counts as missing
      }
    }
  }
}

// R10 over the whole run's captured output (test logs, workerd console) and every
// `wrangler dev` log the black-box checks kept: no full credential, no argument canary.
const logFiles = existsSync(LOGS) ? readdirSync(LOGS).map((name) => readFileSync(join(LOGS, name), "utf8")) : [];
const scanned = [output, ...logFiles];
const bytes = scanned.reduce((n, text) => n + text.length, 0);
const credentialHits = scanned.reduce((n, text) => n + (text.match(CREDENTIAL) ?? []).length, 0);
const canaryHits = scanned.reduce((n, text) => n + (text.match(CANARY) ?? []).length, 0);
figures.push({
  id: "R10",
  check: "secrets in every captured output (vitest, workerd console, wrangler dev logs)",
  figure: `${credentialHits} credential hits, ${canaryHits} canary hits in ${bytes} bytes (${logFiles.length} wrangler logs)`,
  pass: credentialHits === 0 && canaryHits === 0,
});
for (const r of results) {
  figures.push({ id: "run", check: `vitest project ${r.project}`, figure: `exit ${r.code}`, pass: r.code === 0 });
}
const reported = new Set(figures.map((f) => f.id));
if (projects.length === 2) {
  for (const id of EXPECTED) if (!reported.has(id)) figures.push({ id, check: "(not reported)", figure: "missing", pass: false });
}

const order = (id) => {
  const i = EXPECTED.indexOf(id);
  return i === -1 ? EXPECTED.length : i;
};
figures.sort((a, b) => order(a.id) - order(b.id));
const seconds = ((Date.now() - started) / 1000).toFixed(0);
mkdirSync(join(ROOT, ".toolgate"), { recursive: true });
writeFileSync(join(ROOT, ".toolgate", "reliability.json"), JSON.stringify({ at: new Date().toISOString(), seconds: Number(seconds), figures }, null, 2));

const rows = figures.map((f) => [f.id, f.check, f.figure + (f.pass || f.seed === undefined ? "" : ` (seed ${f.seed})`), f.pass ? "pass" : "FAIL"]);
const head = ["id", "check", "figure", "result"];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
const failed = figures.filter((f) => !f.pass).length;
process.stdout.write(`\ntoolgate reliability suite — ${seconds} s\n\n`);
process.stdout.write(`${line(head)}\n|${widths.map((w) => "-".repeat(w + 2)).join("|")}|\n`);
for (const r of rows) process.stdout.write(`${line(r)}\n`);
process.stdout.write(`\n${figures.length - failed} pass, ${failed} fail (figures in .toolgate/reliability.json)\n`);
process.exit(failed === 0 ? 0 : 1);
