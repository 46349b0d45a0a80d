// The official MCP conformance suite (`@modelcontextprotocol/conformance`,
// server mode) against the MCP endpoint of the gate `npm start` serves (which gate, its admin token
// and the exit status: tools/lib/mcp-conformance-command.ts). The black-box test
// test/blackbox/mcp-conformance.test.ts runs the same function against its own `wrangler dev`.
//
// The consumer "mcp-conformance" gets its tools through MCP targets from two real SDK servers on
// loopback, started here: the reference server `@modelcontextprotocol/server-everything` and the
// tools the suite's scenarios call by name (mcp-conformance-tools.ts). The suite cannot send an
// `Authorization` header, so it talks to a loopback proxy that adds a subject-bound agent
// credential and forwards everything else (Host and Origin included) unchanged. The suite runs
// unmodified; on Node 20 its CLI gets Node 22's `fs.globSync` from a module hook only its own
// modules see (test/support/node20-glob).
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startConformanceTools } from "./mcp-conformance-tools.ts";
import { ROOT } from "./paths.ts";
import { call, freePort } from "./wrangler-dev.ts";

/** Starts the reference server on a free loopback port; answers its MCP URL and how to stop it. */
async function startEverything(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const entry = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
  const child = spawn(process.execPath, [entry, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  const stop = () => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  };
  await new Promise<void>((done, reject) => {
    const timer = setTimeout(() => reject(new Error("server-everything did not start within 30 s")), 30_000);
    child.stderr.on("data", (d: Buffer) => {
      if (d.toString().includes("listening on port")) {
        clearTimeout(timer);
        done();
      }
    });
    child.once("exit", () => reject(new Error("server-everything exited")));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, stop };
}

/** The loopback proxy the suite talks to: adds the credential, forwards the rest unchanged. */
async function startProxy(target: URL, credential: string): Promise<{ url: string; close: () => Promise<void> }> {
  const port = await freePort();
  const proxy = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${credential}` };
    const out = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  await new Promise<void>((done) => proxy.listen(port, "127.0.0.1", done));
  return { url: `http://localhost:${port}/mcp`, close: () => new Promise<void>((done) => proxy.close(() => done())) };
}

/** Scenario → whether it passed (some check succeeded, none failed), from the suite's result folders. */
function readResults(dir: string): Record<string, boolean> {
  const results: Record<string, boolean> = {};
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === "checks.json") {
        // A file the suite just wrote, not untrusted input.
        const checks = JSON.parse(readFileSync(path, "utf8")) as Array<{ status: string }>;
        // Each scenario's folder is `server-<scenario>-<ISO time>`.
        const scenario = (at.slice(dir.length + 1).split("/")[0] ?? at)
          .replace(/^server-/, "")
          .replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
        results[scenario] = checks.some((c) => c.status === "SUCCESS") && checks.every((c) => c.status !== "FAILURE");
      }
    }
  };
  walk(dir);
  return results;
}

/**
 * Sets up the consumer on the gate at `base` (admin token `admin`), runs the whole active suite
 * once, and answers `{ results, table, suiteExit }`: scenario → passed, what the suite printed,
 * and its exit code (null: ended by a signal).
 */
export async function runConformance({
  base,
  admin,
  consumer = "mcp-conformance",
  log = () => {},
}: ConformanceOptions): Promise<{ results: Record<string, boolean>; table: string; suiteExit: number | null }> {
  const everything = await startEverything();
  const tools = await startConformanceTools();
  const resultsDir = mkdtempSync(join(tmpdir(), "toolgate-mcp-results-"));
  let proxy: { close: () => Promise<void> } | undefined;
  try {
    const path = `/v1/consumers/${consumer}`;
    await call(base, "PUT", path, admin, { tools: [], approver_subjects: ["reviewer-1"] });
    const imported: string[] = [];
    for (const server of [
      { name: "everything", url: everything.url, prefix: "" },
      // The suite's sampling and elicitation scenarios need the server's requests relayed to its client (opt-in per server).
      { name: "conformance", url: tools.url, prefix: "", relay: { sampling: true, elicitation: true } },
    ]) {
      // A second run on the same state: the server's address changed, so register it afresh.
      await call(base, "DELETE", `${path}/mcp-servers/${server.name}`, admin, undefined, [200, 404]);
      const registered = await call<{ imported: Array<{ name: string }>; refused: Array<{ downstream: string }> }>(
        base,
        "POST",
        `${path}/mcp-servers`,
        admin,
        server,
      );
      log(
        `${server.name}: imported ${registered.imported.length}, refused ${registered.refused.map((r) => r.downstream).join(", ") || "none"}`,
      );
      imported.push(...registered.imported.map((tool) => tool.name));
    }
    await call(base, "PUT", path, admin, { tools: imported, approver_subjects: ["reviewer-1"] });
    const agent = await call<{ secret: string }>(base, "POST", `${path}/credentials`, admin, {
      kind: "agent",
      subject_id: "conformance-user",
    });
    const started = await startProxy(new URL(`${base}${path}/mcp`), agent.secret);
    proxy = started;
    const cli = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
    const hook = join(ROOT, "test", "support", "node20-glob", "register.mjs");
    const child = spawn(
      process.execPath,
      ["--import", pathToFileURL(hook).href, cli, "server", "--url", started.url, "-o", resultsDir],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let table = "";
    child.stdout.on("data", (d: Buffer) => (table += d.toString()));
    child.stderr.on("data", (d: Buffer) => (table += d.toString()));
    const suiteExit = await new Promise<number | null>((done) =>
      child.once("exit", (code: number | null) => done(code)),
    );
    return { results: readResults(resultsDir), table, suiteExit };
  } finally {
    await proxy?.close();
    await tools.close();
    everything.stop();
    rmSync(resultsDir, { recursive: true, force: true });
  }
}

/** What {@link runConformance} takes. */
export interface ConformanceOptions {
  base: string;
  admin: string;
  consumer?: string;
  log?: (line: string) => void;
}
