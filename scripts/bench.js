// `npm run bench`: the Tool Result v2 engine vs the Python reference, side by side in one run.
// Passes its arguments on to bench/tool-result.ts (see that file for the options).
// Ends with the browser client's size: src/client/index.ts bundled by esbuild (minified, browser
// platform), raw and gzipped at level 9 (goal: at most 12 KiB gzipped).
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { constants, gzipSync } from "node:zlib";

const root = fileURLToPath(new URL("..", import.meta.url));
const result = spawnSync(process.execPath, ["scripts/run-ts.js", "bench/tool-result.ts", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
  timeout: 15 * 60 * 1000,
});
process.exitCode = result.status ?? 1;

/** The client bundle's bytes: minified, then gzipped at level 9. */
async function clientSize() {
  const out = await build({
    absWorkingDir: root,
    entryPoints: ["src/client/index.ts"],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "warning",
  });
  const code = out.outputFiles[0].contents;
  return { min: code.byteLength, gzip: gzipSync(code, { level: constants.Z_BEST_COMPRESSION }).byteLength };
}

const size = await clientSize();
process.stdout.write(`client bundle: ${size.min} bytes min, ${size.gzip} bytes gzip (goal ≤ 12 KiB)\n`);
