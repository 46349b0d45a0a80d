/**
 * Runs the real gate under `wrangler dev` on loopback for black-box tests: a free port, a
 * persistence folder, its own process group (so a SIGKILL takes workerd down too).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "..", "..");

/** A running `wrangler dev`. */
export interface DevServer {
  readonly base: string;
  /** SIGKILL the process group: a crash. */
  kill(): Promise<void>;
  /** The last lines wrangler printed (for failure messages). */
  output(): string;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((done, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

/** Options of {@link startDev}. */
export interface DevOptions {
  /** More `--var NAME:value` pairs (for example `TOOLGATE_DOWNSTREAM_URL`). */
  vars?: Record<string, string>;
  /** Appends everything wrangler and workerd print to this file (scanned for leaks). */
  logFile?: string;
  /** Fixed port (a restart on the same address); a free one by default. */
  port?: number;
}

/** Starts wrangler dev and waits until `/healthz` answers 200. */
export async function startDev(persistTo: string, adminToken: string, options: DevOptions = {}): Promise<DevServer> {
  const port = options.port ?? (await freePort());
  const args = [
    join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js"),
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    persistTo,
    // Its own inspector port: two dev servers must not race for the default 9229.
    "--inspector-port",
    String(await freePort()),
    "--show-interactive-dev-session=false",
    "--var",
    `TOOLGATE_ADMIN_TOKEN:${adminToken}`,
    ...Object.entries(options.vars ?? {}).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
  });
  let log = "";
  const keep = (d: Buffer) => {
    log = (log + d.toString()).slice(-10_000);
    if (options.logFile !== undefined) appendFileSync(options.logFile, d);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const base = `http://127.0.0.1:${port}`;
  const server: DevServer = {
    base,
    output: () => log,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      await exited;
    },
  };
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${log}`);
    try {
      if ((await fetch(`${base}/healthz`)).status === 200) return server;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await server.kill();
  throw new Error(`wrangler dev was not healthy within 90 s:\n${log}`);
}
