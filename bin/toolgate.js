#!/usr/bin/env node
// Entry of the `toolgate` command: runs the bundled CLI, building it first on a fresh clone.
import { existsSync } from "node:fs";

const bundle = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(bundle)) {
  const { buildCli } = await import("../scripts/build-cli.js");
  await buildCli();
}
const { main } = await import(bundle.href);
process.exitCode = await main(process.argv.slice(2));
