// `npm run bench:http`: the gate's read path vs a bare round trip to the same Durable Object
// (and vs one small SQLite write in it, since every read call records its audit and call identity),
// under `wrangler dev` on 127.0.0.1 only. Bounded: at most ROUNDS × PER_ROUND sequential
// requests per scenario, and CONCURRENT_REQUESTS (or 20 s) per scenario at 8 clients.
// `npm run bench:http -- --cost` runs only the part on the cost worker (tools/lib/bench-http-cost.ts
// `insideWorkerd`: the round-trip goals, the CPU per call inside workerd and the goal table), about
// a third of the whole run's time; `--port N` puts its gate on 127.0.0.1:N and the demo service on
// N + 1 (wrangler's inspector on N + 2); `--quick` leaves out its cold objects and memory (the CPU rounds and the goal table only).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gateCost, insideWorkerd, requester, type Reply } from "./lib/bench-http-cost.ts";
import { ROOT } from "./lib/paths.ts";
import { call, freePort, freshSecrets, startWranglerDev, waitHealthy } from "./lib/wrangler-dev.ts";

const ROUNDS = 5;
const PER_ROUND = 240; // 1,200 sequential calls per scenario
const WARMUP = 100;
const CONCURRENCY = 8;
const CONCURRENT_REQUESTS = 1_500;
const CELL_LIMIT_MS = 20_000;
const CONSUMER = "tenant-a";

const agentPool = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function send(port: number, method: string, path: string, token: string, body?: string): Promise<Reply> {
  return requester(port, agentPool)(method, path, token, body);
}

// Bytes stored per call (docs/storage.md, "Retention"): the consumer object's SQLite size, read
// from the admin's `GET /v1/consumers/{c}` (`storage_bytes`), before and after STORAGE_CALLS
// sequential read calls. With BENCH_RETENTION=1 the window is then set to its minimum (60 s),
// the bench waits for the sweep, and measures the same number of calls again: freed pages are
// reused, so the second figure is what a consumer in its steady state adds per call.
const STORAGE_CALLS = 2_000;
const RETENTION_WAIT_MS = 130_000;

async function storagePerCall(port: number, base: string, admin: string, agent: string): Promise<void> {
  const size = async (): Promise<number> =>
    (await call<{ storage_bytes: number }>(base, "GET", `/v1/consumers/${CONSUMER}`, admin)).storage_bytes;
  const drive = async (label: string): Promise<{ before: number; after: number }> => {
    const before = await size();
    for (let i = 1; i <= STORAGE_CALLS; i++) {
      const body = JSON.stringify({
        principal: { subject_id: "user-1", roles: [] },
        proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
        context: {
          call_id: `store-${label}-${i}`,
          operation_id: `op-store-${label}-${i}`,
          idempotency_key: null,
          provider: "openai",
          api_family: "responses",
          response_id: "resp-store",
          adapter_revision: "openai-responses-v1",
        },
      });
      const res = await send(port, "POST", `/v1/consumers/${CONSUMER}/tool-calls`, agent, body);
      if (res.status !== 200) throw new Error(`storage bench call ${i}: ${res.status} ${res.body.slice(0, 300)}`);
    }
    const after = await size();
    console.log(
      `storage, ${label}: ${STORAGE_CALLS} read calls, database ${mb(before)} → ${mb(after)} MB: ${((after - before) / STORAGE_CALLS).toFixed(0)} bytes stored per call`,
    );
    return { before, after };
  };
  const mb = (bytes: number): string => (bytes / 1_000_000).toFixed(2);
  const first = await drive("window 24 h (default)");
  if (process.env.BENCH_RETENTION !== "1") {
    console.log(
      "storage after expiry: not measured (BENCH_RETENTION=1 sets a 60 s window, waits for the sweep and measures again)",
    );
    return;
  }
  await call(base, "PUT", `/v1/consumers/${CONSUMER}`, admin, {
    tools: ["get_order"],
    approver_subjects: [],
    limits: { calls_per_second: 1000000, call_burst: 1000000, retention_seconds: 60 },
  });
  // A call arms the sweep under the new window; then wait for the window and the sweep's spacing.
  await send(
    port,
    "POST",
    `/v1/consumers/${CONSUMER}/tool-calls`,
    agent,
    JSON.stringify({
      principal: { subject_id: "user-1", roles: [] },
      proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
      context: {
        call_id: "store-arm",
        operation_id: "op-store-arm",
        idempotency_key: null,
        provider: "openai",
        api_family: "responses",
        response_id: "resp-store",
        adapter_revision: "openai-responses-v1",
      },
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, RETENTION_WAIT_MS));
  const swept = await size();
  console.log(
    `storage, the sweep after the window: database ${mb(first.after)} → ${mb(swept)} MB (${((first.after - swept) / STORAGE_CALLS).toFixed(0)} bytes per expired call freed)`,
  );
  await drive("window 60 s, after the sweep");
  // The default window again, for whatever the bench measures next.
  await call(base, "PUT", `/v1/consumers/${CONSUMER}`, admin, {
    tools: ["get_order"],
    approver_subjects: [],
    limits: { calls_per_second: 1000000, call_burst: 1000000 },
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function timed(fn: () => Promise<Reply>): Promise<number> {
  const t0 = process.hrtime.bigint();
  const res = await fn();
  const us = Number(process.hrtime.bigint() - t0) / 1_000;
  if (res.status !== 200) throw new Error(`unexpected ${res.status}: ${res.body.slice(0, 300)}`);
  return us;
}

async function main(): Promise<void> {
  // Fresh random secrets, handed to wrangler dev through a 0600 env file (never its command line).
  const secrets = freshSecrets();
  const admin = secrets.TOOLGATE_ADMIN_TOKEN;
  const persistTo = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dev = startWranglerDev({ port, persistTo, secrets });
  try {
    const readyMs = await waitHealthy(base);
    // The benchmark measures the gate, not its rate limit.
    await call(base, "PUT", `/v1/consumers/${CONSUMER}`, admin, {
      tools: ["get_order"],
      approver_subjects: [],
      limits: { calls_per_second: 1000000, call_burst: 1000000 },
    });
    const agent = (
      await call<{ secret: string }>(base, "POST", `/v1/consumers/${CONSUMER}/credentials`, admin, { kind: "agent" })
    ).secret;
    let n = 0;
    const gateRead = (): Promise<Reply> => {
      n += 1;
      const body = JSON.stringify({
        principal: { subject_id: "user-1", roles: [] },
        proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
        context: {
          call_id: `call-${n}`,
          operation_id: `op-${n}`,
          idempotency_key: null,
          provider: "openai",
          api_family: "responses",
          response_id: "resp-bench",
          adapter_revision: "openai-responses-v1",
        },
      });
      return send(port, "POST", `/v1/consumers/${CONSUMER}/tool-calls`, agent, body);
    };
    const ping = (): Promise<Reply> => send(port, "GET", `/v1/consumers/${CONSUMER}/ping`, admin);
    // A third row: the admin consumer update (a write in the consumer's object, then one in the
    // directory's). The goals rank the read call against one write in the same object, measured
    // on the cost worker (tools/lib/bench-round-trips.ts).
    const write = (): Promise<Reply> =>
      send(
        port,
        "PUT",
        `/v1/consumers/${CONSUMER}`,
        admin,
        '{"tools":["get_order"],"approver_subjects":[],"limits":{"calls_per_second":1000000,"call_burst":1000000}}',
      );
    const scenarios: Record<string, () => Promise<Reply>> = {
      "bare DO round trip (ping)": ping,
      "PUT consumer (2 objects)": write,
      "gate read call (get_order)": gateRead,
    };

    for (const fn of Object.values(scenarios)) for (let i = 0; i < WARMUP; i++) await timed(fn);
    const samples: Record<string, number[]> = Object.fromEntries(Object.keys(scenarios).map((k) => [k, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, fn] of Object.entries(scenarios)) {
        const list = samples[name] ?? [];
        for (let i = 0; i < PER_ROUND; i++) list.push(await timed(fn));
      }
    }
    const throughput: Record<string, number> = {};
    for (const [name, fn] of Object.entries(scenarios)) {
      let sent = 0;
      const started = Date.now();
      const worker = async (): Promise<void> => {
        while (sent < CONCURRENT_REQUESTS && Date.now() - started < CELL_LIMIT_MS) {
          sent += 1;
          await timed(fn);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      throughput[name] = (sent / (Date.now() - started)) * 1000;
    }

    const rows = Object.entries(samples).map(([name, s]) => {
      const sorted = [...s].sort((a, b) => a - b);
      return {
        name,
        count: s.length,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        rps: throughput[name] ?? NaN,
      };
    });
    const [bare, writeRow, gate] = rows;
    if (bare === undefined || writeRow === undefined || gate === undefined)
      throw new Error("bench-http: a scenario is missing");
    console.log(
      `wrangler dev ready in ${readyMs} ms; ${ROUNDS} interleaved rounds of ${PER_ROUND} sequential calls per scenario (after ${WARMUP} warm-up calls each)\n`,
    );
    console.log("scenario                      calls   p50 µs   p99 µs   req/s @ c=8");
    for (const r of rows) {
      console.log(
        `${r.name.padEnd(29)} ${String(r.count).padStart(5)} ${r.p50.toFixed(0).padStart(8)} ${r.p99.toFixed(0).padStart(8)} ${r.rps.toFixed(0).padStart(13)}`,
      );
    }
    const p50 = gate.p50 / bare.p50;
    const p99 = gate.p99 / bare.p99;
    console.log(
      `\ngate / bare: p50 ${p50.toFixed(2)}×, p99 ${p99.toFixed(2)}× (the goals: "Goals over wrangler dev" below)`,
    );
    console.log(
      `throughput at c=${CONCURRENCY}: gate ${gate.rps.toFixed(0)} req/s vs bare ${bare.rps.toFixed(0)} req/s (${(gate.rps / bare.rps).toFixed(2)}×)`,
    );
    console.log(
      `gate / PUT consumer: p50 ${(gate.p50 / writeRow.p50).toFixed(2)}×, p99 ${(gate.p99 / writeRow.p99).toFixed(2)}×, throughput ${(gate.rps / writeRow.rps).toFixed(2)}×`,
    );
    // The audit append's own work per call (chain digest, export line, Merkle leaf and nodes), on
    // the same core in this process, beside the gate read call measured above; signing a
    // checkpoint is never on a call's path (docs/audit.md).
    const append = spawnSync(process.execPath, ["tools/run.js", "bench/audit-append.ts", "20000"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    if (append.status !== 0) throw new Error(`audit append bench failed: ${append.stderr.slice(0, 300)}`);
    // A line this run's own child process printed, not untrusted input.
    const { entries, us_per_append: perAppend } = JSON.parse(append.stdout.trim()) as {
      entries: number;
      us_per_append: number;
    };
    console.log(
      `audit append per call (chain digest + Merkle leaf and nodes, core in-process, ${entries} entries): ${perAppend.toFixed(1)} µs = ${((100 * perAppend) / gate.p50).toFixed(1)} % of the gate read call's p50`,
    );
    await storagePerCall(port, base, admin, agent);
    await gateCost({ port, admin, agent, samples, perRound: PER_ROUND });
  } finally {
    await dev.stop();
    agentPool.destroy();
    rmSync(persistTo, { recursive: true, force: true });
  }
}

const portArg = process.argv.indexOf("--port");
const costPort = portArg >= 0 ? Number(process.argv[portArg + 1]) : undefined;
const quick = process.argv.includes("--quick");
(process.argv.includes("--cost")
  ? insideWorkerd({
      port: costPort,
      servicePort: costPort === undefined ? undefined : costPort + 1,
      inspectorPort: costPort === undefined ? undefined : costPort + 2,
      quick,
    })
  : main()
).catch((error: unknown) => {
  console.error(`bench-http: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
