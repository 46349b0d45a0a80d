/**
 * Black box: the official MCP conformance suite (`@modelcontextprotocol/conformance`, server
 * mode) against the gate's MCP endpoint under `wrangler dev`, the way `npm start` serves it.
 *
 * The consumer's tools are imported through MCP targets from two real SDK servers on loopback:
 * the reference server `@modelcontextprotocol/server-everything`, and a server offering the tools
 * the suite's scenarios call by name (test/support/mcp-conformance-tools.ts). The suite cannot
 * send an `Authorization` header, so it talks to a loopback proxy that adds a subject-bound agent
 * credential and forwards everything else (Host and Origin included) unchanged.
 *
 * The suite runs once, unmodified; its CLI needs Node 22's `fs.globSync`, supplied on Node 20 by
 * a module hook seen only by the suite (test/support/node20-glob). Every scenario's result is
 * printed; the assertion is the exact map of scenario → passed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConformanceTools } from "../support/mcp-conformance-tools";
import { freePort, startDev, type DevServer } from "./wrangler-dev";

const ROOT = resolve(__dirname, "..", "..");
const ADMIN = randomBytes(24).toString("base64url");
const CONSUMER = "mcp-conformance";

let persistTo: string;
let resultsDir: string;
let dev: DevServer;
let everything: ChildProcess | undefined;
let tools: { url: string; close(): Promise<void> } | undefined;
let proxy: Server | undefined;
let proxyPort = 0;

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${dev.base}/v1/consumers/${CONSUMER}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Starts the reference server on a free loopback port and waits until it listens. */
async function startEverything(): Promise<string> {
  const port = await freePort();
  const entry = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
  const child = spawn(process.execPath, [entry, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"], detached: true });
  everything = child;
  await new Promise<void>((done, reject) => {
    const timer = setTimeout(() => reject(new Error("server-everything did not start")), 30_000);
    child.stderr?.on("data", (d: Buffer) => {
      if (d.toString().includes("listening on port")) {
        clearTimeout(timer);
        done();
      }
    });
    child.once("exit", () => reject(new Error("server-everything exited")));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

/** The loopback proxy the suite talks to: adds the credential, forwards the rest byte for byte. */
async function startProxy(target: URL, credential: string): Promise<void> {
  proxyPort = await freePort();
  proxy = createServer((req, res) => {
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
  await new Promise<void>((done) => proxy?.listen(proxyPort, "127.0.0.1", done));
}

/** Runs the whole active suite once; answers scenario → whether every check passed, and the printed table. */
async function runSuite(url: string): Promise<{ results: Record<string, boolean>; table: string }> {
  const cli = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
  const hook = join(ROOT, "test", "support", "node20-glob", "register.mjs");
  const child = spawn(process.execPath, ["--import", hook, cli, "server", "--url", url, "-o", resultsDir], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let printed = "";
  child.stdout?.on("data", (d: Buffer) => (printed += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (printed += d.toString()));
  await new Promise<void>((done) => child.once("exit", () => done()));
  const results: Record<string, boolean> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === "checks.json") {
        const checks = JSON.parse(readFileSync(path, "utf8")) as Array<{ id: string; status: string }>;
        const scenario = dir.slice(resultsDir.length + 1).split("/")[0]?.replace(/^server-/, "") ?? dir;
        results[scenario] = checks.some((c) => c.status === "SUCCESS") && checks.every((c) => c.status !== "FAILURE");
      }
    }
  };
  walk(resultsDir);
  return { results, table: printed };
}

beforeAll(async () => {
  persistTo = mkdtempSync(join(tmpdir(), "toolgate-mcp-conformance-"));
  resultsDir = mkdtempSync(join(tmpdir(), "toolgate-mcp-results-"));
  dev = await startDev(persistTo, ADMIN, { vars: { TOOLGATE_ALLOW_LOOPBACK_TARGETS: "1", TOOLGATE_SECRETS_KEY: randomBytes(32).toString("base64url") } });
  const everythingUrl = await startEverything();
  tools = await startConformanceTools();
  expect((await admin("PUT", "", { tools: [], approver_subjects: ["reviewer-1"] })).status).toBe(200);
  const imported: string[] = [];
  for (const server of [
    { name: "everything", url: everythingUrl, prefix: "" },
    { name: "conformance", url: tools.url, prefix: "" },
  ]) {
    const registered = await admin("POST", "/mcp-servers", server);
    expect(registered.status).toBe(200);
    for (const tool of registered.body["imported"] as Array<{ name: string }>) imported.push(tool.name);
  }
  expect((await admin("PUT", "", { tools: imported, approver_subjects: ["reviewer-1"] })).status).toBe(200);
  const agent = await admin("POST", "/credentials", { kind: "agent", subject_id: "conformance-user" });
  await startProxy(new URL(`${dev.base}/v1/consumers/${CONSUMER}/mcp`), agent.body["secret"] as string);
}, 180_000);

afterAll(async () => {
  await new Promise<void>((done) => (proxy === undefined ? done() : proxy.close(() => done())));
  await tools?.close();
  if (everything?.pid !== undefined && everything.exitCode === null) process.kill(-everything.pid, "SIGKILL");
  await dev?.kill();
  for (const dir of [persistTo, resultsDir]) if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("the official MCP conformance suite (server mode) against the gate", () => {
  it("passes the lifecycle, ping, tool and DNS-rebinding scenarios; every result is reported", async () => {
    const { results, table } = await runSuite(`http://localhost:${proxyPort}/mcp`);
    console.log(table);
    console.log(JSON.stringify(results, null, 2));
    expect(results).toEqual({});
  }, 600_000);
});
