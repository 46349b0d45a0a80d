/**
 * Runs the real gate under `wrangler dev` on loopback for black-box tests: a free port, a
 * persistence folder, its own process group (so a SIGKILL takes workerd down too). Secrets
 * reach the Worker through a 0600 env file (`--env-file`), never the command line (which `ps`
 * shows to every user of the machine).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { prebuiltWorkerArgs } from "../../tools/lib/prebuilt-worker";
import { auditSigningKey } from "../../tools/lib/wrangler-dev";

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
  /** More bindings (for example `TOOLGATE_DOWNSTREAM_URL`), written to the env file too. */
  vars?: Record<string, string>;
  /** Appends everything wrangler and workerd print to this file (scanned for leaks). */
  logFile?: string;
  /** Fixed port (a restart on the same address); a free one by default. */
  port?: number;
}

/**
 * The keys of the dev servers on one persistence folder: fresh random ones (32 bytes,
 * base64url) the first time, the same on a restart on that folder (credentials minted before
 * the restart carry tags under the token key and must stay valid).
 */
const keysByState = new Map<
  string,
  { TOOLGATE_TOKEN_KEY: string; TOOLGATE_SIGNING_KEY: string; TOOLGATE_AUDIT_SIGNING_KEY: string }
>();

/** The bindings a dev server on `persistTo` gets: the admin token, its keys, then `vars`. */
export function devBindings(
  persistTo: string,
  adminToken: string,
  vars: Record<string, string> = {},
): Record<string, string> {
  const state = resolve(persistTo);
  let keys = keysByState.get(state);
  if (keys === undefined) {
    keys = {
      TOOLGATE_TOKEN_KEY: randomBytes(32).toString("base64url"),
      TOOLGATE_SIGNING_KEY: randomBytes(32).toString("base64url"),
      TOOLGATE_AUDIT_SIGNING_KEY: auditSigningKey(),
    };
    keysByState.set(state, keys);
  }
  return { TOOLGATE_ADMIN_TOKEN: adminToken, ...keys, ...vars };
}

/**
 * Writes bindings to a new env file (mode 0600, in a new private folder); answers its path and
 * a function that removes the folder. Values that dotenv would reinterpret (whitespace, quotes,
 * `$`, `#`, backslash) are refused, so every value is read back exactly.
 */
export function writeEnvFile(bindings: Record<string, string>): { path: string; remove(): void } {
  const lines = Object.entries(bindings).map(([name, value]) => {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) throw new Error(`env file: bad binding name ${JSON.stringify(name)}`);
    if (!/^[^\s'"`$#\\]*$/.test(value)) throw new Error(`env file: the value of ${name} cannot be written safely`);
    return `${name}=${value}\n`;
  });
  const dir = mkdtempSync(join(tmpdir(), "toolgate-env-"));
  const path = join(dir, "dev.env");
  writeFileSync(path, lines.join(""), { mode: 0o600 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The command line of `wrangler dev` (after `node`): no secret, only the env file's path.
 * `prebuilt`: under `npm test`, the Worker that run built once (tools/lib/prebuilt-worker.ts),
 * run instead of bundling the sources again at every start.
 */
export function devArgs(
  port: number,
  persistTo: string,
  inspectorPort: number,
  envFile: string,
  prebuilt: readonly string[] = prebuiltWorkerArgs(),
): string[] {
  return [
    join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js"),
    "dev",
    ...prebuilt,
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    persistTo,
    // Its own inspector port: two dev servers must not race for the default 9229.
    "--inspector-port",
    String(inspectorPort),
    "--show-interactive-dev-session=false",
    "--env-file",
    envFile,
  ];
}

/**
 * Starts wrangler dev and waits until `/healthz` answers 200. A port picked here can be taken by
 * another process before wrangler binds it (test files start servers in parallel): that start is
 * tried again on new ports, at most twice; a port the caller chose is never replaced.
 */
export async function startDev(persistTo: string, adminToken: string, options: DevOptions = {}): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevOnce(persistTo, adminToken, options);
    } catch (error) {
      const raced = error instanceof Error && error.message.includes("Address already in use");
      if (!raced || options.port !== undefined || attempt === 3) throw error;
    }
  }
}

async function startDevOnce(persistTo: string, adminToken: string, options: DevOptions): Promise<DevServer> {
  const port = options.port ?? (await freePort());
  const envFile = writeEnvFile(devBindings(persistTo, adminToken, options.vars));
  const child: ChildProcess = spawn(process.execPath, devArgs(port, persistTo, await freePort(), envFile.path), {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // Bindings come from the env file only, never from this process's environment.
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      NO_COLOR: "1",
      CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: "true",
      CLOUDFLARE_INCLUDE_PROCESS_ENV: "false",
    },
  });
  child.once("exit", () => envFile.remove());
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
