// Commands that run side by side on CI's two cores: each child's output is echoed in whole lines
// under its label (so two runs never interleave mid-line) and kept whole for the caller. Each lane
// ends with one line saying how long it ran, so a run's log shows where its time went.
import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { ROOT } from "./paths.ts";

/** One command of a side-by-side run. */
export interface Lane {
  /** Shown before each line it prints: `[label] …`. */
  readonly label: string;
  /** Arguments to node (the script first). */
  readonly args: readonly string[];
  /** Lines containing this text are kept in `out` but not echoed. */
  readonly quiet?: string;
  /** Killed (its whole process group) after this many milliseconds. */
  readonly budgetMs?: number;
  /** More environment variables for it. */
  readonly env?: Readonly<Record<string, string>>;
}

/** What a lane did. */
export interface LaneRun {
  readonly label: string;
  readonly code: number;
  /** Everything it printed, stdout then stderr as they came. */
  readonly out: string;
  /** How long it ran, in seconds. */
  readonly seconds: number;
}

/** How long a lane's output may still arrive after it exited (a grandchild may hold its pipes open). */
const DRAIN_MS = 2_000;

/** Runs `lane` with its output echoed line by line under its label. */
export function runLane(lane: Lane): Promise<LaneRun> {
  return new Promise((done) => {
    const started = Date.now();
    const child = spawn(process.execPath, [...lane.args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      // Its own process group, so a budget kill takes wrangler and workerd below it too.
      detached: true,
      env: { ...process.env, ...lane.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    let out = "";
    const echo = (line: string): string =>
      lane.quiet !== undefined && line.includes(lane.quiet) ? "" : `[${lane.label}] ${line}\n`;
    /** Resolves once the stream has ended (all its output read). */
    const take = (stream: Readable, sink: NodeJS.WriteStream): Promise<void> =>
      new Promise((ended) => {
        let partial = "";
        stream.setEncoding("utf8");
        stream.on("data", (text: string) => {
          out += text;
          const lines = (partial + text).split("\n");
          partial = lines.pop() ?? "";
          const shown = lines.map(echo).join("");
          if (shown !== "") sink.write(shown);
        });
        stream.on("end", () => {
          if (partial !== "") sink.write(echo(partial));
          ended();
        });
      });
    const drained = Promise.all([take(child.stdout, process.stdout), take(child.stderr, process.stderr)]);
    const budgetMs = lane.budgetMs === undefined ? undefined : Math.max(10_000, lane.budgetMs);
    const timer =
      budgetMs === undefined
        ? undefined
        : setTimeout(() => {
            const killed = `[${lane.label}] exceeded its budget of ${Math.round(budgetMs / 1000)} s; killed\n`;
            out += `\n${killed}`;
            process.stderr.write(killed);
            try {
              if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
            } catch {
              // already gone
            }
          }, budgetMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      const seconds = (Date.now() - started) / 1000;
      // "exit" can come before the last of its output is read: wait for both streams to end, but
      // not for a grandchild that still holds them open.
      const grace = new Promise((wait) => setTimeout(wait, DRAIN_MS).unref());
      void Promise.race([drained, grace]).then(() => {
        process.stdout.write(`[${lane.label}] finished in ${seconds.toFixed(1)} s, exit ${code ?? "signal"}\n`);
        done({ label: lane.label, code: code ?? 1, out, seconds });
      });
    });
  });
}
