// The CPU-per-call and throughput goals of `npm run bench:http` (issue #32, goals 2 and 4), each
// printed as median [min–max] over rounds beside its goal. The figures come from the cost worker's
// rounds (tools/lib/bench-http-cost.ts: CPU inside workerd, per thread from /proc, so other load on
// the machine does not inflate them) and from its 8-client rounds (tools/lib/bench-round-trips.ts).
// A call's CPU is the Worker's share plus the object's: the read and the MCP call have a Worker
// share of their own route; the data tool and the approved write go through the read call's route,
// so its Worker share is added to their object figure. Every ratio is taken within one round.

/** CPU in µs of one round's batches, per call (the scenarios of bench-http-cost.ts the goals use). */
export interface GoalRound {
  read: number;
  write: number;
  data: number;
  fetch: number;
  /** The bare fetch after one row written in the object: it waits for a durable write, as each data call's fetch does. */
  fetchWritten: number;
  mcp: number;
  workerRead: number;
  workerMcp: number;
}

/** The goals (issue #32). */
export const CPU_GOALS = {
  /** The read call, Worker + object: must, target (µs). */
  readMust: 150,
  readTarget: 100,
  /** MCP `tools/call` / the read call. */
  mcp: 1.2,
  /** A data tool with a CEL rule beyond its fetch / the read call. */
  data: 1.5,
  /** An approved write / the read call. */
  write: 2,
  /** 8 clients on one consumer: gate read calls per second / durable writes per second. */
  throughput: 0.9,
} as const;

const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return (s.length % 2 === 1 ? s[mid] : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2) ?? NaN;
};
const spread = (values: readonly number[], digits: number, unit: string): string =>
  `${median(values).toFixed(digits)}${unit} [${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}]`;

/** The goal figures per round: each call's CPU (Worker + object) and its ratio to the read call's. */
export function goalFigures(rounds: readonly GoalRound[]): GoalFigures {
  const read = rounds.map((r) => r.read + r.workerRead);
  const mcp = rounds.map((r) => r.mcp + r.workerMcp);
  const data = rounds.map((r) => r.data - r.fetch + r.workerRead);
  const write = rounds.map((r) => r.write + r.workerRead);
  const ratio = (of: readonly number[]): number[] => of.map((v, i) => v / (read[i] ?? NaN));
  return { read, mcp, data, write, mcpRatio: ratio(mcp), dataRatio: ratio(data), writeRatio: ratio(write) };
}

/** Prints the goals of issue #32 (2 and 4): each figure, its goal and whether the median meets it. */
export function printGoals(rounds: readonly GoalRound[], throughput: readonly number[]): void {
  const f = goalFigures(rounds);
  const verdict = (met: boolean): string => (met ? "met" : "NOT met");
  console.log(
    `\nGoals of issue #32 (2: CPU per call inside workerd, Worker + object; 4: throughput), median [min–max] over ${rounds.length} rounds:`,
  );
  const row = (label: string, cpu: readonly number[], ratio: string, goal: string, met: string): void =>
    console.log(`  ${label.padEnd(54)}${spread(cpu, 1, " µs").padEnd(30)}${ratio.padEnd(22)}${goal.padEnd(32)}${met}`);
  const readMedian = median(f.read);
  row(
    "read call get_order",
    f.read,
    "",
    `goal ≤ ${CPU_GOALS.readMust} µs (target ≤ ${CPU_GOALS.readTarget})`,
    `${verdict(readMedian <= CPU_GOALS.readMust)} (target ${readMedian <= CPU_GOALS.readTarget ? "met" : "not met"})`,
  );
  const relative = (label: string, cpu: readonly number[], ratio: readonly number[], goal: number): void =>
    row(
      label,
      cpu,
      `${spread(ratio, 2, "×")}`,
      `goal ≤ ${goal.toFixed(2)}× the read call`,
      verdict(median(ratio) <= goal),
    );
  relative("MCP tools/call get_order", f.mcp, f.mcpRatio, CPU_GOALS.mcp);
  relative("data tool lookup_customer (CEL), beyond its fetch", f.data, f.dataRatio, CPU_GOALS.data);
  // Informative, beside the goal's figure: in a batch the read calls' writes become durable together
  // (nothing leaves the object between them), while each data call's fetch waits for the rows
  // written since the last one left; a fetch that waits for one durable write too is the nearer baseline.
  const written = rounds.map((r) => r.data - r.fetchWritten + r.workerRead);
  row(
    "  the same beyond a fetch after one row written",
    written,
    spread(
      written.map((v, i) => v / (f.read[i] ?? NaN)),
      2,
      "×",
    ),
    "(informative)",
    "",
  );
  relative("approved write create_refund_draft (the run)", f.write, f.writeRatio, CPU_GOALS.write);
  console.log(
    `  ${"8 clients on one consumer: gate read / durable write".padEnd(54)}${"".padEnd(30)}${spread(throughput, 2, "×").padEnd(22)}${`goal ≥ ${CPU_GOALS.throughput.toFixed(2)}×`.padEnd(32)}${verdict(median(throughput) >= CPU_GOALS.throughput)}`,
  );
  console.log(
    "  (the data tool: its object CPU minus a bare fetch of the same URL, plus the read route's Worker share; the approved write: the run of an approved call in the object plus the same Worker share)",
  );
}

/** Each goal's figures per round. */
export interface GoalFigures {
  read: number[];
  mcp: number[];
  data: number[];
  write: number[];
  mcpRatio: number[];
  dataRatio: number[];
  writeRatio: number[];
}
