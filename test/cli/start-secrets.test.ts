/**
 * The scripts' secrets: `wrangler dev` gets its secrets through a 0600 env file, never on its
 * command line (which `ps` shows to every user); `npm start` writes the admin token, the three
 * keys and the loopback-target setting of its demo service into `.dev.vars`; black-box dev servers
 * get fresh keys per persistence folder.
 */
import { EventEmitter } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ensureDevVars, freshSecrets, readDevVars, startWranglerDev, writeEnvFile } from "../../tools/lib/wrangler-dev";
import { prebuiltWorkerArgs } from "../../tools/lib/prebuilt-worker";
import { devArgs, devBindings } from "../blackbox/wrangler-dev";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const WRANGLER = join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
const KEY = /^[A-Za-z0-9_-]{43}$/;

interface Spawned {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
}

/** A `spawn` that records its call and answers a child that never runs. */
/** A spawned child as the recorder fakes it. */
type RecordedChild = EventEmitter & { pid: number; exitCode: null; signalCode: null };

function recorder(): {
  spawned: Spawned[];
  child: RecordedChild;
  spawn: (command: string, args: string[], options: { env: Record<string, string> }) => RecordedChild;
} {
  const spawned: Spawned[] = [];
  const child = Object.assign(new EventEmitter(), { pid: 4242, exitCode: null, signalCode: null });
  return {
    spawned,
    child,
    spawn: (command, args, options) => (spawned.push({ command, args, env: options.env }), child),
  };
}

const folders: string[] = [];
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-cli-test-"));
  folders.push(dir);
  return dir;
};

afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
  vi.restoreAllMocks();
});

describe("wrangler dev's command line", () => {
  it("hole: scripts pass the admin token on the command line", () => {
    const secrets = { ...freshSecrets(), TOOLGATE_DOWNSTREAM_URL: "http://127.0.0.1:9999" };
    const r = recorder();
    startWranglerDev({ port: 4321, persistTo: "/tmp/state", secrets, spawnProcess: r.spawn });
    expect(r.spawned.length).toBe(1);
    const { command, args, env } = r.spawned[0] as Spawned;
    const envFile = args[args.length - 1] as string;
    expect(command).toBe(process.execPath);
    expect(args).toEqual([
      WRANGLER,
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      "4321",
      "--persist-to",
      "/tmp/state",
      "--show-interactive-dev-session=false",
      "--env-file",
      envFile,
    ]);
    expect(envFile).toMatch(/\/toolgate-env-[^/]+\/dev\.env$/);
    for (const value of [
      secrets.TOOLGATE_ADMIN_TOKEN,
      secrets.TOOLGATE_TOKEN_KEY,
      secrets.TOOLGATE_SIGNING_KEY,
      secrets.TOOLGATE_SECRETS_KEY,
    ]) {
      expect(args.join(" ").includes(value)).toBe(false);
      expect(Object.values(env).includes(value)).toBe(false);
    }
    expect(args.includes("--var")).toBe(false);
    expect([env.CLOUDFLARE_INCLUDE_PROCESS_ENV, env.CLOUDFLARE_LOAD_DEV_VARS_FROM_DOT_ENV]).toEqual(["false", "true"]);
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(envFile, "utf8")).toBe(
      `TOOLGATE_ADMIN_TOKEN=${secrets.TOOLGATE_ADMIN_TOKEN}\nTOOLGATE_TOKEN_KEY=${secrets.TOOLGATE_TOKEN_KEY}\nTOOLGATE_SIGNING_KEY=${secrets.TOOLGATE_SIGNING_KEY}\nTOOLGATE_SECRETS_KEY=${secrets.TOOLGATE_SECRETS_KEY}\nTOOLGATE_AUDIT_SIGNING_KEY=${secrets.TOOLGATE_AUDIT_SIGNING_KEY}\nTOOLGATE_DOWNSTREAM_URL=http://127.0.0.1:9999\n`,
    );
    r.child.emit("exit", 0, null);
    expect(existsSync(envFile)).toBe(false);
  });

  it("lets npm start's wrangler read .dev.vars (no env file, no secret)", () => {
    const r = recorder();
    startWranglerDev({ port: 8788, persistTo: "/tmp/state", inherit: true, spawnProcess: r.spawn });
    expect(r.spawned.map((s) => s.args)).toEqual([
      [
        WRANGLER,
        "dev",
        "--ip",
        "127.0.0.1",
        "--port",
        "8788",
        "--persist-to",
        "/tmp/state",
        "--show-interactive-dev-session=false",
      ],
    ]);
  });

  it("gives black-box dev servers fresh keys per state folder, in the env file only", () => {
    const a = devBindings("/tmp/bb-state-a", "admin-token-for-test-0123456789", {
      TOOLGATE_DOWNSTREAM_URL: "http://127.0.0.1:1",
    });
    expect(Object.keys(a)).toEqual([
      "TOOLGATE_ADMIN_TOKEN",
      "TOOLGATE_TOKEN_KEY",
      "TOOLGATE_SIGNING_KEY",
      "TOOLGATE_AUDIT_SIGNING_KEY",
      "TOOLGATE_DOWNSTREAM_URL",
    ]);
    expect(a.TOOLGATE_AUDIT_SIGNING_KEY).toMatch(
      /^PRIVATE\+KEY\+toolgate-local\+[0-9a-f]{8}\+A[Q-Za-f][A-Za-z0-9+/]{42}$/,
    );
    expect([
      KEY.test(a.TOOLGATE_TOKEN_KEY ?? ""),
      KEY.test(a.TOOLGATE_SIGNING_KEY ?? ""),
      a.TOOLGATE_TOKEN_KEY === a.TOOLGATE_SIGNING_KEY,
    ]).toEqual([true, true, false]);
    // A restart on the same folder keeps the keys (minted credentials stay valid); another folder gets its own.
    expect(devBindings("/tmp/bb-state-a/", "admin-token-for-test-0123456789")).toEqual({
      TOOLGATE_ADMIN_TOKEN: "admin-token-for-test-0123456789",
      TOOLGATE_TOKEN_KEY: a.TOOLGATE_TOKEN_KEY,
      TOOLGATE_SIGNING_KEY: a.TOOLGATE_SIGNING_KEY,
      TOOLGATE_AUDIT_SIGNING_KEY: a.TOOLGATE_AUDIT_SIGNING_KEY,
    });
    expect(devBindings("/tmp/bb-state-b", "x").TOOLGATE_TOKEN_KEY === a.TOOLGATE_TOKEN_KEY).toBe(false);
    expect(devArgs(1234, "/tmp/bb-state-a", 5678, "/tmp/e/dev.env", [])).toEqual([
      WRANGLER,
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      "1234",
      "--persist-to",
      "/tmp/bb-state-a",
      "--inspector-port",
      "5678",
      "--show-interactive-dev-session=false",
      "--env-file",
      "/tmp/e/dev.env",
    ]);
  });

  it("runs the Worker npm test built once only when its script exists", () => {
    const dir = folder();
    const script = join(dir, "dev-worker.js");
    expect(prebuiltWorkerArgs({ TOOLGATE_PREBUILT_WORKER: script })).toEqual([]);
    writeFileSync(script, "export default {};\n");
    expect(prebuiltWorkerArgs({ TOOLGATE_PREBUILT_WORKER: script })).toEqual([script, "--no-bundle"]);
    expect(prebuiltWorkerArgs({ TOOLGATE_PREBUILT_WORKER: "" })).toEqual([]);
    expect(prebuiltWorkerArgs({})).toEqual([]);
    expect(devArgs(1234, "/tmp/s", 5678, "/tmp/e/dev.env", [script, "--no-bundle"]).slice(1, 5)).toEqual([
      "dev",
      script,
      "--no-bundle",
      "--ip",
    ]);
  });

  it("refuses an env-file value dotenv would reinterpret", () => {
    for (const value of ["a b", "a$HOME", "a#b", "a'b", 'a"b', "a\\nb", "a\nb"]) {
      expect(() => writeEnvFile({ TOOLGATE_ADMIN_TOKEN: value })).toThrow(/cannot be written safely/);
    }
    expect(() => writeEnvFile({ "bad name": "x" })).toThrow(/bad binding name/);
  });
});

describe("npm start's .dev.vars", () => {
  it("creates it (0600) with a random admin token, the three keys and loopback targets allowed", () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const path = join(folder(), ".dev.vars");
    const admin = ensureDevVars(path) as string;
    const lines = readFileSync(path, "utf8").split("\n");
    expect(lines.map((l) => l.replace(/=.*/, ""))).toEqual([
      "TOOLGATE_ADMIN_TOKEN",
      "TOOLGATE_TOKEN_KEY",
      "TOOLGATE_SIGNING_KEY",
      "TOOLGATE_SECRETS_KEY",
      "TOOLGATE_AUDIT_SIGNING_KEY",
      "TOOLGATE_ALLOW_LOOPBACK_TARGETS",
      "",
    ]);
    expect(lines.slice(0, 4).map((l) => KEY.test(l.replace(/^[A-Z_]+=/, "")))).toEqual([true, true, true, true]);
    expect(new Set(lines.slice(0, 4)).size).toBe(4);
    expect(lines[4]).toMatch(
      /^TOOLGATE_AUDIT_SIGNING_KEY=PRIVATE\+KEY\+toolgate-local\+[0-9a-f]{8}\+A[Q-Za-f][A-Za-z0-9+/]{42}$/,
    );
    expect(lines[5]).toBe("TOOLGATE_ALLOW_LOOPBACK_TARGETS=1");
    expect(lines[0]).toBe(`TOOLGATE_ADMIN_TOKEN=${admin}`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(ensureDevVars(path)).toBe(admin);
    expect(readFileSync(path, "utf8").split("\n")).toEqual(lines);
  });

  it("adds the missing keys to an existing file and keeps what it has", () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const path = join(folder(), ".dev.vars");
    writeFileSync(path, "TOOLGATE_ADMIN_TOKEN=old-admin-token-kept-as-it-is\nOTHER=1", { mode: 0o644 });
    expect(ensureDevVars(path)).toBe("old-admin-token-kept-as-it-is");
    const lines = readFileSync(path, "utf8").split("\n");
    expect(lines.slice(0, 2)).toEqual(["TOOLGATE_ADMIN_TOKEN=old-admin-token-kept-as-it-is", "OTHER=1"]);
    expect(lines.slice(2).map((l) => l.replace(/=.*/, ""))).toEqual([
      "TOOLGATE_TOKEN_KEY",
      "TOOLGATE_SIGNING_KEY",
      "TOOLGATE_SECRETS_KEY",
      "TOOLGATE_AUDIT_SIGNING_KEY",
      "TOOLGATE_ALLOW_LOOPBACK_TARGETS",
      "",
    ]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("keeps a loopback setting the user changed, and reads values as npm start does", () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const path = join(folder(), ".dev.vars");
    writeFileSync(path, 'TOOLGATE_ALLOW_LOOPBACK_TARGETS=0\nTOOLGATE_ADMIN_TOKEN="quoted-admin-token-0123456789"\n', {
      mode: 0o600,
    });
    expect(ensureDevVars(path)).toBe("quoted-admin-token-0123456789");
    const vars = readDevVars(path) as Record<string, string>;
    expect([Object.keys(vars), vars.TOOLGATE_ALLOW_LOOPBACK_TARGETS]).toEqual([
      [
        "TOOLGATE_ALLOW_LOOPBACK_TARGETS",
        "TOOLGATE_ADMIN_TOKEN",
        "TOOLGATE_TOKEN_KEY",
        "TOOLGATE_SIGNING_KEY",
        "TOOLGATE_SECRETS_KEY",
        "TOOLGATE_AUDIT_SIGNING_KEY",
      ],
      "0",
    ]);
  });

  it("refuses a key shorter than 32 characters", () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const path = join(folder(), ".dev.vars");
    writeFileSync(path, "TOOLGATE_TOKEN_KEY=short\n", { mode: 0o600 });
    expect(() => ensureDevVars(path)).toThrow(
      `${path}: TOOLGATE_TOKEN_KEY is shorter than 32 characters; delete its line to get a new one`,
    );
    const other = join(folder(), ".dev.vars");
    writeFileSync(other, "TOOLGATE_SECRETS_KEY=0123456789012345678901234567890\n", { mode: 0o600 });
    expect(() => ensureDevVars(other)).toThrow(
      `${other}: TOOLGATE_SECRETS_KEY is shorter than 32 characters; delete its line to get a new one`,
    );
  });
});
