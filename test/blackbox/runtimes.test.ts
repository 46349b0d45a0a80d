/**
 * Black box: the package's core (`toolgate`) and client (`toolgate/client`) in Deno and Bun, the
 * binaries of the exact devDependencies `deno` and `bun`. Both entries are built like
 * tools/lib/build-package.ts builds dist/ (same sources and esbuild options), into a scratch
 * folder, and each program in test/blackbox/runtimes/ is bundled against them into one file, so
 * the runtime needs no node_modules. The core runs two golden fixtures (the reference's dump,
 * compared byte for byte); the client drives the real gate under `wrangler dev`: a read, and a
 * write that needs approval, approved with ApproverClient and sent again. Deno runs with only
 * `--allow-read` of the scratch folder and `--allow-net` of the gate's address.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryBuild } from "../../tools/lib/build-package";
import { startDev, type DevServer } from "./wrangler-dev";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PROGRAMS = join(ROOT, "test", "blackbox", "runtimes");
const MODULES = join(ROOT, "node_modules");
const ADMIN = randomBytes(24).toString("base64url");
// The reference's demo orders belong to tenant "tenant-a" (the consumer): its write opens approvals.
const CONSUMER = "tenant-a";
/** Golden fixtures: reads and writes through every provider, approvals, replays, failures. */
const FIXTURES = ["public-cases.json", "traps/07-failures-and-approvals.json"];

/** The pinned version of a devDependency (exact, as installed). */
function pinned(name: string): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  return manifest.devDependencies[name] ?? "";
}

interface Runtime {
  readonly name: "deno" | "bun";
  readonly title: string;
  readonly version: string;
  /** The installed platform packages (none: npm installed no binary for this platform). */
  readonly platformPackages: string[];
  /** Where the binary may be: the one the postinstall put in place first, then the platform package's. */
  readonly candidates: string[];
  /** The command line after the binary. */
  args(script: string, dir: string, port?: number): string[];
}

const listed = (scope: string, prefix: string) =>
  existsSync(join(MODULES, scope)) ? readdirSync(join(MODULES, scope)).filter((n) => n.startsWith(prefix)) : [];
const exe = process.platform === "win32" ? ".exe" : "";

const RUNTIMES: Runtime[] = [
  {
    name: "deno",
    title: "Deno",
    version: pinned("deno"),
    platformPackages: listed("@deno", ""),
    candidates: [
      join(MODULES, "deno", `deno${exe}`),
      ...listed("@deno", "").map((p) => join(MODULES, "@deno", p, `deno${exe}`)),
    ],
    args: (script, dir, port) => [
      "run",
      "--no-config",
      "--no-prompt",
      ...(port === undefined ? [] : [`--allow-net=127.0.0.1:${port}`]),
      `--allow-read=${dir}`,
      script,
    ],
  },
  {
    name: "bun",
    title: "Bun",
    version: pinned("bun"),
    platformPackages: listed("@oven", "bun-"),
    // Without install scripts, bun/bin/bun.exe is a text placeholder: --version below sorts it out.
    candidates: [
      join(MODULES, "bun", "bin", "bun.exe"),
      ...listed("@oven", "bun-").map((p) => join(MODULES, "@oven", p, "bin", `bun${exe}`)),
    ],
    args: (script) => [script],
  },
];

/** The first candidate that runs and reports the pinned version, or null. */
function locate(runtime: Runtime): string | null {
  for (const candidate of runtime.candidates) {
    if (!existsSync(candidate)) continue;
    const ran = spawnSync(candidate, ["--version"], {
      encoding: "utf8",
      timeout: 30_000,
      env: { PATH: process.env["PATH"] ?? "", NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    });
    const first = (ran.stdout ?? "").split("\n")[0] ?? "";
    if (ran.status === 0 && (first === runtime.version || first.startsWith(`deno ${runtime.version} `)))
      return candidate;
  }
  return null;
}

interface Ran {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

let dir = "";
let dev: DevServer | undefined;
let agent = "";
let approver = "";
/** Approved writes so far: the demo refund numbers its drafts by the consumer's side-effect count. */
let writes = 0;

/** Runs a program to completion with `input` on stdin, in the scratch folder, with a bare environment. */
function run(binary: string, args: string[], input: string, timeoutMs = 60_000): Promise<Ran> {
  return new Promise((done, reject) => {
    const child = spawn(binary, args, {
      cwd: dir,
      stdio: ["pipe", "pipe", "pipe"],
      timeout: timeoutMs,
      // Caches and homes inside the scratch folder, no update check, no colour.
      env: {
        PATH: process.env["PATH"] ?? "",
        HOME: dir,
        DENO_DIR: join(dir, "deno-dir"),
        DENO_NO_UPDATE_CHECK: "1",
        BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
        DO_NOT_TRACK: "1",
        NO_COLOR: "1",
      },
    });
    const out: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => done({ code, stdout: Buffer.concat(out), stderr }));
    child.stdin.end(input);
  });
}

/** Resolves `toolgate` and `toolgate/client` to the entries built into the scratch folder. */
function packageEntries(dist: string): Plugin {
  return {
    name: "toolgate-entries",
    setup(b) {
      b.onResolve({ filter: /^toolgate(\/client)?$/ }, (args) => ({
        path: join(dist, args.path === "toolgate" ? "core.js" : "client.js"),
      }));
    },
  };
}

/** Builds the core and client entries as tools/lib/build-package.ts does, then bundles each program against them. */
async function buildPrograms(): Promise<void> {
  const dist = join(dir, "dist");
  await build({ ...entryBuild(["core", "client"], dist), logLevel: "silent" });
  for (const program of ["core-parity.mjs", "client-host.mjs"]) {
    await build({
      entryPoints: [join(PROGRAMS, program)],
      outfile: join(dir, program),
      bundle: true,
      format: "esm",
      platform: "neutral",
      target: "es2022",
      mainFields: ["module", "main"],
      // The entries' dependencies (zod, @noble/*, cel-js) come from this repository's install.
      nodePaths: [MODULES],
      plugins: [packageEntries(dist)],
      logLevel: "silent",
    });
  }
}

const located = new Map(RUNTIMES.map((r) => [r.name, r.platformPackages.length === 0 ? null : locate(r)]));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolgate-runtimes-"));
  await buildPrograms();
  mkdirSync(join(dir, "fixtures", "traps"), { recursive: true });
  for (const name of FIXTURES) copyFileSync(join(ROOT, "fixtures", "tool-cases", name), join(dir, "fixtures", name));

  dev = await startDev(join(dir, "state"), ADMIN);
  const admin = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${dev?.base}/v1/consumers/${CONSUMER}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { secret: string };
  };
  await admin("PUT", "", { tools: ["get_order", "create_refund_draft"], approver_subjects: ["human-reviewer-1"] });
  agent = (await admin("POST", "/credentials", { kind: "agent" })).secret;
  approver = (await admin("POST", "/credentials", { kind: "approver", subject_id: "human-reviewer-1" })).secret;
}, 120_000);

afterAll(async () => {
  await dev?.kill();
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

for (const runtime of RUNTIMES) {
  const missing = runtime.platformPackages.length === 0;
  const label = missing
    ? `${runtime.title}: not run, npm installed no binary package for ${process.platform}-${process.arch} (install ${runtime.title} ${runtime.version}, the devDependency "${runtime.name}" with its optional platform package, e.g. npm ci)`
    : `${runtime.title} ${runtime.version}`;
  if (missing) console.warn(label);

  describe.skipIf(missing)(label, () => {
    /** The runtime's binary; a platform package without a working binary fails here instead of skipping. */
    const binary = (): string => {
      const found = located.get(runtime.name);
      if (found === null || found === undefined) {
        throw new Error(
          `no working ${runtime.name} ${runtime.version} binary among ${runtime.candidates.join(", ")} (reinstall with scripts allowed: npm ci)`,
        );
      }
      return found;
    };

    it.each(FIXTURES)("core: runs %s and prints the reference's dump byte for byte", async (name) => {
      const ran = await run(binary(), runtime.args(join(dir, "core-parity.mjs"), dir), join(dir, "fixtures", name));
      expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: "" });
      const expected = readFileSync(join(ROOT, "fixtures", "tool-cases", name.replace(/\.json$/, ".expected.json")));
      expect(ran.stdout.toString("utf8")).toBe(expected.toString("utf8"));
      expect(Buffer.compare(ran.stdout, expected)).toBe(0);
    });

    it("client: a read, then a write approved with ApproverClient and sent again, against wrangler dev", async () => {
      const base = dev?.base ?? "";
      const input = JSON.stringify({ base, consumer: CONSUMER, agent, approver });
      writes += 1;
      const ran = await run(
        binary(),
        runtime.args(join(dir, "client-host.mjs"), dir, Number(new URL(base).port)),
        input,
      );
      expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: "" });
      const text = ran.stdout.toString("utf8");
      expect(text.includes(agent) || text.includes(approver)).toBe(false);
      const lines = text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const id = lines[2]?.["approval_id"];
      expect(typeof id === "string" && /^apr_[0-9a-f]{32}$/.test(id)).toBe(true);
      const name = runtime.name;
      const output = (callId: string) => ({ type: "function_call_output", call_id: callId });
      const refund = { order_ref: "ORDER-7", reason: "duplicate" };
      const draft = { draft_id: `DRAFT-${writes}`, ...refund };
      expect(lines).toEqual([
        { step: "runtime", name, version: runtime.version },
        {
          step: "read",
          status: "succeeded",
          data: { order_ref: "ORDER-7", status: "paid" },
          error: null,
          outcome: "committed",
          delivery: "fresh",
          approval_id: null,
          provider_output: output(`${name}-read`),
        },
        {
          step: "write",
          status: "failed",
          data: null,
          error: "APPROVAL_REQUIRED",
          outcome: "not_started",
          delivery: "fresh",
          approval_id: id,
          provider_output: output(`${name}-refund`),
        },
        {
          step: "pending",
          approval_id: id,
          state: "pending",
          tool: "create_refund_draft",
          arguments: refund,
          subject_id: "user-1",
          approver_id: "human-reviewer-1",
          idempotency_key: `${name}-refund-key`,
        },
        { step: "decide", approval_id: id, state: "approved", approver_id: "human-reviewer-1", bound_to_request: true },
        { step: "status", approval_id: id, state: "approved" },
        {
          step: "resend",
          status: "succeeded",
          data: draft,
          error: null,
          outcome: "committed",
          delivery: "fresh",
          approval_id: null,
          provider_output: output(`${name}-refund`),
        },
        {
          step: "replay",
          status: "succeeded",
          data: draft,
          error: null,
          outcome: "committed",
          delivery: "local_replay",
          approval_id: null,
          provider_output: output(`${name}-refund`),
        },
      ]);
    });
  });
}

describe("the runtime binaries", () => {
  it("are the pinned devDependencies", () => {
    expect(RUNTIMES.map((r) => [r.name, r.version])).toEqual([
      ["deno", "2.9.6"],
      ["bun", "1.4.5"],
    ]);
    for (const r of RUNTIMES)
      if (r.platformPackages.length > 0) expect({ [r.name]: located.get(r.name) !== null }).toEqual({ [r.name]: true });
  });
});
