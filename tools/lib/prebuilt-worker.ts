// The Worker built once per test run, for the black-box helpers' `wrangler dev`.
//
// Each `wrangler dev` start bundles src/worker/ with esbuild before workerd runs it: about 1.2
// CPU-seconds of the 5 a start costs on CI's machine, and a test run starts it some 45 times (R3
// alone restarts it 21 times). `npm test` builds the Worker once, as `wrangler deploy --dry-run`
// builds it (wrangler.toml: minified, the same defines), from test/support/dev-worker.ts: the
// gate's entry with the two dev-only steps wrangler adds to a bundle it builds for `wrangler dev`
// (without the first, local workerd resets connections under load). The script's path goes in
// TOOLGATE_PREBUILT_WORKER; test/blackbox/wrangler-dev.ts then starts `wrangler dev <script>
// --no-bundle`, which still reads wrangler.toml for every binding, the assets and the objects.
// Unset (a test file run on its own, `npm start`, the benches), `wrangler dev` bundles the
// sources itself, so nothing can run a build older than the sources.
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./paths.ts";

/** The environment variable naming the prebuilt script (set by `npm test` for its lanes only). */
export const PREBUILT_WORKER = "TOOLGATE_PREBUILT_WORKER";

const OUT = join(ROOT, ".toolgate", "prebuilt-worker");
const ENTRY = join(ROOT, "test", "support", "dev-worker.ts");

/**
 * Builds the Worker into .toolgate/prebuilt-worker/ and answers its script's path, or null (with
 * one line saying why) if the build failed: the black-box files then bundle as they would alone.
 */
export function prebuildWorker(): Promise<string | null> {
  rmSync(OUT, { recursive: true, force: true });
  const wrangler = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [wrangler, "deploy", ENTRY, "--dry-run", "--outdir", OUT], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    });
    let errors = "";
    child.stderr?.on("data", (d: Buffer) => (errors = (errors + d.toString()).slice(-2_000)));
    child.once("error", (error) => {
      process.stdout.write(`prebuilt worker: not built (${error.message}); wrangler dev bundles it each time\n`);
      resolve(null);
    });
    child.once("exit", (code) => {
      const script = join(OUT, "dev-worker.js");
      if (code === 0 && existsSync(script)) return resolve(script);
      process.stdout.write(`prebuilt worker: build exited ${code}; wrangler dev bundles it each time\n${errors}\n`);
      resolve(null);
    });
  });
}

/** The `wrangler dev` arguments that run the prebuilt script (after `dev`), or none when there is none. */
export function prebuiltWorkerArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  const script = env[PREBUILT_WORKER];
  return script !== undefined && script !== "" && existsSync(script) ? [script, "--no-bundle"] : [];
}
