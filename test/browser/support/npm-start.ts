/**
 * Runs the gate as `npm start` serves it: `node tools/run.js tools/start.ts` (wrangler dev behind the
 * strict HTTP/1.1 local edge, the demo service, the demo consumers) as a child in its own
 * process group, on a chosen public port, with its own persistence folder and secrets file
 * (TOOLGATE_STATE_DIR, TOOLGATE_DEV_VARS), so a developer's `.toolgate/state` and `.dev.vars`
 * are never read or written.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";

const ROOT = resolve(__dirname, "..", "..", "..");

/** A running `npm start`. */
export interface NpmStart {
  /** The local edge's origin, `http://127.0.0.1:<port>`. */
  readonly base: string;
  /** SIGKILL every process group it started (start.js, wrangler, workerd): a crash. */
  kill(): Promise<void>;
  /** SIGTERM start.js (it stops the edge, wrangler and the demo service), then SIGKILL what is left. */
  stop(): Promise<void>;
  /** The last lines it printed, credentials masked (for failure messages). */
  output(): string;
}

/** Options of {@link startNpmStart}. */
export interface NpmStartOptions {
  /** The public port (TOOLGATE_PORT). */
  port: number;
  /** The persistence folder (TOOLGATE_STATE_DIR). */
  stateDir: string;
  /** The secrets file start.js reads and completes (TOOLGATE_DEV_VARS). */
  devVars: string;
}

/** The process groups of `pid` and of every process below it (wrangler and workerd run in their own). */
function groupsBelow(pid: number): number[] {
  let table: string;
  try {
    table = execFileSync("ps", ["-e", "-o", "pid=,ppid=,pgid="], { encoding: "utf8" });
  } catch {
    return [pid];
  }
  const rows = table
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number, number]);
  const family = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of rows) {
      if (family.has(parent) && !family.has(child)) {
        family.add(child);
        grew = true;
      }
    }
  }
  const groups = new Set([pid]);
  for (const [child, , group] of rows) if (family.has(child) && group > 1) groups.add(group);
  return [...groups];
}

function signalGroups(groups: number[], signal: NodeJS.Signals): void {
  for (const group of groups) {
    try {
      process.kill(-group, signal);
    } catch {
      // already gone
    }
  }
}

/** Waits until no process of `groups` is left (a restart must not meet the old workerd on its state). */
async function groupsGone(groups: number[], ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (const group of groups) {
    while (Date.now() < deadline) {
      try {
        process.kill(-group, 0);
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const exitedOf = (child: ChildProcess) =>
  new Promise<void>((done) =>
    child.exitCode !== null || child.signalCode !== null ? done() : child.once("exit", () => done()),
  );

/** Starts `npm start`'s command and waits for its ready line ("toolgate is running at …"). */
export async function startNpmStart({ port, stateDir, devVars }: NpmStartOptions): Promise<NpmStart> {
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [resolve(ROOT, "tools", "run.js"), resolve(ROOT, "tools", "start.ts")], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NO_COLOR: "1",
      TOOLGATE_PORT: String(port),
      TOOLGATE_STATE_DIR: stateDir,
      TOOLGATE_DEV_VARS: devVars,
    },
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("node tools/run.js tools/start.ts did not start");
  let log = "";
  const keep = (d: Buffer) => (log = (log + d.toString()).slice(-20_000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = exitedOf(child);
  const server: NpmStart = {
    base,
    output: () => log.replace(/\btg_[A-Za-z0-9_-]+/g, "tg_…"),
    kill: async () => {
      const groups = groupsBelow(pid);
      signalGroups(groups, "SIGKILL");
      await exited;
      await groupsGone(groups);
    },
    stop: async () => {
      const groups = groupsBelow(pid);
      signalGroups([pid], "SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      signalGroups(groups, "SIGKILL");
      await exited;
      await groupsGone(groups);
    },
  };
  const ready = `toolgate is running at ${base} `;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (log.includes(ready)) return server;
    if (child.exitCode !== null || child.signalCode !== null) {
      await server.kill();
      throw new Error(`node tools/run.js tools/start.ts exited early:\n${server.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await server.kill();
  throw new Error(`node tools/run.js tools/start.ts was not ready within 90 s:\n${server.output()}`);
}
