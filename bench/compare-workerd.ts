// Two checkouts' CPU per call inside workerd, side by side: each runs its own bench/cost-worker.ts
// under `wrangler dev` at once, and their batches alternate (read call and MCP tools/call in the
// object, the Worker's share of each), so both see the same load on the machine. CPU is workerd's
// thread time from /proc (as `npm run bench:http` reads it) over the request running a batch,
// minus an empty batch's; batches are large, so the empty batch's noise is small beside them.
// Prints each scenario's µs per call, median [min–max] over rounds, and new / base per round.
//
//   node tools/run.js bench/compare-workerd.ts --base DIR [--new DIR] [--rounds 6] [--n 400] [--port 8940]
//
// DIR: a checkout with its node_modules (default --new: this one). Bounded: fixed counts,
// 127.0.0.1 only; both wrangler devs are stopped.
import { spawn, type SpawnOptions } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cpuNs, requester, workerdPids } from "../tools/lib/bench-http-cost.ts";
import { ROOT } from "../tools/lib/paths.ts";
import { call, DEV_SETTINGS, freshSecrets, startWranglerDev, waitHealthy } from "../tools/lib/wrangler-dev.ts";

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

const baseDir = resolve(option("--base", ""));
const newDir = resolve(option("--new", ROOT));
const rounds = Number(option("--rounds", "6"));
const n = Number(option("--n", "400"));
const port = Number(option("--port", "8940"));
const CONSUMER = "tenant-a";
const UNLIMITED = { calls_per_second: 1000000, call_burst: 1000000 };
const SCENARIOS = ["read", "mcp", "worker read", "worker mcp"] as const;
type Scenario = (typeof SCENARIOS)[number];

const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return (s.length % 2 === 1 ? s[mid] : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2) ?? NaN;
};
const spread = (values: readonly number[], digits: number): string =>
  `${median(values).toFixed(digits)} [${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}]`;

interface Side {
  readonly name: string;
  readonly stop: () => Promise<void>;
  /** CPU µs per call of one batch of `scenario` (`count` 0: an empty batch's ns). */
  readonly batch: (scenario: Scenario | "empty", count: number) => Promise<number>;
}

async function startSide(name: string, dir: string, gatePort: number): Promise<Side> {
  const secrets = { ...freshSecrets(), ...DEV_SETTINGS };
  const admin = secrets.TOOLGATE_ADMIN_TOKEN;
  const persistTo = mkdtempSync(join(tmpdir(), "toolgate-compare-"));
  const base = `http://127.0.0.1:${gatePort}`;
  const withEntry = (command: string, [, dev = "", ...rest]: string[], options: SpawnOptions) =>
    spawn(
      command,
      [
        join(dir, "node_modules", "wrangler", "bin", "wrangler.js"),
        dev,
        "bench/cost-worker.ts",
        "--inspector-port",
        String(gatePort + 1),
        ...rest,
      ],
      { ...options, cwd: dir },
    );
  const dev = startWranglerDev({ port: gatePort, persistTo, secrets, spawnProcess: withEntry });
  const pool = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = requester(gatePort, pool);
  const stop = async (): Promise<void> => {
    pool.destroy();
    await dev.stop();
    rmSync(persistTo, { recursive: true, force: true });
  };
  try {
    await waitHealthy(base, 300_000);
    const bench = async (where: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const res = await send("POST", `/bench/${where}`, admin, JSON.stringify(body));
      if (res.status !== 200) throw new Error(`${name} bench ${where}: ${res.status} ${res.body.slice(0, 300)}`);
      // The answer of the cost worker this process started.
      return JSON.parse(res.body) as Record<string, unknown>;
    };
    await call(base, "PUT", `/v1/consumers/${CONSUMER}`, admin, {
      tools: ["get_order"],
      approver_subjects: [],
      limits: UNLIMITED,
    });
    const mint = async (body: Record<string, unknown>): Promise<string> =>
      (await call<{ secret: string }>(base, "POST", `/v1/consumers/${CONSUMER}/credentials`, admin, body)).secret;
    const tokens = {
      agent: await mint({ kind: "agent", roles: ["support"] }),
      approver: await mint({ kind: "agent", roles: [] }),
      mcp: await mint({ kind: "agent", subject_id: "user-1" }),
    };
    const object = (op: Record<string, unknown>) => bench("object", { consumer: CONSUMER, op });
    const { sessionId } = (await object({ kind: "mcpSession", tokens })) as { sessionId: string };
    const workerOp = (scenario: string, count: number, run?: string, prepare?: boolean) => ({
      consumer: CONSUMER,
      scenario,
      n: count,
      token: scenario === "mcp" ? tokens.mcp : tokens.agent,
      sessionId,
      run,
      prepare,
    });
    for (const scenario of ["read", "mcp"]) await bench("worker", workerOp(scenario, 0));
    let runs = 0;
    const pids = () => workerdPids(dev.child.pid);
    const batch = async (scenario: Scenario | "empty", count: number): Promise<number> => {
      const run = `c${++runs}`;
      const worker = scenario.startsWith("worker ") ? scenario.slice(7) : null;
      const objectScenario = scenario === "empty" ? "insert" : scenario;
      if (worker !== null) await bench("worker", workerOp(worker, count, run, true));
      else await object({ kind: "prepare", scenario: objectScenario, run, n: count });
      const before = cpuNs(pids());
      if (worker !== null) await bench("worker", workerOp(worker, count, run));
      else await object({ kind: "time", scenario: objectScenario, run, n: count, tokens, sessionId });
      return cpuNs(pids()) - before;
    };
    // Warm-up: every kind once at full size.
    for (const scenario of SCENARIOS) await batch(scenario, n);
    return { name, stop, batch };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function main(): Promise<void> {
  if (baseDir === resolve("")) throw new Error("--base DIR: the checkout to compare against");
  const sides = [await startSide("base", baseDir, port), await startSide("new", newDir, port + 5)];
  try {
    const perCall: Record<string, Record<Scenario, number[]>> = {};
    for (const side of sides)
      perCall[side.name] = Object.fromEntries(SCENARIOS.map((s) => [s, [] as number[]])) as Record<Scenario, number[]>;
    for (let round = 0; round < rounds; round++) {
      // Alternate which side goes first, and rotate the scenarios, round by round.
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (let k = 0; k < SCENARIOS.length; k++) {
        const scenario = SCENARIOS[(k + round) % SCENARIOS.length] ?? "read";
        for (const side of order) {
          const empty = median([await side.batch("empty", 0), await side.batch("empty", 0)]);
          const ns = await side.batch(scenario, n);
          perCall[side.name]?.[scenario].push((ns - empty) / 1000 / n);
        }
      }
      process.stderr.write(`round ${round + 1}/${rounds} done\n`);
    }
    console.log(
      `CPU µs per call inside workerd (batches of ${n}, ${rounds} rounds, base and new alternating), median [min–max]; new / base per round:`,
    );
    const [base, fresh] = [perCall["base"], perCall["new"]];
    if (base === undefined || fresh === undefined) throw new Error("a side is missing");
    const sum = (of: Record<Scenario, number[]>, a: Scenario, b: Scenario): number[] =>
      of[a].map((v, i) => v + (of[b][i] ?? NaN));
    const rows: Array<[string, number[], number[]]> = [
      ...SCENARIOS.map((s): [string, number[], number[]] => [s, base[s], fresh[s]]),
      ["read call, Worker + object", sum(base, "read", "worker read"), sum(fresh, "read", "worker read")],
      ["MCP tools/call, Worker + object", sum(base, "mcp", "worker mcp"), sum(fresh, "mcp", "worker mcp")],
    ];
    for (const [label, b, f] of rows)
      console.log(
        `  ${label.padEnd(34)} base ${spread(b, 1).padEnd(24)} new ${spread(f, 1).padEnd(24)} new/base ${spread(
          f.map((v, i) => v / (b[i] ?? NaN)),
          2,
        )}`,
      );
    const ratio = (of: Record<Scenario, number[]>): number[] =>
      sum(of, "mcp", "worker mcp").map((m, i) => m / (sum(of, "read", "worker read")[i] ?? NaN));
    console.log(`  MCP / read (Worker + object): base ${spread(ratio(base), 2)}, new ${spread(ratio(fresh), 2)}`);
  } finally {
    for (const side of sides) await side.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`compare-workerd: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
