// Where the engine's time goes: runs the bench fixture's read or write steps through runFixture
// for a few seconds under V8's sampling profiler (node:inspector) and prints the functions with
// the most self time, as shares of the profiled time. Not part of `npm run bench`.
//
//   node tools/run.js bench/profile.ts [--part reads|writes] [--hash noble|native] [--seconds 4]
//        [--top 25] [--save FILE.cpuprofile]
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { Session, type Profiler } from "node:inspector";
import { readJson } from "../src/core/json";
import { parseToolCasesFixture, runFixture, type ToolCasesFixture } from "../src/conformance/tool-cases";
import { benchFixture } from "./fixture";

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

const part = option("--part", "reads");
const hashName = option("--hash", "noble");
const seconds = Number(option("--seconds", "4"));
const top = Number(option("--top", "25"));
const save = option("--save", "");
if (part !== "reads" && part !== "writes") throw new Error("--part is reads or writes");
if (hashName !== "noble" && hashName !== "native") throw new Error("--hash is noble or native");

function fixtureOf(caseId: string): ToolCasesFixture {
  const read = readJson(JSON.stringify(benchFixture(250, 100)), { maxBytes: 1 << 26 });
  if (!read.ok) throw new Error(read.error.message);
  const parsed = parseToolCasesFixture(read.value);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return { ...parsed.fixture, cases: parsed.fixture.cases.filter((c) => c.id === caseId) };
}

const fixture = fixtureOf(part);
const steps = fixture.cases.reduce((n, c) => n + c.steps.length, 0);
const hash =
  hashName === "native" ? (text: string): string => createHash("sha256").update(text, "utf8").digest("hex") : undefined;
const run = (): void => {
  const result = runFixture(fixture, hash === undefined ? {} : { hash });
  if (!result.ok || result.run.exitCode !== 0) throw new Error("the engine did not pass the bench fixture");
};
for (let i = 0; i < 20; i++) run();

const session = new Session();
session.connect();
const post = <T>(method: string, params?: object): Promise<T> =>
  new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as T))),
  );
await post("Profiler.enable");
await post("Profiler.setSamplingInterval", { interval: 100 });
await post("Profiler.start");
const start = performance.now();
let runs = 0;
while (performance.now() - start < seconds * 1000) {
  run();
  runs++;
}
const elapsed = (performance.now() - start) / 1000;
const { profile } = await post<{ profile: Profiler.Profile }>("Profiler.stop");
session.disconnect();
if (save !== "") writeFileSync(save, JSON.stringify(profile));

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map<string, number>();
let total = 0;
(profile.samples ?? []).forEach((id, i) => {
  const frame = byId.get(id)?.callFrame;
  const dt = profile.timeDeltas?.[i] ?? 0;
  total += dt;
  if (frame === undefined) return;
  const file = frame.url.split("/").slice(-1)[0] ?? "";
  const key = `${frame.functionName || "(anonymous)"}${file === "" ? "" : ` ${file}:${frame.lineNumber + 1}`}`;
  self.set(key, (self.get(key) ?? 0) + dt);
});
process.stdout.write(
  `${part}, ${hashName} SHA-256: ${((runs * steps) / elapsed).toFixed(0)} steps/s under the profiler, ` +
    `${((1e6 * elapsed) / (runs * steps)).toFixed(1)} µs/step; top ${top} by self time:\n`,
);
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  process.stdout.write(`${((100 * us) / total).toFixed(1).padStart(6)} %  ${key}\n`);
}
