// `prestart` and `pretest`: on a fresh clone (no node_modules) or after the lockfile changed,
// installs exactly the lockfile (`npm ci`) before anything runs; `--browser` (pretest) also makes
// sure the browser tests have a Chromium: Debian's, installed with apt-get when running as root,
// or else one line saying what to install and which tests cannot run. Needs nothing but Node:
// it runs before node_modules (esbuild, which tools/run.js needs for TypeScript) exists, so it is
// JavaScript, type-checked from its JSDoc (tools/tsconfig.json).
// @ts-check
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** @typedef {{ version?: string, optional?: boolean, link?: boolean }} LockEntry */

/**
 * Why node_modules does not hold the lockfile's packages (`null`: it does). Local files, not untrusted input.
 * @param {string} [root]
 * @returns {string | null}
 */
export function staleReason(root = ROOT) {
  const hidden = join(root, "node_modules", ".package-lock.json");
  if (!existsSync(hidden)) return "node_modules is missing";
  /** @type {Record<string, LockEntry>} */
  const wanted = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")).packages ?? {};
  /** @type {Record<string, LockEntry | undefined>} */
  const installed = JSON.parse(readFileSync(hidden, "utf8")).packages ?? {};
  for (const [path, entry] of Object.entries(wanted)) {
    if (path === "" || entry.optional === true || entry.link === true) continue;
    if (installed[path]?.version !== entry.version)
      return `${path.replace(/^node_modules\//, "")} ${entry.version} is not installed`;
  }
  return null;
}

/**
 * @param {string} command
 * @param {string[]} args
 */
function run(command, args) {
  const done = spawnSync(command, args, { cwd: ROOT, stdio: "inherit" });
  return done.status === 0;
}

/** The Chromium the browser tests use: CHROMIUM_PATH, or Debian's on PATH. */
function chromium() {
  if (process.env.CHROMIUM_PATH !== undefined) return process.env.CHROMIUM_PATH;
  const found = spawnSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : null;
}

function main() {
  const reason = staleReason();
  if (reason !== null) {
    console.log(`toolgate: installing from package-lock.json (${reason})`);
    if (!run(process.platform === "win32" ? "npm.cmd" : "npm", ["ci", "--no-audit", "--no-fund"])) process.exit(1);
  }
  if (process.argv.includes("--browser") && chromium() === null) {
    const root = typeof process.getuid === "function" && process.getuid() === 0;
    if (root && existsSync("/usr/bin/apt-get")) {
      console.log("toolgate: installing Debian's chromium for the browser tests");
      if (!run("apt-get", ["update", "-qq"]) || !run("apt-get", ["install", "-y", "-qq", "chromium"])) process.exit(1);
    } else {
      console.log(
        "toolgate: Chromium is missing, so the browser tests (test/browser: the console, the provider, the JSON golden pages) cannot run; install it with `sudo apt-get install -y chromium`, or set CHROMIUM_PATH to a Chrome or Chromium binary",
      );
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
