// The startup section of `npm run bench` alone (tools/lib/bench-startup.ts).
//   node tools/run.js tools/bench-startup.ts [--rounds N] [--keep DIR]
import { printStartup } from "./lib/bench-startup.ts";

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const rounds = Number(option("--rounds") ?? "5");
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds is a positive integer");
printStartup(rounds, option("--keep"));
