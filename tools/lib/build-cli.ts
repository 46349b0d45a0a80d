// Bundles src/cli/main.ts into dist/cli.js so that `npx toolgate` starts fast on Node 20.
// Imports nothing else of tools/: bin/toolgate.js loads it (through tools/run.js) on a fresh clone.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

export async function buildCli(): Promise<void> {
  await build({
    entryPoints: [`${root}/src/cli/main.ts`],
    outfile: `${root}/dist/cli.js`,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
}
