// The gate's own cost, for `npm run bench:http` (tools/bench-http.ts calls gateCost once its
// own measurements are done). Two parts:
//
// 1. Over the bench's wrangler dev, informative: the read call's p50 beside the production routes'
//    ping and PUT consumer, per round, and rounds of 8 concurrent clients (PUT consumer writes two
//    objects, so it is not the goals' "one durable write").
// 2. On a second wrangler dev that runs bench/cost-worker.ts (the production app and object plus
//    benchmark operations; never deployed): the round-trip goals against a bare round trip and one
//    durable write in the same object (tools/lib/bench-round-trips.ts); inside workerd, the CPU (workerd's, read from /proc
//    per thread) and the wall time of one read call, one approved write, one data-defined tool
//    with a CEL rule (target: the demo service on 127.0.0.1; beside it a bare, unsigned fetch of
//    the same URL, which the service refuses with 401, and the same fetch after one row written in
//    the object, which then waits for a durable write as each data tool call's fetch does), one MCP tools/call and the Worker's share
//    of a call, each beside a bare SQLite insert in the same object and the same round; a cold
//    object's first call beside its warm calls; and what the object holds in memory after 10,000
//    and 20,000 calls.
//
// Bounded: every loop has a fixed count; only 127.0.0.1; every process started here is stopped.
import { spawn, type SpawnOptions } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { printGoals } from "./bench-goals.ts";
import { roundTripGoals, throughputRounds, type Throughput } from "./bench-round-trips.ts";
import { demoTools, startDemoService } from "./demo-service.ts";
import { call, DEV_SETTINGS, freePort, freshSecrets, startWranglerDev, waitHealthy } from "./wrangler-dev.ts";

const CONSUMER = "tenant-a";
const APPROVER = "human-reviewer-1";
const UNLIMITED = { calls_per_second: 1000000, call_burst: 1000000 };

// Part 1: round trips (the bench's own server).
const GOALS = { coldVsWarm: 2 }; // the round-trip goals: tools/lib/bench-round-trips.ts
const THROUGHPUT_ROUNDS = 3;
const THROUGHPUT_REQUESTS = 600;
const CONCURRENCY = 8;

// Part 2: inside workerd.
const ROUNDS = 5; // after one warm-up round that also sizes each batch, and WARM_BATCHES more of each
// V8 keeps compiling a kind of call on its helper threads for its first several hundred calls, so
// each batch runs this many more times before the rounds, which then read the steady state.
const WARM_BATCHES = 8;
const BATCH_MS = 100; // a batch takes about this long, wall or CPU, so a clock step or the request's own cost is small beside it
const BATCH_LIMITS: Record<Scenario, [number, number]> = {
  insert: [500, 20000],
  rows: [200, 5000],
  read: [50, 1000],
  write: [30, 150],
  data: [20, 200],
  fetch: [20, 200],
  "fetch written": [20, 200],
  mcp: [50, 1000],
  "worker read": [50, 2000],
  "worker mcp": [50, 2000],
  "data local": [20, 500],
};
const COLD_CONSUMERS = 8;
const WARM_CALLS = 20;
const MEMORY_CREDENTIALS = 300; // more than the credential cache holds
const MEMORY_CALLS = 10_000;
const CALLS_PER_REQUEST = 1_000;

const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return (s.length % 2 === 1 ? s[mid] : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2) ?? NaN;
};
const p50 = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
/** `median [min–max]` of a list, with `digits` decimals and a unit. */
const spread = (values: readonly number[], digits = 2, unit = ""): string =>
  `${median(values).toFixed(digits)}${unit} [${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}]`;
const verdict = (value: number, goal: number, atMost = true): string =>
  (atMost ? value <= goal : value >= goal) ? "met" : "NOT met";

/** Keep-alive JSON requests to 127.0.0.1:`port` through `agent`: `(method, path, token, body, extra headers) → {status, body}`. */
export const requester: Requester = (port, agent) => {
  return (method, path, token, body, extra = {}) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(body);
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          method,
          path,
          agent,
          headers: {
            ...extra,
            authorization: `Bearer ${token}`,
            ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": payload.length }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on("error", reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
};

function readBody(id: string): string {
  return JSON.stringify({
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
    context: {
      call_id: id,
      operation_id: `op-${id}`,
      idempotency_key: null,
      provider: "openai",
      api_family: "responses",
      response_id: "resp-bench",
      adapter_revision: "openai-responses-v1",
    },
  });
}

/** Part 1: the c = 1 p50 ratios per round (from the bench's samples) and rounds at 8 clients, against the production routes. */
async function productionRoundTrips({ port, admin, agent, samples, perRound }: GateCostOptions): Promise<void> {
  // The bench's scenarios in its order: the bare round trip, the write, the gate read call.
  const [bareSamples = [], writeSamples = [], gateSamples = []] = Object.values(samples);
  const rounds = Math.floor(gateSamples.length / perRound);
  const perRoundP50 = (list: readonly number[]): number[] =>
    Array.from({ length: rounds }, (_, r) => p50(list.slice(r * perRound, (r + 1) * perRound)));
  const bare = perRoundP50(bareSamples);
  const write = perRoundP50(writeSamples);
  const gate = perRoundP50(gateSamples);
  const vsWrite = gate.map((g, r) => g / (write[r] ?? NaN));
  const vsBare = gate.map((g, r) => g / (bare[r] ?? NaN));
  const writeVsBare = write.map((w, r) => w / (bare[r] ?? NaN));

  const pool = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const send = requester(port, pool);
  let n = 0;
  const scenarios = {
    gate: () => send("POST", `/v1/consumers/${CONSUMER}/tool-calls`, agent, readBody(`tp-${++n}`)),
    write: () =>
      send(
        "PUT",
        `/v1/consumers/${CONSUMER}`,
        admin,
        JSON.stringify({ tools: ["get_order"], approver_subjects: [], limits: UNLIMITED }),
      ),
  };
  const once = async (name: "gate" | "write"): Promise<void> => {
    const res = await scenarios[name]();
    if (res.status !== 200) throw new Error(`throughput ${name}: ${res.status} ${res.body.slice(0, 200)}`);
  };
  let throughput: Throughput[];
  try {
    throughput = await throughputRounds(THROUGHPUT_ROUNDS, THROUGHPUT_REQUESTS, CONCURRENCY, once);
  } finally {
    pool.destroy();
  }
  const tpRatio = throughput.map((r) => r.gate / r.write);
  console.log(
    `\nThe same ratios against production routes (informative: \`PUT /v1/consumers/…\` writes the consumer's object and then the directory's, two objects and two commits; the goals below use one write in the same object), median [min–max] over rounds:`,
  );
  const line = (label: string, values: readonly number[], note: string): void =>
    console.log(`  ${label.padEnd(44)}${`${spread(values)}×`.padEnd(20)}${note}`);
  line("gate read / PUT consumer, c=1 p50", vsWrite, `(${rounds} rounds of ${perRound} calls)`);
  line("gate read / ping (bare round trip), c=1 p50", vsBare, "");
  line("PUT consumer / ping, c=1 p50", writeVsBare, "");
  const rps = (name: keyof Throughput): string =>
    spread(
      throughput.map((r) => r[name]),
      0,
    );
  line(
    `gate read / PUT consumer, c=${CONCURRENCY} req/s`,
    tpRatio,
    `(${THROUGHPUT_ROUNDS} rounds of ${THROUGHPUT_REQUESTS} requests; gate ${rps("gate")} req/s, PUT ${rps("write")} req/s)`,
  );
}

/** Whether this system shows per-thread CPU time (Linux /proc); elsewhere the CPU figures are left out. */
const HAS_PROC = existsSync("/proc/self/task") && existsSync("/proc/self/schedstat");

/** The workerd processes of a wrangler dev (its process group). */
export function workerdPids(group: number | undefined): string[] {
  if (!HAS_PROC) return [];
  const pids: string[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const pgrp = Number(stat.slice(close + 2).split(" ")[2]);
      if (pgrp === group && stat.slice(stat.indexOf("(") + 1, close).startsWith("workerd")) pids.push(pid);
    } catch {
      // the process ended meanwhile
    }
  }
  if (pids.length === 0) throw new Error("no workerd process found in wrangler dev's process group");
  return pids;
}

/** Resident memory of those processes, in MB. */
function rssMb(pids: readonly string[]): number {
  if (!HAS_PROC) return NaN;
  let kib = 0;
  for (const pid of pids)
    kib += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  return kib / 1024;
}

/**
 * CPU time those processes have run, in ns: the kernel's per-thread run time (the first field of
 * /proc/<pid>/task/<tid>/schedstat), summed over their threads. Unlike a wall clock it does not
 * count time spent waiting for a core, so other load on the machine does not inflate it.
 */
export function cpuNs(pids: readonly string[]): number {
  return threadCpuNs(pids).all;
}

/**
 * {@link cpuNs}, and the part of it on V8's helper threads (named `V8 DefaultWorker`: its
 * background compiler and concurrent garbage collector), which run beside the isolate's own thread.
 */
export function threadCpuNs(pids: readonly string[]): { all: number; helpers: number } {
  if (!HAS_PROC) return { all: NaN, helpers: NaN };
  let all = 0;
  let helpers = 0;
  for (const pid of pids) {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
        all += ns;
        if (readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").startsWith("V8 ")) helpers += ns;
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return { all, helpers };
}

/**
 * What {@link insideWorkerd} measures: by default everything; `scenarios` (a subset of the batches,
 * such as the data tool and its bare fetch) times only those, in the same interleaved rounds, and
 * leaves out the round-trip goals, the cold object and the memory (a quick run while iterating).
 */
export interface InsideOptions {
  readonly scenarios?: readonly Scenario[];
  readonly rounds?: number;
  /** The gate's port (default: a free one) and the demo service's (default: a free one). */
  readonly port?: number;
  readonly servicePort?: number;
  /** The CPU rounds and the goals only, without the cold objects and the memory (their 20,000 calls). */
  readonly quick?: boolean;
  /** wrangler's inspector port (default: wrangler's own; a second run beside another needs its own). */
  readonly inspectorPort?: number;
}

/** Part 2: the cost inside workerd, on its own wrangler dev running bench/cost-worker.ts (also runnable alone: `npm run bench:http -- --cost`). */
export async function insideWorkerd(options: InsideOptions = {}): Promise<void> {
  const only = options.scenarios;
  const rounds = options.rounds ?? ROUNDS;
  const secrets = { ...freshSecrets(), ...DEV_SETTINGS };
  const admin = secrets.TOOLGATE_ADMIN_TOKEN;
  const persistTo = mkdtempSync(join(tmpdir(), "toolgate-bench-cost-"));
  const gatePort = options.port ?? (await freePort());
  const base = `http://127.0.0.1:${gatePort}`;
  const serviceToken = "bench-service-token";
  const service = await startDemoService({
    port: options.servicePort ?? 0,
    keys: { [CONSUMER]: `${base}/v1/consumers/${CONSUMER}/signing-keys` },
    token: serviceToken,
  });
  // The same wrangler dev as the bench's, with the benchmark's entry point instead of wrangler.toml's
  // `main` (right after `dev`: `--env-file` takes every value that follows it).
  const inspector = options.inspectorPort === undefined ? [] : ["--inspector-port", String(options.inspectorPort)];
  const withEntry = (command: string, [cli = "", dev = "", ...rest]: string[], spawnOptions: SpawnOptions) =>
    spawn(command, [cli, dev, "bench/cost-worker.ts", ...inspector, ...rest], spawnOptions);
  const dev = startWranglerDev({ port: gatePort, persistTo, secrets, spawnProcess: withEntry });
  const pool = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = requester(gatePort, pool);
  const bench = async (
    where: string,
    body: { op?: { kind: string } & Record<string, unknown>; scenario?: string } & Record<string, unknown>,
  ): Promise<BenchAnswer> => {
    const res = await send("POST", `/bench/${where}`, admin, JSON.stringify(body));
    if (res.status !== 200)
      throw new Error(`bench ${where} ${body.op?.kind ?? body.scenario}: ${res.status} ${res.body.slice(0, 400)}`);
    // The answer of bench/cost-worker.ts, run by this process.
    return JSON.parse(res.body) as BenchAnswer;
  };
  try {
    // A loaded machine may take a while to build and start the Worker.
    await waitHealthy(base, 180_000);
    // Looked up at each reading: wrangler may replace its workerd process while starting.
    const pids = () => workerdPids(dev.child.pid);
    // One consumer with the catalog's read and write, a data-defined tool (CEL authorize) on the demo service, an approver.
    const tools = demoTools(service.base, "bench_service_token");
    await call(base, "PUT", `/v1/consumers/${CONSUMER}`, admin, {
      tools: ["get_order", "create_refund_draft"],
      approver_subjects: [APPROVER],
      limits: UNLIMITED,
    });
    await call(base, "PUT", `/v1/consumers/${CONSUMER}/secrets/bench_service_token`, admin, { value: serviceToken });
    await call(base, "PUT", `/v1/consumers/${CONSUMER}/tools/lookup_customer`, admin, tools.lookup_customer);
    await call(base, "PUT", `/v1/consumers/${CONSUMER}`, admin, {
      tools: ["get_order", "create_refund_draft", "lookup_customer"],
      approver_subjects: [APPROVER],
      limits: UNLIMITED,
    });
    const mint = async (body: Record<string, unknown>): Promise<string> =>
      (await call<{ secret: string }>(base, "POST", `/v1/consumers/${CONSUMER}/credentials`, admin, body)).secret;
    const tokens = {
      agent: await mint({ kind: "agent", roles: ["support"] }),
      approver: await mint({ kind: "approver", subject_id: APPROVER }),
      mcp: await mint({ kind: "agent", subject_id: "user-1" }),
    };
    // The round-trip goals first, on an idle object, against baselines in the same object.
    const throughput =
      only === undefined
        ? await roundTripGoals({
            port: gatePort,
            admin,
            agentToken: tokens.agent,
            consumer: CONSUMER,
            requester,
            readBody,
          })
        : undefined;
    const object = (op: { kind: string } & Record<string, unknown>): Promise<BenchAnswer> =>
      bench("object", { consumer: CONSUMER, op });
    const { step } = await object({ kind: "clock" });
    const { sessionId } = await object({ kind: "mcpSession", tokens });
    const fetchUrl = `${service.base}/customers/lookup`;
    // The Worker's share is timed against one recorded answer of the object (recorded here, untimed).
    const workerOp = (scenario: string, n: number, run?: string, prepare?: boolean) => ({
      consumer: CONSUMER,
      scenario,
      n,
      token: scenario === "mcp" ? tokens.mcp : tokens.agent,
      sessionId,
      run,
      prepare,
    });
    for (const scenario of ["read", "mcp"]) await bench("worker", workerOp(scenario, 0));

    // Interleaved rounds; each batch in one request, timed inside (µs per call = ms × 1000 / n).
    const scenarios = only ?? SCENARIOS;
    const sizes = Object.fromEntries(scenarios.map((s) => [s, BATCH_LIMITS[s][0]])) as Record<Scenario, number>;
    const byRound: Round[] = [];
    let runs = 0;
    // One batch: its CPU (workerd's, minus an empty batch's) and its wall time inside the object, per call.
    const timeOne = async (
      scenario: Scenario,
      n: number,
      emptyNs = 0,
    ): Promise<{ ns: number; cpu: number; wall: number; helpers: number }> => {
      const run = `r${++runs}`;
      if (scenario === "write") await object({ kind: "prepareWrites", run, n, tokens });
      // The calls' inputs are built in a request of their own: the CPU read below is the gate's work only.
      if (scenario.startsWith("worker ")) await bench("worker", workerOp(scenario.slice(7), n, run, true));
      else await object({ kind: "prepare", scenario: scenario === "data local" ? "data" : scenario, run, n });
      const before = threadCpuNs(pids());
      const answer = scenario.startsWith("worker ")
        ? await bench("worker", workerOp(scenario.slice(7), n, run))
        : scenario === "data local"
          ? await object({ kind: "time", scenario: "data", run, n, tokens, local: true })
          : await object({ kind: "time", scenario, run, n, tokens, sessionId, fetchUrl });
      const after = threadCpuNs(pids());
      const ns = after.all - before.all;
      return n === 0
        ? { ns, cpu: NaN, wall: NaN, helpers: NaN }
        : {
            ns,
            cpu: (ns - emptyNs) / 1000 / n,
            wall: ((answer.ms ?? NaN) * 1000) / n,
            helpers: (after.helpers - before.helpers) / 1000 / n,
          };
    };
    for (let round = -1; round < rounds; round++) {
      const order = scenarios.map((_, i) => scenarios[(i + Math.max(round, 0)) % scenarios.length] ?? "insert");
      const empty: number[] = [];
      for (let i = 0; i < 3; i++) empty.push((await timeOne("insert", 0)).ns);
      const measures: Partial<Record<Scenario, Measure>> = {};
      for (const scenario of order) {
        const measured = await timeOne(scenario, sizes[scenario], median(empty));
        if (round < 0) {
          const [least, most] = BATCH_LIMITS[scenario];
          sizes[scenario] = Math.min(
            most,
            Math.max(least, Math.ceil((BATCH_MS * 1000) / Math.max(measured.wall, measured.cpu, 0.1))),
          );
        }
        measures[scenario] = { cpu: measured.cpu, wall: measured.wall, helpers: measured.helpers };
      }
      if (round < 0) for (let i = 0; i < WARM_BATCHES; i++) for (const s of order) await timeOne(s, sizes[s]);
      // `order` is every scenario once, so each has its measure.
      if (round >= 0) byRound.push({ empty: median(empty) / 1000, ...(measures as Record<Scenario, Measure>) });
    }
    if (only !== undefined) {
      partialReport(step, scenarios, sizes, byRound);
      return;
    }

    const goals = (): void => {
      if (throughput === undefined) throw new Error("the round-trip goals were not measured");
      printGoals(
        byRound.map((r) => ({
          read: r.read.cpu,
          write: r.write.cpu,
          data: r.data.cpu,
          fetch: r.fetch.cpu,
          fetchWritten: r["fetch written"].cpu,
          mcp: r.mcp.cpu,
          workerRead: r["worker read"].cpu,
          workerMcp: r["worker mcp"].cpu,
        })),
        throughput,
      );
    };
    if (options.quick === true) {
      report({ step, sizes, byRound });
      goals();
      return;
    }

    // Cold objects: a new consumer, configured, its object reset; then its first call and warm ones (over HTTP).
    const cold: number[] = [];
    const warm: number[] = [];
    const coldCpu: number[] = [];
    const warmCpu: number[] = [];
    for (let k = 0; k < COLD_CONSUMERS; k++) {
      const name = `bench-cold-${k}`;
      await call(base, "PUT", `/v1/consumers/${name}`, admin, {
        tools: ["get_order"],
        approver_subjects: [],
        limits: UNLIMITED,
      });
      const token = (
        await call<{ secret: string }>(base, "POST", `/v1/consumers/${name}/credentials`, admin, { kind: "agent" })
      ).secret;
      const before = (await bench("object", { consumer: name, op: { kind: "serial" } })).serial;
      const reset = await send(
        "POST",
        "/bench/object",
        admin,
        JSON.stringify({ consumer: name, op: { kind: "abort" } }),
      );
      if (reset.status !== 500) throw new Error(`abort answered ${reset.status}`);
      const times: number[] = [];
      const cpus: number[] = [];
      for (let i = 0; i <= WARM_CALLS; i++) {
        const cpu = cpuNs(pids());
        const started = process.hrtime.bigint();
        const res = await send("POST", `/v1/consumers/${name}/tool-calls`, token, readBody(`cold-${k}-${i}`));
        times.push(Number(process.hrtime.bigint() - started) / 1000);
        cpus.push((cpuNs(pids()) - cpu) / 1000);
        if (res.status !== 200) throw new Error(`cold call: ${res.status} ${res.body.slice(0, 200)}`);
      }
      const after = (await bench("object", { consumer: name, op: { kind: "serial" } })).serial;
      if (after === before) throw new Error("the object was not reset");
      cold.push(times[0] ?? NaN);
      warm.push(median(times.slice(1)));
      coldCpu.push(cpus[0] ?? NaN);
      warmCpu.push(median(cpus.slice(1)));
    }

    // Memory: many credentials (more than the cache holds), then 10,000 calls twice.
    const agents: string[] = [];
    for (let i = 0; i < MEMORY_CREDENTIALS; i++) agents.push(await mint({ kind: "agent" }));
    const snapshots: Snapshot[] = [
      { calls: 0, rss: rssMb(pids()), held: (await object({ kind: "memory" })).held ?? [] },
    ];
    const tablesBefore = await object({ kind: "tables" });
    let tablesAfter: BenchAnswer = {};
    for (const total of [MEMORY_CALLS, 2 * MEMORY_CALLS]) {
      for (let done = snapshots.at(-1)?.calls ?? 0; done < total; done += CALLS_PER_REQUEST)
        await object({ kind: "calls", run: `mem-${done}`, n: CALLS_PER_REQUEST, agents });
      snapshots.push({ calls: total, rss: rssMb(pids()), held: (await object({ kind: "memory" })).held ?? [] });
      if (total === MEMORY_CALLS) tablesAfter = await object({ kind: "tables" });
    }

    report({ step, sizes, byRound, cold: { wall: [cold, warm], cpu: [coldCpu, warmCpu] }, snapshots });
    rowsPerCall(tablesBefore, tablesAfter, MEMORY_CALLS);
    goals();
  } finally {
    pool.destroy();
    await dev.stop();
    await service.close();
    rmSync(persistTo, { recursive: true, force: true });
  }
}

/** Rows each read call writes (SQLite's total_changes) and leaves per table, from counts before and after `calls` read calls in one object. */
function rowsPerCall(before: BenchAnswer, after: BenchAnswer, calls: number): void {
  console.log(
    `\nRows a read call writes in the object (SQLite total_changes: inserted, updated or deleted): ${(((after.changes ?? NaN) - (before.changes ?? NaN)) / calls).toFixed(2)} per call`,
  );
  const afterTables = after.tables ?? {};
  const grown = Object.entries(afterTables)
    .map(([table, count]) => ({ table, rows: (count - (before.tables?.[table] ?? 0)) / calls }))
    .filter((t) => t.rows !== 0)
    .sort((a, b) => b.rows - a.rows);
  const total = grown.reduce((sum, t) => sum + t.rows, 0);
  console.log(
    `Rows it leaves, by table (${calls.toLocaleString("en-US")} calls, before any retention sweep): ${total.toFixed(2)} rows per call`,
  );
  for (const t of grown) console.log(`  ${t.table.padEnd(40)} ${t.rows.toFixed(3)}`);
}

/** The batches of a partial run (`InsideOptions.scenarios`), one line each, and the data tool beyond its fetch when both ran. */
function partialReport(
  step: number | null | undefined,
  scenarios: readonly Scenario[],
  sizes: Record<Scenario, number>,
  rows: readonly Round[],
): void {
  console.log(
    `\nInside workerd, per call, ${rows.length} interleaved rounds after a warm-up round and ${WARM_BATCHES} warm-up batches of each; median [min–max] over rounds (clock step ${step ?? "none"}); CPU minus an empty batch's request.`,
  );
  console.log(
    `  ${"scenario".padEnd(14)}${"batch".padStart(6)}   ${"CPU µs".padEnd(28)}${"of which V8's helper threads".padEnd(30)}wall µs`,
  );
  for (const scenario of scenarios) {
    const of = (field: keyof Measure): string =>
      spread(
        rows.map((r) => r[scenario][field]),
        1,
      );
    console.log(
      `  ${scenario.padEnd(14)}${String(sizes[scenario]).padStart(6)}   ${of("cpu").padEnd(28)}${of("helpers").padEnd(30)}${of("wall")}`,
    );
  }
  if (scenarios.includes("data local") && scenarios.includes("read"))
    console.log(
      `  data tool with its downstream answered in the object, minus the read call: ${spread(
        rows.map((r) => r["data local"].cpu - r.read.cpu),
        1,
        " µs",
      )}`,
    );
  if (scenarios.includes("data") && scenarios.includes("fetch")) {
    const beyond = rows.map((r) => r.data.cpu - r.fetch.cpu);
    console.log(`  data tool CPU minus its bare fetch: ${spread(beyond, 1, " µs")}`);
    if (scenarios.includes("fetch written"))
      console.log(
        `  data tool CPU minus the fetch after one row written: ${spread(
          rows.map((r) => r.data.cpu - r["fetch written"].cpu),
          1,
          " µs",
        )}`,
      );
    if (scenarios.includes("read"))
      console.log(
        `  that, × the read call's CPU: ${spread(
          rows.map((r) => (r.data.cpu - r.fetch.cpu) / r.read.cpu),
          2,
        )}×`,
      );
  }
}

function report({ step, sizes, byRound: rows, cold, snapshots }: CostReport): void {
  const of = (scenario: Scenario, field: keyof Measure): number[] => rows.map((r) => r[scenario][field]);
  const ratio = (scenario: Scenario): number[] => rows.map((r) => r[scenario].cpu / r.insert.cpu);
  console.log(
    `\nInside workerd (bench/cost-worker.ts under wrangler dev), per call, ${ROUNDS} interleaved rounds after a warm-up round and ${WARM_BATCHES} warm-up batches of each; median [min–max] over rounds.`,
  );
  console.log(
    "  CPU: the run time of that wrangler dev's workerd processes (/proc/<pid>/task/*/schedstat, ns, every thread) over the one request running the batch (its calls' inputs built by an earlier request), minus an empty batch's request;",
  );
  console.log(
    "  of which V8's helper threads: the part of it on the threads named `V8 DefaultWorker` (V8's background compiler and concurrent garbage collector, beside the isolate's own thread);",
  );
  console.log(
    `  wall: performance.now() around the batch inside the object or Worker (under wrangler dev it advances while code runs, step ${step === null ? "none: it stood still" : `${step} ms`}).`,
  );
  if (!HAS_PROC) console.log("  (no /proc on this system: CPU and resident memory are not measured, NaN below)");
  console.log(
    `  An empty batch's request costs ${spread(
      rows.map((r) => r.empty),
      0,
      " µs",
    )} of CPU (subtracted). Wall times include waiting for a core when the machine is busy; CPU does not.`,
  );
  console.log(
    `  ${"scenario".padEnd(54)}${"batch".padStart(6)}   ${"CPU µs".padEnd(26)}${"of which V8's helpers".padEnd(24)}${"× bare insert (CPU)".padEnd(23)}wall µs`,
  );
  const line = (label: string, scenario: Scenario): void =>
    console.log(
      `  ${label.padEnd(54)}${String(sizes[scenario]).padStart(6)}   ${spread(of(scenario, "cpu"), 1).padEnd(26)}${spread(of(scenario, "helpers"), 1).padEnd(24)}${(scenario === "insert" ? "1" : spread(ratio(scenario), 1)).padEnd(23)}${spread(of(scenario, "wall"), 1)}`,
    );
  line("bare SQLite insert (same object)", "insert");
  line("a read call's rows without the gate's code (object)", "rows");
  line("read call get_order (object)", "read");
  line("approved write create_refund_draft: the run (object)", "write");
  line("data tool lookup_customer, CEL authorize (object)", "data");
  line("  bare fetch of the same downstream URL (object)", "fetch");
  line("  the same fetch after one row written (object)", "fetch written");
  line("MCP tools/call get_order (object)", "mcp");
  line("the Worker's share of POST …/tool-calls (route only)", "worker read");
  line("the Worker's share of POST …/mcp (route only)", "worker mcp");
  const sum = (a: Scenario, b: Scenario): number[] => rows.map((r) => r[a].cpu + r[b].cpu);
  console.log(
    `  CPU of the data tool minus its bare fetch ${spread(
      rows.map((r) => r.data.cpu - r.fetch.cpu),
      1,
      " µs",
    )}; read call, Worker + object ${spread(sum("read", "worker read"), 1, " µs")}; MCP tools/call, Worker + object ${spread(sum("mcp", "worker mcp"), 1, " µs")}`,
  );
  if (cold === undefined || snapshots === undefined) return;
  const [first, warm] = cold.wall;
  const [firstCpu, warmCpu] = cold.cpu;
  const wallRatio = first.map((c, k) => c / (warm[k] ?? NaN));
  const cpuRatio = firstCpu.map((c, k) => c / (warmCpu[k] ?? NaN));
  console.log(
    `\nCold object: ${COLD_CONSUMERS} new consumers, each configured, its object reset (ctx.abort; the Worker's isolate stays warm), then its first read call over HTTP beside the median of its next ${WARM_CALLS}:`,
  );
  console.log(
    `  wall  first ${spread(first, 0, " µs")}, warm ${spread(warm, 0, " µs")}: ${spread(wallRatio)}×   goal ≤ ${GOALS.coldVsWarm.toFixed(2)}×  ${verdict(median(wallRatio), GOALS.coldVsWarm)}`,
  );
  console.log(`  CPU   first ${spread(firstCpu, 0, " µs")}, warm ${spread(warmCpu, 0, " µs")}: ${spread(cpuRatio)}×`);
  console.log(
    `\nMemory of one consumer object (${MEMORY_CREDENTIALS} agent credentials, read calls spread over them, run inside the object in batches of ${CALLS_PER_REQUEST}), entries after each count of calls:`,
  );
  const header = snapshots.map((s) => `${s.calls.toLocaleString("en-US")} calls`.padStart(14)).join("");
  console.log(`  ${"structure".padEnd(36)}${header}   cap`);
  for (const [i, held] of (snapshots[0]?.held ?? []).entries()) {
    const counts = snapshots.map((s) => String(s.held[i]?.entries).padStart(14)).join("");
    console.log(
      `  ${held.structure.padEnd(36)}${counts}   ${held.cap === null ? held.bound : `${held.cap} (${held.bound})`}`,
    );
  }
  console.log(
    `  ${"workerd resident memory, MB".padEnd(36)}${snapshots.map((s) => s.rss.toFixed(1).padStart(14)).join("")}   (the whole process: every object, SQLite's page cache)`,
  );
}

/** The gate's own cost (issue #17 point 3): the round-trip goals, then the cost inside workerd. */
export async function gateCost(options: GateCostOptions): Promise<void> {
  await productionRoundTrips(options);
  await insideWorkerd();
}

/** One answer: its status and body text. */
export interface Reply {
  status: number;
  body: string;
}

/** Sends one request (`token` as a bearer credential, `body` JSON text, `extra` headers). */
export type Send = (
  method: string,
  path: string,
  token: string,
  body?: string,
  extra?: Record<string, string>,
) => Promise<Reply>;

/** Keep-alive requests to 127.0.0.1:`port` through `agent`. */
export type Requester = (port: number, agent: http.Agent) => Send;

/** What {@link gateCost} takes: the bench's own wrangler dev and the c = 1 samples it measured, by scenario. */
export interface GateCostOptions {
  port: number;
  admin: string;
  agent: string;
  samples: Record<string, number[]>;
  perRound: number;
}

/** The batches measured inside workerd, in their first round's order. */
export type Scenario =
  | "insert"
  /** A read call's rows (call identity, audit entry, Merkle nodes) in tables shaped like the gate's and in its two transactions, without its code. */
  | "rows"
  | "read"
  | "write"
  | "data"
  | "fetch"
  /** The bare fetch after one row written in the object, so it waits for a durable write as each data tool call's does. */
  | "fetch written"
  | "mcp"
  | "worker read"
  | "worker mcp"
  /** The data tool with its downstream answered inside the object: no network, the gate's share only (partial runs). */
  | "data local";
export const SCENARIOS: readonly Scenario[] = [
  "insert",
  "rows",
  "read",
  "write",
  "data",
  "fetch",
  "fetch written",
  "mcp",
  "worker read",
  "worker mcp",
];
/** Every scenario a partial run may name (`InsideOptions.scenarios`): the full run's and those for partial runs only. */
export const ALL_SCENARIOS: readonly Scenario[] = [...SCENARIOS, "data local"];

/** One batch's cost per call, in µs: `helpers` is the part of `cpu` on V8's helper threads. */
interface Measure {
  cpu: number;
  wall: number;
  helpers: number;
}

/** One round: an empty batch's CPU and each scenario's measure. */
type Round = { empty: number } & Record<Scenario, Measure>;

/** What one structure of the object holds (bench/cost-worker.ts, op "memory"). */
interface Held {
  structure: string;
  entries: number;
  cap: number | null;
  bound: string;
}

/** The memory figures after a number of calls. */
interface Snapshot {
  calls: number;
  rss: number;
  held: Held[];
}

/** The fields the answers of bench/cost-worker.ts carry, by operation. */
interface BenchAnswer {
  ms?: number;
  step?: number | null;
  sessionId?: string;
  serial?: number;
  held?: Held[];
  changes?: number;
  tables?: Record<string, number>;
}

/** Everything {@link report} prints. */
interface CostReport {
  step: number | null | undefined;
  sizes: Record<Scenario, number>;
  byRound: Round[];
  /** Absent in a quick run (`insideWorkerd`'s `quick`), as are the memory snapshots. */
  cold?: { wall: [number[], number[]]; cpu: [number[], number[]] };
  snapshots?: Snapshot[];
}
