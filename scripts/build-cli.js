// Bundles src/cli/main.ts into dist/cli.js so that `npx toolgate` starts fast on Node 20.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

export async function buildCli() {
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildCli();
}
