// Running the gate under `wrangler dev` (what `npm start`, the black-box tests and the HTTP
// benchmark share): its secrets and `.dev.vars`, its command line, starting and stopping its
// process group, waiting for it, and calling its admin API.
import { spawn, type SpawnOptions } from "node:child_process";
import { createHash, createPrivateKey, createPublicKey, randomBytes } from "node:crypto";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { ROOT } from "./paths.ts";

const WRANGLER = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * The secrets a local gate needs, each random (32 bytes, base64url: 43 characters): the admin
 * token, the credential tag key, the key that signs HTTP tool requests and the key that seals
 * consumer secrets (the secret headers of tools defined as data).
 */
export const SECRET_NAMES = [
  "TOOLGATE_ADMIN_TOKEN",
  "TOOLGATE_TOKEN_KEY",
  "TOOLGATE_SIGNING_KEY",
  "TOOLGATE_SECRETS_KEY",
  "TOOLGATE_AUDIT_SIGNING_KEY",
] as const;

/** One of {@link SECRET_NAMES}. */
export type SecretName = (typeof SECRET_NAMES)[number];

/** The keys that must hold at least 32 characters (a shorter one disables what it protects). */
const KEY_NAMES: readonly SecretName[] = ["TOOLGATE_TOKEN_KEY", "TOOLGATE_SIGNING_KEY", "TOOLGATE_SECRETS_KEY"];

/**
 * Settings `npm start` adds to `.dev.vars` besides the secrets: tools defined as data may target
 * loopback `http` URLs (the demo service). Never set in production, where targets are https only.
 */
export const DEV_SETTINGS: Readonly<Record<string, string>> = { TOOLGATE_ALLOW_LOOPBACK_TARGETS: "1" };

/**
 * A C2SP signer key text (Ed25519) for audit checkpoints from a fresh random seed:
 * `PRIVATE+KEY+<name>+<key id, 8 hex>+<base64(0x01 ‖ seed)>`, the key id being the first four
 * bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key) (docs/audit.md).
 */
export function auditSigningKey(name = "toolgate-local", seed: Buffer = randomBytes(32)): string {
  const pkcs8 = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), seed]);
  const publicKey = createPublicKey(createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" }))
    .export({ format: "der", type: "spki" })
    .subarray(-32);
  const id = createHash("sha256")
    .update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.from([1]), publicKey]))
    .digest()
    .subarray(0, 4)
    .toString("hex");
  return `PRIVATE+KEY+${name}+${id}+${Buffer.concat([Buffer.from([1]), seed]).toString("base64")}`;
}

/** A fresh random value for each of {@link SECRET_NAMES} (the audit signing key: a fresh signer key). */
export function freshSecrets(): Record<SecretName, string> {
  // Every name of SECRET_NAMES, in its order.
  return Object.fromEntries(
    SECRET_NAMES.map((name) => [
      name,
      name === "TOOLGATE_AUDIT_SIGNING_KEY" ? auditSigningKey() : randomBytes(32).toString("base64url"),
    ]),
  ) as Record<SecretName, string>;
}

/**
 * Writes `bindings` to a new env file (mode 0600, in a new private 0700 folder) for
 * `wrangler dev --env-file`; answers its path and a function that removes it. Names are
 * upper-case identifiers; values may not hold whitespace, quotes, `$`, `#` or backslashes
 * (dotenv would reinterpret them), so a value is always read back exactly.
 */
export function writeEnvFile(bindings: Readonly<Record<string, unknown>>): { path: string; remove: () => void } {
  const lines = Object.entries(bindings).map(([name, value]) => {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) throw new Error(`env file: bad binding name ${JSON.stringify(name)}`);
    if (typeof value !== "string" || !/^[^\s'"`$#\\]*$/.test(value))
      throw new Error(`env file: the value of ${name} cannot be written safely`);
    return `${name}=${value}\n`;
  });
  const dir = mkdtempSync(join(tmpdir(), "toolgate-env-"));
  const path = join(dir, "dev.env");
  writeFileSync(path, lines.join(""), { mode: 0o600 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The command line of `wrangler dev` (after `node`): never a secret, only the path of the env
 * file that holds them (`envFile`; none: wrangler reads `.dev.vars`).
 */
export function wranglerDevArgs({
  port,
  persistTo,
  envFile = null,
}: {
  port: number;
  persistTo: string;
  envFile?: string | null;
}): string[] {
  const args = [
    WRANGLER,
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    persistTo,
    "--show-interactive-dev-session=false",
  ];
  return envFile === null ? args : [...args, "--env-file", envFile];
}

/**
 * Starts `wrangler dev` on 127.0.0.1:port in its own process group. `secrets` (bindings such as
 * `TOOLGATE_ADMIN_TOKEN` or `TOOLGATE_DOWNSTREAM_URL`) reach the Worker through a 0600 env file
 * (`--env-file`), never the command line, which `ps` shows to every user of the machine;
 * without `secrets` wrangler reads `envFile` (the path of a secrets file the caller keeps),
 * else the local `.dev.vars`. The file written for `secrets` is removed when wrangler exits.
 * `spawnProcess` is `child_process.spawn` (a test passes a recorder).
 * Answers { child, stop(), kill(), output() }.
 */
export function startWranglerDev({
  port,
  persistTo,
  secrets = null,
  envFile: kept = null,
  inherit = false,
  spawnProcess = spawn,
}: WranglerDevOptions): WranglerDev {
  const envFile = secrets === null ? null : writeEnvFile(secrets);
  let child: WranglerChild;
  try {
    child = spawnProcess(process.execPath, wranglerDevArgs({ port, persistTo, envFile: envFile?.path ?? kept }), {
      cwd: ROOT,
      // Its own process group always: stopping it takes workerd down too (a terminal's Ctrl-C reaches
      // the caller, whose handler stops the group).
      detached: true,
      stdio: inherit ? "inherit" : ["ignore", "pipe", "pipe"],
      // Bindings come from the env file or .dev.vars only, never from this process's environment.
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: "false",
        NO_COLOR: "1",
        CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV: "true",
        CLOUDFLARE_INCLUDE_PROCESS_ENV: "false",
      },
    });
  } catch (error) {
    envFile?.remove();
    throw error;
  }
  child.once("exit", () => envFile?.remove());
  let log = "";
  child.stdout?.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  child.stderr?.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  const signal = (sig: NodeJS.Signals): void => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  return {
    child,
    output: () => log,
    /** SIGKILL the whole process group (a crash, for restart tests). */
    kill: async () => {
      signal("SIGKILL");
      await exited;
    },
    /** SIGTERM, then SIGKILL after 5 s. */
    stop: async () => {
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls GET /healthz until it answers 200; answers the milliseconds it took. */
export async function waitHealthy(base: string, timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    try {
      // Each probe is bounded: a Worker that fails to build can hold the connection open.
      const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return Date.now() - started;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`wrangler dev did not become healthy at ${base} within ${timeoutMs} ms`);
}

/**
 * Calls the gate as admin or with a credential; throws on an unexpected status. `T`: the shape of
 * the answer the caller asked for (null for an empty body).
 */
export async function call<T = unknown>(
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  expected: readonly number[] = [200, 201, 204],
): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!expected.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  // The answer of the gate this process started (or was pointed at), not untrusted input.
  return (text === "" ? null : JSON.parse(text)) as T;
}

/** The path of `npm start`'s `.dev.vars`. */
export const DEV_VARS = join(ROOT, ".dev.vars");

/** The `NAME=value` lines of a `.dev.vars` (a value's surrounding double quotes dropped). */
export function readDevVars(path = DEV_VARS): Record<string, string | undefined> {
  const vars: Record<string, string | undefined> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const m = /^([A-Z][A-Z0-9_]*)=(.+)$/.exec(line);
    const [, name, value] = m ?? [];
    if (name !== undefined && value !== undefined && !Object.hasOwn(vars, name))
      vars[name] = value.trim().replace(/^"|"$/g, "");
  }
  return vars;
}

/**
 * Reads the local `.dev.vars` (creating it with mode 0600 if missing) and adds a line with a
 * fresh random value for each of {@link SECRET_NAMES} it lacks, and each of
 * {@link DEV_SETTINGS} it lacks; answers the admin token. A key shorter than 32 characters is
 * refused (the Worker would admit no credential, sign nothing or seal nothing with it).
 */
export function ensureDevVars(path = DEV_VARS): string {
  if (!existsSync(path)) writeFileSync(path, "", { mode: 0o600 });
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  const text = readFileSync(path, "utf8");
  const vars = readDevVars(path);
  const fresh = freshSecrets();
  const missing = SECRET_NAMES.filter((name) => vars[name] === undefined);
  const settings = Object.keys(DEV_SETTINGS).filter((name) => vars[name] === undefined);
  const lines = [
    ...missing.map((name) => `${name}=${fresh[name]}\n`),
    ...settings.map((name) => `${name}=${DEV_SETTINGS[name]}\n`),
  ];
  if (lines.length > 0) {
    const lead = text === "" || text.endsWith("\n") ? "" : "\n";
    appendFileSync(path, lead + lines.join(""));
    if (missing.length > 0) console.log(`toolgate: added ${missing.join(", ")} to ${path} (new random values)`);
    if (settings.length > 0)
      console.log(`toolgate: added ${settings.map((name) => `${name}=${DEV_SETTINGS[name]}`).join(", ")} to ${path}`);
  }
  for (const name of KEY_NAMES) {
    const key = vars[name] ?? fresh[name];
    if (key.length < 32)
      throw new Error(`${path}: ${name} is shorter than 32 characters; delete its line to get a new one`);
  }
  return vars.TOOLGATE_ADMIN_TOKEN ?? fresh.TOOLGATE_ADMIN_TOKEN;
}

/** Refuses a port another process holds on 127.0.0.1, before anything starts. */
export function assertPortFree(port: number): Promise<void> {
  return new Promise((done, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new Error(
              `127.0.0.1:${port} is in use (another npm start?); stop it, or choose another port: TOOLGATE_PORT=${port + 1} npm start`,
            )
          : error,
      ),
    );
    probe.listen(port, "127.0.0.1", () => probe.close(() => done()));
  });
}

/** What {@link startWranglerDev} takes. */
export interface WranglerDevOptions {
  port: number;
  persistTo: string;
  /** Bindings written to a 0600 env file for this run (null: `envFile`, else `.dev.vars`). */
  secrets?: Readonly<Record<string, unknown>> | null;
  envFile?: string | null;
  inherit?: boolean;
  /** `child_process.spawn` (a test passes a recorder). */
  spawnProcess?(command: string, args: string[], options: SpawnOptions): WranglerChild;
}

/** What {@link startWranglerDev} uses of the child process it spawns. */
export interface WranglerChild {
  pid?: number | undefined;
  exitCode: number | null;
  signalCode: NodeJS.Signals | null;
  stdout?: Readable | null;
  stderr?: Readable | null;
  once(event: "exit", listener: (code: number | null) => void): unknown;
}

/** A running `wrangler dev`. */
export interface WranglerDev {
  child: WranglerChild;
  output: () => string;
  kill: () => Promise<void>;
  stop: () => Promise<void>;
}
