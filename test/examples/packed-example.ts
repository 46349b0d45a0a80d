/**
 * Runs an example Worker of examples/ the way a user would: this repository packed with
 * `npm pack`, the example copied to a temporary folder, the tarball installed there with
 * `npm install`, then `wrangler dev` on loopback in that folder. Dev tools the example pins
 * (wrangler, workers types) are this repository's own copies at the same versions, so nothing
 * large is downloaded. Secrets reach the Worker through a 0600 env file, never the command line.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, writeEnvFile } from "../blackbox/wrangler-dev";

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Dev dependencies taken from this repository's node_modules instead of the registry. */
const FROM_REPO = ["wrangler", "@cloudflare/workers-types"] as const;

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const readPackage = (path: string): PackageJson => JSON.parse(readFileSync(path, "utf8")) as PackageJson;

/** The environment of child processes: no `npm_*` variables of an enclosing `npm test`. */
function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")));
}

/** Runs a command to completion within `timeoutMs`; answers its stdout, throws with its output otherwise. */
export function run(command: string, args: readonly string[], cwd: string, timeoutMs: number): Promise<string> {
  return new Promise((done, reject) => {
    execFile(
      command,
      args,
      { cwd, env: childEnv(), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null) done(stdout);
        else reject(new Error(`${command} ${args.join(" ")} failed: ${error.message}\n${stdout}\n${stderr}`));
      },
    );
  });
}

/** An example installed from the packed repository in a temporary folder. */
export interface InstalledExample {
  /** The temporary folder (tarball, app, state); removed by {@link removeInstalled}. */
  readonly dir: string;
  /** The example's copy, with node_modules/toolgate from the tarball. */
  readonly app: string;
  /** The tarball's file names (`package/…`). */
  readonly packed: readonly string[];
}

/**
 * Packs the repository (`npm pack --ignore-scripts`: the tarball is what `files` lists; the
 * working tree is not touched), copies `examples/<name>` and installs the tarball there.
 */
export async function installExample(name: string): Promise<InstalledExample> {
  const dir = mkdtempSync(join(tmpdir(), `toolgate-example-${name}-`));
  const packOut = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], ROOT, 60_000);
  const [pack] = JSON.parse(packOut) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (pack === undefined) throw new Error(`npm pack answered no tarball: ${packOut}`);
  const app = join(dir, "app");
  cpSync(join(ROOT, "examples", name), app, {
    recursive: true,
    filter: (path) => !/[/\\](node_modules|\.wrangler)$/.test(path),
  });

  const manifest = readPackage(join(app, "package.json"));
  const repo = readPackage(join(ROOT, "package.json"));
  for (const tool of FROM_REPO) {
    const wanted = manifest.devDependencies?.[tool];
    if (wanted !== undefined && wanted !== repo.devDependencies?.[tool])
      throw new Error(`examples/${name} pins ${tool}@${wanted}, the repository ${repo.devDependencies?.[tool]}`);
  }
  const installed: PackageJson = {
    ...manifest,
    dependencies: { ...manifest.dependencies, toolgate: `file:${join(dir, pack.filename)}` },
  };
  delete installed.devDependencies;
  writeFileSync(join(app, "package.json"), `${JSON.stringify(installed, null, 2)}\n`);
  await run(
    "npm",
    ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefer-offline", "--loglevel=error"],
    app,
    90_000,
  );

  mkdirSync(join(app, "node_modules", "@cloudflare"), { recursive: true });
  symlinkSync(
    join(ROOT, "node_modules", "@cloudflare", "workers-types"),
    join(app, "node_modules", "@cloudflare", "workers-types"),
    "dir",
  );
  return { dir, app, packed: pack.files.map((f) => f.path) };
}

/** Removes what {@link installExample} created. */
export function removeInstalled(example: InstalledExample): void {
  rmSync(example.dir, { recursive: true, force: true });
}

/** A running `wrangler dev` of an installed example. */
export interface ExampleServer {
  readonly base: string;
  /** Stops the process group: SIGTERM, then (after wrangler's exit or 5 s) SIGKILL to whatever is left. */
  stop(): Promise<void>;
  /** The last lines wrangler printed. */
  output(): string;
}

/** Starts `wrangler dev` (this repository's wrangler) in the example's folder; resolves once `/healthz` answers 200. */
export async function startExample(
  example: InstalledExample,
  bindings: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ExampleServer> {
  const port = await freePort();
  const envFile = writeEnvFile(bindings);
  const args = [
    join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js"),
    "dev",
    ...["--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(await freePort())],
    ...["--persist-to", join(example.dir, "state"), "--show-interactive-dev-session=false", "--env-file", envFile.path],
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: example.app,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...childEnv(), WRANGLER_SEND_METRICS: "false", NO_COLOR: "1", CLOUDFLARE_INCLUDE_PROCESS_ENV: "false" },
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  void exited.then(() => envFile.remove());
  let log = "";
  const keep = (d: Buffer) => (log = (log + d.toString()).slice(-10_000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  // The whole group (wrangler and its workerd), whether or not wrangler itself is still there.
  const signal = (sig: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // the group is gone
    }
  };
  const server: ExampleServer = {
    base: `http://127.0.0.1:${port}`,
    output: () => log,
    stop: async () => {
      signal("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      signal("SIGKILL");
      await exited;
    },
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${log}`);
    try {
      if ((await fetch(`${server.base}/healthz`)).status === 200) return server;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await server.stop();
  throw new Error(`wrangler dev was not healthy within ${timeoutMs} ms:\n${log}`);
}
