// A part of `npm run bench:http` alone, while iterating on the data-tool path: its own wrangler dev
// running bench/cost-worker.ts, the demo service as the data tool's target, and only the batches
// named, in interleaved rounds (default: the data tool lookup_customer with its CEL authorize, a
// bare fetch of the same URL, and the read call get_order). CPU is workerd's, as in bench:http.
// `data local` is the data tool with its downstream answered inside the object (no network): the
// gate's own share of the call, beside the read call's.
//
//   node tools/run.js tools/bench-data-tool.ts [--only data,fetch,read] [--rounds 5] [--port N] [--service-port N]
import { ALL_SCENARIOS, insideWorkerd, type Scenario } from "./lib/bench-http-cost.ts";

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const names = (option("--only") ?? "data,fetch,read").split(",");
const scenarios = names.map((name) => {
  const scenario = ALL_SCENARIOS.find((s) => s === name);
  if (scenario === undefined) throw new Error(`--only: ${name} is none of ${ALL_SCENARIOS.join(", ")}`);
  return scenario;
}) satisfies Scenario[];
const number = (name: string): number | undefined => {
  const given = option(name);
  return given === undefined ? undefined : Number(given);
};

await insideWorkerd({
  scenarios,
  rounds: number("--rounds"),
  port: number("--port"),
  servicePort: number("--service-port"),
});
