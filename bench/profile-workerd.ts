// Where a gate call's CPU goes inside workerd: runs bench/cost-worker.ts under `wrangler dev` with
// its inspector on, sets up one consumer as `npm run bench:http` does, and profiles batches of one
// scenario (read calls or MCP tools/call in the object, or the Worker's share of either) with
// V8's sampling profiler over the inspector (CDP Profiler.start/stop); prints the functions with
// the most self time and, by caller, the most total time. Not part of `npm run bench:http`.
//
//   node tools/run.js bench/profile-workerd.ts [--scenario read|mcp|write|data|data local|worker read|worker mcp]
//        [--batches 20] [--n 500] [--top 40] [--port 8940] [--save FILE.cpuprofile] [--minified] [--heap]
//
// `--heap`: where the calls allocate instead (V8's sampling heap profiler, every allocation
// counted, also what the collector has freed by the end): bytes per call by allocating function.
//
// Bounded: fixed counts, 127.0.0.1 only; the wrangler dev it starts is stopped.
import { spawn, type SpawnOptions } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { requester } from "../tools/lib/bench-http-cost.ts";
import { demoTools, startDemoService, type DemoService } from "../tools/lib/demo-service.ts";
import { call, DEV_SETTINGS, freshSecrets, startWranglerDev, waitHealthy } from "../tools/lib/wrangler-dev.ts";

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

const scenario = option("--scenario", "read");
const batches = Number(option("--batches", "20"));
const n = Number(option("--n", "500"));
const top = Number(option("--top", "40"));
const port = Number(option("--port", "8940"));
const inspectorPort = port + 1;
const save = option("--save", "");
// Unminified by default, so the profile names functions (`--minified`: the bundle as deployed).
const names = !process.argv.includes("--minified");
const heap = process.argv.includes("--heap");
const CONSUMER = "tenant-a";
const UNLIMITED = { calls_per_second: 1000000, call_burst: 1000000 };

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface Node {
  id: number;
  callFrame: Frame;
  children?: number[];
}
interface HeapNode {
  callFrame: Frame;
  selfSize: number;
  children: HeapNode[];
}
interface Profile {
  nodes: Node[];
  samples?: number[];
  timeDeltas?: number[];
}

/** One CDP session over the inspector's WebSocket. */
async function inspector(
  url: string,
): Promise<{ post: <T>(method: string, params?: object) => Promise<T>; close: () => void }> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  ws.on("message", (data: Buffer) => {
    // The inspector of the workerd this script started.
    const message = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
    if (message.id === undefined) return;
    const w = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.error !== undefined) w?.reject(new Error(message.error.message));
    else w?.resolve(message.result);
  });
  return {
    post: <T>(method: string, params: object = {}) =>
      new Promise<T>((resolve, reject) => {
        const id = ++next;
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

async function main(): Promise<void> {
  const secrets = { ...freshSecrets(), ...DEV_SETTINGS };
  const admin = secrets.TOOLGATE_ADMIN_TOKEN;
  const persistTo = mkdtempSync(join(tmpdir(), "toolgate-profile-"));
  const base = `http://127.0.0.1:${port}`;
  const withEntry = (command: string, [cli = "", dev = "", ...rest]: string[], options: SpawnOptions) =>
    spawn(
      command,
      [
        cli,
        dev,
        "bench/cost-worker.ts",
        "--inspector-port",
        String(inspectorPort),
        ...(names ? ["--minify=false"] : []),
        ...rest,
      ],
      options,
    );
  const dev = startWranglerDev({ port, persistTo, secrets, spawnProcess: withEntry });
  const pool = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = requester(port, pool);
  let service: DemoService | undefined;
  const bench = async (where: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const res = await send("POST", `/bench/${where}`, admin, JSON.stringify(body));
    if (res.status !== 200) throw new Error(`bench ${where}: ${res.status} ${res.body.slice(0, 400)}`);
    // The answer of bench/cost-worker.ts, run by this process.
    return JSON.parse(res.body) as Record<string, unknown>;
  };
  try {
    await waitHealthy(base);
    await call(base, "PUT", `/v1/consumers/${CONSUMER}`, admin, {
      tools: ["get_order", "create_refund_draft"],
      approver_subjects: ["human-reviewer-1"],
      limits: UNLIMITED,
    });
    if (scenario === "data local" || scenario === "data") {
      // The bench's data tool (CEL authorize). `data`: its target is the demo service on
      // 127.0.0.1, which checks each request's signature; `data local`: its downstream is answered
      // inside the object, so the URL is never reached.
      const serviceToken = "bench-service-token-0123456789abcdef";
      if (scenario === "data")
        service = await startDemoService({
          keys: { [CONSUMER]: `${base}/v1/consumers/${CONSUMER}/signing-keys` },
          token: serviceToken,
        });
      const tools = demoTools(service?.base ?? "http://127.0.0.1:9", "bench_service_token");
      await call(base, "PUT", `/v1/consumers/${CONSUMER}/secrets/bench_service_token`, admin, {
        value: serviceToken,
      });
      await call(base, "PUT", `/v1/consumers/${CONSUMER}/tools/lookup_customer`, admin, tools.lookup_customer);
      await call(base, "PUT", `/v1/consumers/${CONSUMER}`, admin, {
        tools: ["get_order", "create_refund_draft", "lookup_customer"],
        approver_subjects: ["human-reviewer-1"],
        limits: UNLIMITED,
      });
    }
    const mint = async (body: Record<string, unknown>): Promise<string> =>
      (await call<{ secret: string }>(base, "POST", `/v1/consumers/${CONSUMER}/credentials`, admin, body)).secret;
    const tokens = {
      agent: await mint({ kind: "agent", roles: ["support"] }),
      approver: await mint({ kind: "approver", subject_id: "human-reviewer-1" }),
      mcp: await mint({ kind: "agent", subject_id: "user-1" }),
    };
    const object = (op: Record<string, unknown>) => bench("object", { consumer: CONSUMER, op });
    const { sessionId } = (await object({ kind: "mcpSession", tokens })) as { sessionId: string };
    const worker = scenario.startsWith("worker ") ? scenario.slice(7) : null;
    const workerOp = (count: number, run?: string, prepare?: boolean) => ({
      consumer: CONSUMER,
      scenario: worker,
      n: count,
      token: worker === "mcp" ? tokens.mcp : tokens.agent,
      sessionId,
      run,
      prepare,
    });
    if (worker !== null) await bench("worker", workerOp(0));
    let runs = 0;
    const local = scenario === "data local";
    const name = local ? "data" : scenario;
    // A batch's inputs (and, for the write, its approvals) are made before the profiler starts, so
    // the profile holds the timed calls alone.
    const prepare = async (run: string): Promise<void> => {
      if (worker !== null) await bench("worker", workerOp(n, run, true));
      else {
        if (name === "write") await object({ kind: "prepareWrites", run, n, tokens });
        await object({ kind: "prepare", scenario: name, run, n });
      }
    };
    const time = async (run: string): Promise<number> =>
      worker !== null
        ? ((await bench("worker", workerOp(n, run))).ms as number)
        : ((await object({ kind: "time", scenario: name, run, n, tokens, sessionId, local })).ms as number);
    for (let i = 0; i < 3; i++) {
      const run = `w${++runs}`;
      await prepare(run);
      await time(run);
    }
    const profiled = Array.from({ length: batches }, () => `p${++runs}`);
    for (const run of profiled) await prepare(run);

    const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as {
      webSocketDebuggerUrl: string;
      title?: string;
    }[];
    const target = targets.find((t) => !(t.title ?? "").includes("wrangler")) ?? targets[0];
    if (target === undefined) throw new Error("no inspector target");
    const session = await inspector(target.webSocketDebuggerUrl);
    if (heap) {
      await session.post("HeapProfiler.enable");
      await session.post("HeapProfiler.startSampling", {
        samplingInterval: 256,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      let heapMs = 0;
      for (const run of profiled) heapMs += await time(run);
      const { profile } = await session.post<{ profile: { head: HeapNode } }>("HeapProfiler.stopSampling");
      session.close();
      if (save !== "") writeFileSync(save, JSON.stringify(profile));
      const calls = batches * n;
      const bySite = new Map<string, number>();
      const byTotal = new Map<string, number>();
      let all = 0;
      const walk = (node: HeapNode, path: readonly string[]): number => {
        const f = node.callFrame;
        const file = f.url.split("/").slice(-1)[0] ?? "";
        const key = `${f.functionName || "(anonymous)"}${file === "" ? "" : ` ${file}:${f.lineNumber + 1}`}`;
        bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
        all += node.selfSize;
        const below = node.selfSize + node.children.reduce((sum, c) => sum + walk(c, [...path, key]), 0);
        if (!path.includes(key)) byTotal.set(key, (byTotal.get(key) ?? 0) + below);
        return below;
      };
      walk(profile.head, []);
      console.log(
        `${scenario}: ${calls} calls, wall ${((heapMs * 1000) / calls).toFixed(1)} µs/call under the heap profiler; ${(all / calls).toFixed(0)} bytes allocated per call (sampled every 256 bytes)`,
      );
      console.log(`\ntop ${top} allocating functions (bytes per call):`);
      for (const [key, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top))
        console.log(`${(bytes / calls).toFixed(0).padStart(8)}  ${key}`);
      console.log(`\ntop ${top * 2} by bytes allocated below them (bytes per call):`);
      for (const [key, bytes] of [...byTotal].sort((a, b) => b[1] - a[1]).slice(0, top * 2))
        console.log(`${(bytes / calls).toFixed(0).padStart(8)}  ${key}`);
      return;
    }
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 50 });
    await session.post("Profiler.start");
    let ms = 0;
    for (const run of profiled) ms += await time(run);
    const { profile } = await session.post<{ profile: Profile }>("Profiler.stop");
    session.close();
    if (save !== "") writeFileSync(save, JSON.stringify(profile));

    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parent = new Map<number, number>();
    for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
    const keyOf = (frame: Frame): string => {
      const file = frame.url.split("/").slice(-1)[0] ?? "";
      return `${frame.functionName || "(anonymous)"}${file === "" ? "" : ` ${file}:${frame.lineNumber + 1}`}`;
    };
    const self = new Map<string, number>();
    const total = new Map<string, number>();
    let all = 0;
    let idle = 0;
    (profile.samples ?? []).forEach((id, i) => {
      const dt = profile.timeDeltas?.[i] ?? 0;
      const frame = byId.get(id)?.callFrame;
      if (frame === undefined) return;
      if (frame.functionName === "(idle)" || frame.functionName === "(program)") {
        idle += dt;
        return;
      }
      all += dt;
      self.set(keyOf(frame), (self.get(keyOf(frame)) ?? 0) + dt);
      const seen = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const f = byId.get(at)?.callFrame;
        if (f === undefined) continue;
        const k = keyOf(f);
        if (seen.has(k)) continue;
        seen.add(k);
        total.set(k, (total.get(k) ?? 0) + dt);
      }
    });
    const calls = batches * n;
    console.log(
      `${scenario}: ${calls} calls, wall ${((ms * 1000) / calls).toFixed(1)} µs/call under the profiler; JS samples ${(all / calls).toFixed(1)} µs/call, idle/program ${(idle / calls).toFixed(1)} µs/call`,
    );
    console.log(`\ntop ${top} by self time (µs per call, share of JS samples):`);
    for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`${(us / calls).toFixed(2).padStart(8)}  ${((100 * us) / all).toFixed(1).padStart(5)} %  ${key}`);
    console.log(`\ntop ${top * 2} by total time:`);
    for (const [key, us] of [...total].sort((a, b) => b[1] - a[1]).slice(0, top * 2))
      console.log(`${(us / calls).toFixed(2).padStart(8)}  ${((100 * us) / all).toFixed(1).padStart(5)} %  ${key}`);
  } finally {
    pool.destroy();
    await service?.close();
    await dev.stop();
    rmSync(persistTo, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`profile-workerd: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
