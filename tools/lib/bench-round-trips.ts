// The round-trip goals of `npm run bench:http` (issue #17, "The gate's own cost"), measured on the
// cost worker's wrangler dev (bench/cost-worker.ts: the production app and object plus benchmark
// routes), where both baselines are what the goals name:
// - a bare round trip: `POST /bench/rt/<consumer>/bare`, the Worker (admin check) → the consumer's
//   object → an empty answer;
// - one durable write in the same object: `POST /bench/rt/<consumer>/write`, the same path with one
//   small SQLite insert, committed before the answer leaves (a gate call's rows are too);
// - the gate read call: `POST /v1/consumers/<consumer>/tool-calls` (get_order), the production route;
// - beside them, informative: a bare round trip carrying a read call's bytes (its request body to
//   the object, an answer of its answer's length back), which splits the read call's cost into the
//   bytes' way through wrangler dev and RPC and the gate's own work; and the same read call handed
//   straight to the object's `toolCall` (`POST /bench/rt/<consumer>/object`: no credential tag,
//   routing or body contract in the Worker; the object authenticates, validates and runs it as
//   usual), which splits the gate's work into the Worker's share and the object's; and one durable
//   write of a read call's rows without the gate's code (`POST /bench/rt/<consumer>/rows`: shadow
//   tables shaped like the gate's, the same rows in the same two transactions), which splits the
//   object's share into its rows and its code.
// c = 1: the three interleaved call by call (each round rotates their order), p50 per round;
// c = 8: rounds of 8 concurrent clients, the gate read call beside the write baseline.
// Bounded: fixed counts, 127.0.0.1 only.
import http from "node:http";
import type { Requester } from "./bench-http-cost.ts";

const ROUNDS = 5;
const CALLS = 240; // per kind and round
const WARMUP = 100; // per kind
const RUN = 40; // calls of one kind in a row, in the informative runs
const THROUGHPUT_ROUNDS = 3;
const THROUGHPUT_REQUESTS = 600;
const CONCURRENCY = 8;
const GOALS = { readVsWrite: 1.1, readVsBare: 1.5, throughputVsWrite: 0.9 };

const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return (s.length % 2 === 1 ? s[mid] : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2) ?? NaN;
};
const p50 = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const spread = (values: readonly number[], digits = 2): string =>
  `${median(values).toFixed(digits)} [${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}]`;

/**
 * Measures and prints the goals. `requester(port, agent)` sends keep-alive requests; `readBody(id)`
 * is a read call's body; `consumer` has get_order and no rate limit; `agentToken` may call it.
 * Answers the throughput ratio of each 8-client round (gate read calls / durable writes per second).
 */
export async function roundTripGoals({
  port,
  admin,
  agentToken,
  consumer,
  requester,
  readBody,
}: RoundTripOptions): Promise<number[]> {
  const pool = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const send = requester(port, pool);
  let n = 0;
  const sample = await send("POST", `/v1/consumers/${consumer}/tool-calls`, agentToken, readBody("rt-size"));
  const answerBytes = Buffer.byteLength(sample.body);
  const kinds: Record<Kind, () => Promise<{ status: number; body: string }>> = {
    bare: () => send("POST", `/bench/rt/${consumer}/bare`, admin),
    carrying: () => send("POST", `/bench/rt/${consumer}/carrying?answer=${answerBytes}`, admin, readBody(`rt-c-${n}`)),
    write: () => send("POST", `/bench/rt/${consumer}/write`, admin),
    rows: () => send("POST", `/bench/rt/${consumer}/rows`, admin),
    object: () =>
      send("POST", `/bench/rt/${consumer}/object`, admin, readBody(`rt-o-${++n}`), { "x-agent-token": agentToken }),
    gate: () => send("POST", `/v1/consumers/${consumer}/tool-calls`, agentToken, readBody(`rt-${++n}`)),
  };
  const names = KINDS;
  const once = async (kind: Kind): Promise<number> => {
    const started = process.hrtime.bigint();
    const res = await kinds[kind]();
    if (res.status !== 200) throw new Error(`round trip ${kind}: ${res.status} ${res.body.slice(0, 200)}`);
    return Number(process.hrtime.bigint() - started) / 1000;
  };
  try {
    for (const kind of names) for (let i = 0; i < WARMUP; i++) await once(kind);
    const perRound = byKind();
    for (let round = 0; round < ROUNDS; round++) {
      const samples = byKind();
      for (let i = 0; i < CALLS; i++)
        for (let k = 0; k < names.length; k++) {
          const kind = names[(i + k + round) % names.length] ?? "bare";
          samples[kind].push(await once(kind));
        }
      for (const kind of names) perRound[kind].push(p50(samples[kind]));
    }
    // Informative: the same three kinds in runs of RUN calls of one kind (the kinds alternating run by
    // run), so each runs in its own steady state rather than after a call of another kind.
    const inRuns: InRuns = { bare: [], write: [], gate: [] };
    for (let round = 0; round < ROUNDS; round++) {
      const samples: InRuns = { bare: [], write: [], gate: [] };
      for (let i = 0; i < CALLS / RUN; i++)
        for (const kind of RUN_KINDS) for (let j = 0; j < RUN; j++) samples[kind].push(await once(kind));
      for (const kind of RUN_KINDS) inRuns[kind].push(p50(samples[kind]));
    }
    const throughput = await throughputRounds(THROUGHPUT_ROUNDS, THROUGHPUT_REQUESTS, CONCURRENCY, once);
    report(perRound, throughput, { request: Buffer.byteLength(readBody("rt-size")), answer: answerBytes }, inRuns);
    return throughput.map((r) => r.gate / r.write);
  } finally {
    pool.destroy();
  }
}

/**
 * Requests per second of "gate" and "write" (`once(kind)` sends one and checks it), `rounds` rounds
 * of `requests` each from `concurrency` clients, the two kinds' order alternating per round.
 */
export async function throughputRounds(
  rounds: number,
  requests: number,
  concurrency: number,
  once: (kind: "gate" | "write") => Promise<unknown>,
): Promise<Throughput[]> {
  const throughput: Throughput[] = [];
  for (let round = 0; round < rounds; round++) {
    const rps: Throughput = { gate: NaN, write: NaN };
    for (const kind of round % 2 === 0 ? (["gate", "write"] as const) : (["write", "gate"] as const)) {
      let sent = 0;
      const started = process.hrtime.bigint();
      const client = async (): Promise<void> => {
        while (sent < requests) {
          sent += 1;
          await once(kind);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, client));
      rps[kind] = sent / (Number(process.hrtime.bigint() - started) / 1e9);
    }
    throughput.push(rps);
  }
  return throughput;
}

function report(
  perRound: Record<Kind, number[]>,
  throughput: readonly Throughput[],
  bytes: { request: number; answer: number },
  inRuns: InRuns,
): void {
  const ratio = (a: Kind, b: Kind): number[] => perRound[a].map((v, r) => v / (perRound[b][r] ?? NaN));
  const vsWrite = ratio("gate", "write");
  const vsBare = ratio("gate", "bare");
  const tp = throughput.map((r) => r.gate / r.write);
  console.log(
    `\nGoals over wrangler dev (issue #17), on the cost worker's wrangler dev; median [min–max] over rounds.`,
  );
  console.log(
    `  c = 1 p50 in µs, ${ROUNDS} rounds of ${CALLS} calls of each kind, interleaved call by call (after ${WARMUP} warm-up calls each):`,
  );
  for (const [kind, label] of [
    ["bare", "bare round trip (Worker → object → empty answer)"],
    ["carrying", `  the same, carrying a read call's bytes (${bytes.request} B in, ${bytes.answer} B out)`],
    ["write", "one durable write in the same object (one SQLite insert)"],
    ["rows", "  a read call's rows, without the gate's code"],
    ["object", "  the same read call handed straight to the object"],
    ["gate", "gate read call (POST …/tool-calls, get_order)"],
  ] satisfies Array<[Kind, string]>) {
    console.log(`    ${label.padEnd(60)}${spread(perRound[kind], 0)}`);
  }
  const goal = (label: string, values: readonly number[], text: string, met: boolean, note = ""): void =>
    console.log(
      `  ${label.padEnd(44)}${`${spread(values)}×`.padEnd(22)}${text.padEnd(15)}${met ? "met" : "NOT met"}   ${note}`,
    );
  goal(
    "gate read / one durable write, c=1 p50",
    vsWrite,
    `goal ≤ ${GOALS.readVsWrite.toFixed(2)}×`,
    median(vsWrite) <= GOALS.readVsWrite,
  );
  goal(
    "gate read / bare round trip, c=1 p50",
    vsBare,
    `goal ≤ ${GOALS.readVsBare.toFixed(2)}×`,
    median(vsBare) <= GOALS.readVsBare,
  );
  console.log(
    `  ${"  carrying the bytes / bare round trip".padEnd(44)}${`${spread(ratio("carrying", "bare"))}×`.padEnd(22)}(what moving a read call's request and answer costs here, before any gate work)`,
  );
  console.log(
    `  ${"  one durable write / bare round trip".padEnd(44)}${`${spread(ratio("write", "bare"))}×`.padEnd(22)}(what committing one row costs here: the floor of any call that commits before it answers)`,
  );
  const share = (a: Kind, b: Kind): number[] => perRound[a].map((v, r) => v - (perRound[b][r] ?? NaN));
  console.log(
    `  ${"  the gate's work, object's share".padEnd(44)}${`${spread(share("object", "write"), 0)} µs`.padEnd(22)}(read call straight to the object − one durable write, per round)`,
  );
  console.log(
    `  ${"    of which its rows".padEnd(44)}${`${spread(share("rows", "write"), 0)} µs`.padEnd(22)}(a read call's rows without the gate's code − one durable write)`,
  );
  console.log(
    `  ${"    of which its code".padEnd(44)}${`${spread(share("object", "rows"), 0)} µs`.padEnd(22)}(read call straight to the object − its rows alone)`,
  );
  console.log(
    `  ${"  the gate's work, Worker's share".padEnd(44)}${`${spread(share("gate", "object"), 0)} µs`.padEnd(22)}(gate read call − the same straight to the object: credential tag, routing, body contract)`,
  );
  const runRatio = (a: keyof InRuns, b: keyof InRuns): number[] => inRuns[a].map((v, r) => v / (inRuns[b][r] ?? NaN));
  console.log(
    `  ${"  informative, in runs of one kind:".padEnd(44)}gate read / one durable write ${spread(runRatio("gate", "write"))}×, / bare ${spread(runRatio("gate", "bare"))}× (${ROUNDS} rounds of ${CALLS} calls per kind in runs of ${RUN}, each kind after calls of its own; p50 µs: bare ${spread(inRuns.bare, 0)}, write ${spread(inRuns.write, 0)}, gate ${spread(inRuns.gate, 0)})`,
  );
  const rps = (kind: keyof Throughput): string =>
    spread(
      throughput.map((r) => r[kind]),
      0,
    );
  goal(
    `gate read / one durable write, c=${CONCURRENCY} req/s`,
    tp,
    `goal ≥ ${GOALS.throughputVsWrite.toFixed(2)}×`,
    median(tp) >= GOALS.throughputVsWrite,
    `(${THROUGHPUT_ROUNDS} rounds of ${THROUGHPUT_REQUESTS} requests; gate ${rps("gate")} req/s, write ${rps("write")} req/s)`,
  );
}

/** The kinds of request measured, in the order they are first sent. */
type Kind = "bare" | "carrying" | "write" | "rows" | "object" | "gate";
const KINDS: readonly Kind[] = ["bare", "carrying", "write", "rows", "object", "gate"];
/** The kinds also measured in runs of one kind. */
type InRuns = Record<"bare" | "write" | "gate", number[]>;
const RUN_KINDS = ["bare", "write", "gate"] as const;

/** Requests per second of the gate read call and of the write baseline, in one round. */
export interface Throughput {
  gate: number;
  write: number;
}

/** An empty list per kind. */
const byKind = (): Record<Kind, number[]> => ({ bare: [], carrying: [], write: [], rows: [], object: [], gate: [] });

/** What {@link roundTripGoals} takes. */
export interface RoundTripOptions {
  port: number;
  admin: string;
  agentToken: string;
  consumer: string;
  requester: Requester;
  readBody: (id: string) => string;
}
