// Runs a TypeScript entry point on Node 20: bundles it with esbuild into a temporary ESM file and imports it.
// Usage: node scripts/run-ts.js FILE.ts [args...]   (the script sees its own args in process.argv.slice(2))
import { build } from "esbuild";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [entry, ...args] = process.argv.slice(2);
if (entry === undefined) {
  process.stderr.write("usage: node scripts/run-ts.js FILE.ts [args...]\n");
  process.exit(2);
}
mkdirSync(resolve(".toolgate"), { recursive: true });
const dir = mkdtempSync(join(resolve(".toolgate"), "run-"));
const outfile = join(dir, "entry.mjs");
try {
  await build({
    entryPoints: [resolve(entry)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
  process.argv = [process.argv[0], resolve(entry), ...args];
  await import(pathToFileURL(outfile).href);
} finally {
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
}
