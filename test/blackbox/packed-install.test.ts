/**
 * The package as a user gets it: this repository built (`tools/build-package.ts`) and packed
 * with `npm pack`, the tarball installed into a scratch project of its own, and a sample host
 * program (packed-host/host.ts.sample) that imports `toolgate/client` and `toolgate` type-checked
 * there with tsc against the shipped declarations, then run in Node against the shipped ESM
 * with a fake fetch: the exact URL, headers and body of each request, and the typed answers.
 */
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { transform } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const HOST = join(ROOT, "test", "blackbox", "packed-host");

/** The environment of child processes: no `npm_*` variables of an enclosing `npm test`. */
const childEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")));

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion; answers its exit code and output (never throws on a failed exit). */
function run(command: string, args: readonly string[], cwd: string, timeoutMs = 60_000): Promise<Ran> {
  return new Promise((done) => {
    execFile(
      command,
      args,
      { cwd, env: childEnv(), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        done({ code, stdout, stderr });
      },
    );
  });
}

let dir = "";
let app = "";
let packed: string[] = [];
let manifest: { exports: Record<string, unknown>; sideEffects: unknown; private?: boolean } | undefined;
const timings: Record<string, number> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolgate-packed-install-"));
  let started = Date.now();
  // `npm test` sets this once its package check has built dist/ from these same sources.
  if (process.env["TOOLGATE_PACKAGE_BUILT"] !== "1") {
    const built = await run(
      process.execPath,
      [join(ROOT, "tools", "run.js"), join(ROOT, "tools", "build-package.ts")],
      ROOT,
      90_000,
    );
    if (built.code !== 0) throw new Error(`build-package failed:\n${built.stdout}\n${built.stderr}`);
    timings["build"] = Date.now() - started;
  }

  started = Date.now();
  // Built just above: the pack itself runs no script (prepack would build a second time).
  const pack = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], ROOT);
  if (pack.code !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (info === undefined) throw new Error(`npm pack answered no tarball: ${pack.stdout}`);
  packed = info.files.map((f) => f.path);

  app = join(dir, "host");
  const tarball = join(dir, info.filename);
  await run("mkdir", ["-p", app], dir);
  writeFileSync(
    join(app, "package.json"),
    `${JSON.stringify({ name: "sample-host", private: true, type: "module", dependencies: { toolgate: `file:${tarball}` } }, null, 2)}\n`,
  );
  const flags = ["--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"];
  // From npm's cache when it holds every dependency; the registry otherwise.
  let install = await run("npm", ["install", ...flags, "--offline"], app, 90_000);
  if (install.code !== 0) install = await run("npm", ["install", ...flags, "--prefer-offline"], app, 90_000);
  if (install.code !== 0) throw new Error(`npm install of the tarball failed:\n${install.stderr}`);
  timings["pack+install"] = Date.now() - started;
  manifest = JSON.parse(readFileSync(join(app, "node_modules", "toolgate", "package.json"), "utf8")) as typeof manifest;

  copyFileSync(join(HOST, "host.ts.sample"), join(app, "host.ts"));
  copyFileSync(join(HOST, "tsconfig.json"), join(app, "tsconfig.json"));
}, 150_000);

afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
  console.log(
    `packed install: ${Object.entries(timings)
      .map(([step, ms]) => `${step} ${ms} ms`)
      .join(", ")}`,
  );
});

describe("the packed toolgate package installed into a scratch project", () => {
  it("is publishable: no private flag, an exports map of built ESM and declarations, and what ships", () => {
    expect(manifest?.private).toBe(undefined);
    expect(manifest?.exports).toEqual({
      ".": { types: "./dist/types/core/index.d.ts", import: "./dist/core.js" },
      "./core": { types: "./dist/types/core/index.d.ts", import: "./dist/core.js" },
      "./client": { types: "./dist/types/client/index.d.ts", import: "./dist/client.js" },
      "./capability-provider": {
        types: "./dist/types/client/capability-provider.d.ts",
        import: "./dist/capability-provider.js",
      },
      "./tool-result": { types: "./dist/types/core/tool-result/index.d.ts", import: "./dist/tool-result.js" },
      "./worker": { types: "./dist/types/worker/gate.d.ts", import: "./dist/worker.js" },
      "./ai-sdk": { types: "./dist/types/adapters/ai-sdk/index.d.ts", import: "./dist/ai-sdk.js" },
      "./openai-agents": {
        types: "./dist/types/adapters/openai-agents/index.d.ts",
        import: "./dist/openai-agents.js",
      },
      "./package.json": "./package.json",
    });
    expect(manifest?.sideEffects).toEqual(["./src/contracts/problem.ts", "./src/core/zod.ts"]);
    for (const file of [
      "assets/openapi.json",
      "dist/core.js",
      "dist/client.js",
      "dist/capability-provider.js",
      "dist/tool-result.js",
      "dist/worker.js",
      "dist/ai-sdk.js",
      "dist/openai-agents.js",
      "dist/types/core/index.d.ts",
      "dist/types/client/index.d.ts",
      "dist/types/client/capability-provider.d.ts",
      "dist/types/core/tool-result/index.d.ts",
      "dist/types/worker/gate.d.ts",
      "dist/types/adapters/ai-sdk/index.d.ts",
      "dist/types/adapters/openai-agents/index.d.ts",
    ]) {
      expect(packed).toContain(file);
      expect(existsSync(join(app, "node_modules", "toolgate", file))).toBe(true);
    }
    expect(packed.filter((path) => /^(test|fixtures|bench|docs|examples)\//.test(path))).toEqual([]);
  });

  it("the client's ESM imports no zod and nothing of the Worker (browser-safe)", () => {
    const dist = join(app, "node_modules", "toolgate", "dist");
    const client = readFileSync(join(dist, "client.js"), "utf8");
    const imports = [...client.matchAll(/^import\b[^;]*?from\s*"([^"]+)"/gms)].map((m) => m[1] ?? "");
    expect(imports.every((specifier) => specifier.startsWith("./chunks/"))).toBe(true);
    // Every chunk the client reaches (chunks import shared chunks when another entry, such as
    // toolgate/openai-agents, shares the client's code), and the packages they import.
    const packages = new Set<string>();
    const seen = new Set<string>();
    const pending = imports.map((specifier) => join(dist, specifier));
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      for (const [, specifier = ""] of readFileSync(file, "utf8").matchAll(/from\s*"([^"]+)"/g)) {
        if (specifier.startsWith("./")) pending.push(join(dist, "chunks", specifier));
        else packages.add(specifier);
      }
    }
    expect([...packages].sort()).toEqual(["@noble/hashes/sha2.js", "@noble/hashes/utils.js"]);
  });

  it("type-checks the sample host against the shipped declarations (tsc --noEmit)", async () => {
    const started = Date.now();
    const tsc = await run(
      process.execPath,
      [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", app],
      app,
    );
    timings["tsc"] = Date.now() - started;
    expect({ code: tsc.code, output: tsc.stdout + tsc.stderr }).toEqual({ code: 0, output: "" });
  }, 60_000);

  it("runs the sample host in Node: each request's exact URL, headers and body, and the typed answers", async () => {
    const { code } = await transform(readFileSync(join(app, "host.ts"), "utf8"), {
      loader: "ts",
      format: "esm",
      target: "es2022",
    });
    writeFileSync(join(app, "host.mjs"), code);
    const ran = await run(process.execPath, ["host.mjs"], app);
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: "" });
    const out = JSON.parse(ran.stdout) as Record<string, unknown>;
    const json = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });
    const bare = (token: string) => ({ authorization: `Bearer ${token}` });
    expect(out).toEqual({
      sent: [
        {
          url: "https://gate.example/v1/consumers/acme%20shop/tool-calls",
          method: "POST",
          headers: { ...json("tg_agent_secret"), "idempotency-key": '"k-1"' },
          body:
            '{"principal":{"subject_id":"user-1","roles":["support"]},"proposal":{"name":"refund","arguments":{"order":"o-1","cents":1250}},' +
            '"context":{"call_id":"call-1","operation_id":"op-1","provider":"openai","api_family":"responses","response_id":"resp-1","adapter_revision":"openai-responses-v1"}}',
        },
        {
          url: "https://gate.example/v1/consumers/acme%20shop/tool-calls/batch",
          method: "POST",
          headers: json("tg_agent_secret"),
          body:
            '{"context":{"provider":"anthropic","api_family":"messages","response_id":"msg-1","adapter_revision":"anthropic-messages-v1"},' +
            '"calls":[{"provider_item":{"type":"tool_use","id":"call-2","name":"refund","input":{"order":"o-2"}},"operation_id":"op-2","idempotency_key":"k-2"}]}',
        },
        {
          url: "https://gate.example/v1/consumers/acme%20shop/tools?format=openai",
          method: "GET",
          headers: bare("tg_agent_secret"),
          body: null,
        },
        {
          url: "https://gate.example/v1/consumers/acme%20shop/approvals/appr-1?wait=30",
          method: "GET",
          headers: bare("tg_approver_secret"),
          body: null,
        },
        {
          url: "https://gate.example/v1/consumers/acme%20shop/audit?cursor=c%2F1&limit=50",
          method: "GET",
          headers: bare("tg_auditor_secret"),
          body: null,
        },
        {
          url: "https://gate.example/v1/consumers/acme%20shop/audit/proof/inclusion?seq=4&size=9",
          method: "GET",
          headers: bare("tg_auditor_secret"),
          body: null,
        },
        {
          url: "https://gate.example/v1/audit/verifier-keys",
          method: "GET",
          headers: bare("tg_auditor_secret"),
          body: null,
        },
        {
          url: "https://gate.example/v1/consumers/acme%20shop/audit/export",
          method: "GET",
          headers: bare("tg_auditor_secret"),
          body: null,
        },
      ],
      statusRef: `status_${"0".repeat(32)}`,
      approvalId: null,
      auditSeq: 4,
      batchApproval: "appr-1",
      toolFormat: "openai",
      approvalState: "approved",
      pageNext: null,
      proofTree: 9,
      keys: ["toolgate+00000000+AQ=="],
      exported: { entries: ["consumer.configured"], checkpoint: "note" },
      core: '{"a":[true],"b":1}',
    });
  }, 30_000);
});
