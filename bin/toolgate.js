#!/usr/bin/env node
// Entry of the `toolgate` command: runs the bundled CLI, building it first on a fresh clone.
import { existsSync } from "node:fs";

const bundle = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(bundle)) {
  const { importTs } = await import("../tools/run.js");
  const { buildCli } = await importTs(new URL("../tools/lib/build-cli.ts", import.meta.url));
  if (typeof buildCli !== "function") throw new Error("tools/lib/build-cli.ts exports no buildCli");
  await buildCli();
}
const { main } = await import(bundle.href);
process.exitCode = await main(process.argv.slice(2));
