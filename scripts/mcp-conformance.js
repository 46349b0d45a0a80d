// `npm run mcp:conformance`: the official MCP conformance suite (`@modelcontextprotocol/conformance`,
// server mode) against the MCP endpoint of the gate `npm start` serves (TOOLGATE_BASE, by default
// http://127.0.0.1:8787; the admin token from .dev.vars). The black-box test
// test/blackbox/mcp-conformance.test.ts runs the same function against its own `wrangler dev`.
//
// The consumer "mcp-conformance" gets its tools through MCP targets from two real SDK servers on
// loopback, started here: the reference server `@modelcontextprotocol/server-everything` and the
// tools the suite's scenarios call by name (mcp-conformance-tools.js). The suite cannot send an
// `Authorization` header, so it talks to a loopback proxy that adds a subject-bound agent
// credential and forwards everything else (Host and Origin included) unchanged. The suite runs
// unmodified; on Node 20 its CLI gets Node 22's `fs.globSync` from a module hook only its own
// modules see (test/support/node20-glob).
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startConformanceTools } from "./mcp-conformance-tools.js";
import { call, freePort, readDevVars } from "./start.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Starts the reference server on a free loopback port; answers its MCP URL and how to stop it. */
async function startEverything() {
  const port = await freePort();
  const entry = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
  const child = spawn(process.execPath, [entry, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"], detached: true });
  const stop = () => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  };
  await new Promise((done, reject) => {
    const timer = setTimeout(() => reject(new Error("server-everything did not start within 30 s")), 30_000);
    child.stderr.on("data", (d) => {
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
async function startProxy(target, credential) {
  const port = await freePort();
  const proxy = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${credential}` };
    const out = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  await new Promise((done) => proxy.listen(port, "127.0.0.1", done));
  return { url: `http://localhost:${port}/mcp`, close: () => new Promise((done) => proxy.close(() => done())) };
}

/** Scenario → whether it passed (some check succeeded, none failed), from the suite's result folders. */
function readResults(dir) {
  const results = {};
  const walk = (at) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === "checks.json") {
        // A file the suite just wrote, not untrusted input.
        const checks = JSON.parse(readFileSync(path, "utf8"));
        // Each scenario's folder is `server-<scenario>-<ISO time>`.
        const scenario = (at.slice(dir.length + 1).split("/")[0] ?? at).replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
        results[scenario] = checks.some((c) => c.status === "SUCCESS") && checks.every((c) => c.status !== "FAILURE");
      }
    }
  };
  walk(dir);
  return results;
}

/**
 * Sets up the consumer on the gate at `base` (admin token `admin`), runs the whole active suite
 * once, and answers `{ results, table }`: scenario → passed, and what the suite printed.
 */
export async function runConformance({ base, admin, consumer = "mcp-conformance", log = () => {} }) {
  const everything = await startEverything();
  const tools = await startConformanceTools();
  const resultsDir = mkdtempSync(join(tmpdir(), "toolgate-mcp-results-"));
  let proxy;
  try {
    const path = `/v1/consumers/${consumer}`;
    await call(base, "PUT", path, admin, { tools: [], approver_subjects: ["reviewer-1"] });
    const imported = [];
    for (const server of [
      { name: "everything", url: everything.url, prefix: "" },
      // The suite's sampling and elicitation scenarios need the server's requests relayed to its client (opt-in per server).
      { name: "conformance", url: tools.url, prefix: "", relay: { sampling: true, elicitation: true } },
    ]) {
      // A second run on the same state: the server's address changed, so register it afresh.
      await call(base, "DELETE", `${path}/mcp-servers/${server.name}`, admin, undefined, [200, 404]);
      const registered = await call(base, "POST", `${path}/mcp-servers`, admin, server);
      log(`${server.name}: imported ${registered.imported.length}, refused ${registered.refused.map((r) => r.downstream).join(", ") || "none"}`);
      imported.push(...registered.imported.map((tool) => tool.name));
    }
    await call(base, "PUT", path, admin, { tools: imported, approver_subjects: ["reviewer-1"] });
    const agent = await call(base, "POST", `${path}/credentials`, admin, { kind: "agent", subject_id: "conformance-user" });
    proxy = await startProxy(new URL(`${base}${path}/mcp`), agent.secret);
    const cli = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
    const hook = join(ROOT, "test", "support", "node20-glob", "register.mjs");
    const child = spawn(process.execPath, ["--import", pathToFileURL(hook).href, cli, "server", "--url", proxy.url, "-o", resultsDir], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let table = "";
    child.stdout.on("data", (d) => (table += d.toString()));
    child.stderr.on("data", (d) => (table += d.toString()));
    await new Promise((done) => child.once("exit", () => done()));
    return { results: readResults(resultsDir), table };
  } finally {
    await proxy?.close();
    await tools.close();
    everything.stop();
    rmSync(resultsDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const base = process.env.TOOLGATE_BASE ?? "http://127.0.0.1:8787";
  const admin = readDevVars().TOOLGATE_ADMIN_TOKEN;
  if (admin === undefined) throw new Error("no TOOLGATE_ADMIN_TOKEN in .dev.vars: run `npm start` first");
  const { results, table } = await runConformance({ base, admin, log: (line) => process.stdout.write(`${line}\n`) });
  process.stdout.write(table);
  const passed = Object.values(results).filter(Boolean).length;
  process.stdout.write(`\nmcp conformance: ${passed} of ${Object.keys(results).length} scenarios passed\n`);
}
