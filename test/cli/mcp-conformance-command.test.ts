/**
 * `npm run mcp:conformance` around the suite: which gate it talks to (TOOLGATE_BASE, else
 * TOOLGATE_PORT, else `npm start`'s port), one line and exit 2 when no gate answers or no admin
 * token is found (never a stack trace), and exit 0 only when every scenario passed. Loopback only:
 * a closed port, and small servers standing in for a gate.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PORT, gatePort } from "../../tools/lib/gate-port";
import {
  adminToken,
  conformanceBase,
  conformanceVerdict,
  devVarsPath,
  EXIT_CANNOT_RUN,
  EXIT_FAILED,
  EXIT_PASSED,
  probeGate,
} from "../../tools/lib/mcp-conformance-command";
import { DEV_VARS, freePort } from "../../tools/lib/wrangler-dev";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

/** The end of every line about a gate the command cannot use. */
const HOW_TO_POINT =
  "start one with `npm start` (it serves http://127.0.0.1:8787, or the port TOOLGATE_PORT names), or point this command at a running gate with TOOLGATE_PORT=<port> or TOOLGATE_BASE=<url>";

/** A loopback HTTP server answering GET /healthz with `status` (null: never answering). */
async function standIn(status: number | null): Promise<{ base: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (status === null) return;
    res.writeHead(req.url === "/healthz" ? status : 404, { "content-type": "application/json" });
    res.end('{"ok":true}');
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** Runs the command as `npm run mcp:conformance` does, with `env` in place of the gate's settings. */
function runCommand(env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const inherited = { ...process.env };
  delete inherited.TOOLGATE_BASE;
  delete inherited.TOOLGATE_PORT;
  delete inherited.TOOLGATE_DEV_VARS;
  const child = spawn(process.execPath, ["tools/run.js", "tools/mcp-conformance.ts"], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((done) => child.once("close", (status: number | null) => done({ status, stdout, stderr })));
}

describe("which gate the command talks to", () => {
  it("takes TOOLGATE_BASE, else 127.0.0.1 on TOOLGATE_PORT, else npm start's port", () => {
    const bases = [
      {},
      { TOOLGATE_PORT: "9100" },
      { TOOLGATE_PORT: "" },
      { TOOLGATE_BASE: "", TOOLGATE_PORT: "9100" },
      { TOOLGATE_BASE: "http://gate.local:8080/", TOOLGATE_PORT: "9100" },
      { TOOLGATE_BASE: "http://gate.local/toolgate//" },
      { TOOLGATE_BASE: "http://127.0.0.1:9200", TOOLGATE_PORT: "not a port" },
    ].map((env) => conformanceBase(env));
    expect(bases).toEqual([
      { ok: true, base: "http://127.0.0.1:8787" },
      { ok: true, base: "http://127.0.0.1:9100" },
      { ok: true, base: "http://127.0.0.1:8787" },
      { ok: true, base: "http://127.0.0.1:9100" },
      { ok: true, base: "http://gate.local:8080" },
      { ok: true, base: "http://gate.local/toolgate" },
      { ok: true, base: "http://127.0.0.1:9200" },
    ]);
  });

  it("uses the port npm start serves by default", () => {
    expect([DEFAULT_PORT, gatePort(undefined)]).toEqual([8787, { ok: true, port: 8787 }]);
  });

  it("refuses a TOOLGATE_PORT that is not a port, with npm start's words", () => {
    expect([conformanceBase({ TOOLGATE_PORT: "http" }), conformanceBase({ TOOLGATE_PORT: "70000" })]).toEqual([
      {
        ok: false,
        code: "BAD_PORT",
        message: 'mcp conformance: TOOLGATE_PORT must be a port number (1–65535), not "http"',
      },
      {
        ok: false,
        code: "BAD_PORT",
        message: 'mcp conformance: TOOLGATE_PORT must be a port number (1–65535), not "70000"',
      },
    ]);
  });

  it("refuses a TOOLGATE_BASE that is not an http URL", () => {
    for (const base of [
      "127.0.0.1:8787",
      "localhost:8787",
      "ftp://gate.local",
      "https://gate.example",
      "http://gate.local/?x=1",
      "gate",
    ])
      expect(conformanceBase({ TOOLGATE_BASE: base, TOOLGATE_PORT: "9100" })).toEqual({
        ok: false,
        code: "BAD_BASE",
        message: `mcp conformance: TOOLGATE_BASE must be the gate's http URL, such as http://127.0.0.1:8787, not ${JSON.stringify(base)}`,
      });
  });
});

describe("whether a gate answers", () => {
  it("says which URL refused, that npm start serves it and how to point elsewhere", async () => {
    const port = await freePort();
    expect(await probeGate(`http://127.0.0.1:${port}`)).toEqual({
      ok: false,
      code: "NO_GATE",
      message: `mcp conformance: no gate answers at http://127.0.0.1:${port} (GET /healthz: connection refused); ${HOW_TO_POINT}`,
    });
  });

  it("gives up on a server that never answers after its timeout", async () => {
    const silent = await standIn(null);
    try {
      expect(await probeGate(silent.base, 200)).toEqual({
        ok: false,
        code: "NO_GATE",
        message: `mcp conformance: no gate answers at ${silent.base} (GET /healthz: no answer within 200 ms); ${HOW_TO_POINT}`,
      });
    } finally {
      await silent.close();
    }
  });

  it("accepts 200 from GET /healthz and names any other status", async () => {
    const healthy = await standIn(200);
    const unhealthy = await standIn(503);
    try {
      expect([await probeGate(healthy.base), await probeGate(unhealthy.base)]).toEqual([
        { ok: true },
        {
          ok: false,
          code: "NOT_HEALTHY",
          message: `mcp conformance: GET ${unhealthy.base}/healthz answered 503, not 200: no healthy gate there; ${HOW_TO_POINT}`,
        },
      ]);
    } finally {
      await healthy.close();
      await unhealthy.close();
    }
  });
});

describe("the admin token", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "toolgate-conformance-command-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is read from TOOLGATE_DEV_VARS, else .dev.vars", () => {
    expect([
      devVarsPath({}),
      devVarsPath({ TOOLGATE_DEV_VARS: "" }),
      devVarsPath({ TOOLGATE_DEV_VARS: "x/dev.vars" }),
    ]).toEqual([DEV_VARS, DEV_VARS, resolve("x/dev.vars")]);
  });

  it("is one line naming the file when the file or the token is missing", () => {
    const missing = join(dir, "none.vars");
    const empty = join(dir, "empty.vars");
    const full = join(dir, "full.vars");
    writeFileSync(empty, "TOOLGATE_TOKEN_KEY=abc\n");
    writeFileSync(full, "TOOLGATE_ADMIN_TOKEN=admin-token-1\n");
    const hint =
      "`npm start` writes it there; start the gate with `npm start`, or name its secrets file in TOOLGATE_DEV_VARS";
    expect([adminToken(missing), adminToken(empty), adminToken(full)]).toEqual([
      {
        ok: false,
        code: "NO_DEV_VARS",
        message: `mcp conformance: no ${missing} to read the admin token from: ${hint}`,
      },
      { ok: false, code: "NO_ADMIN_TOKEN", message: `mcp conformance: ${empty} has no TOOLGATE_ADMIN_TOKEN: ${hint}` },
      { ok: true, token: "admin-token-1" },
    ]);
  });
});

describe("the exit status", () => {
  it("is 0 only when every scenario passed and the suite agrees", () => {
    expect(conformanceVerdict({ "server-initialize": true, ping: true, "tools-list": true }, 0)).toEqual({
      status: EXIT_PASSED,
      line: "mcp conformance: all 3 scenarios passed",
    });
  });

  it("is 1 when a scenario failed, naming every failed one", () => {
    const results = {
      "server-initialize": true,
      "completion-complete": false,
      ping: true,
      "server-sse-multiple-streams": false,
      "resources-list": false,
    };
    expect(conformanceVerdict(results, 1)).toEqual({
      status: EXIT_FAILED,
      line: "mcp conformance: 2 of 5 scenarios passed; failed: completion-complete, server-sse-multiple-streams, resources-list",
    });
  });

  it("is 1 when the suite reported nothing, or failed where no scenario did", () => {
    expect([
      conformanceVerdict({}, 0),
      conformanceVerdict({ ping: true }, 1),
      conformanceVerdict({ ping: true }, null),
    ]).toEqual([
      { status: EXIT_FAILED, line: "mcp conformance: the suite reported no scenario (its output is above)" },
      {
        status: EXIT_FAILED,
        line: "mcp conformance: all 1 scenarios reported passed, but the suite exited 1 (its output is above)",
      },
      {
        status: EXIT_FAILED,
        line: "mcp conformance: all 1 scenarios reported passed, but the suite was stopped by a signal (its output is above)",
      },
    ]);
  });
});

describe("npm run mcp:conformance without a gate", () => {
  it("honours TOOLGATE_PORT and exits 2 with one line, no stack, when nothing answers there", async () => {
    const port = await freePort();
    const run = await runCommand({ TOOLGATE_PORT: String(port) });
    expect(run).toEqual({
      status: EXIT_CANNOT_RUN,
      stdout: "",
      stderr: `mcp conformance: no gate answers at http://127.0.0.1:${port} (GET /healthz: connection refused); ${HOW_TO_POINT}\n`,
    });
  }, 30_000);

  it("exits 2 with one line when the gate answers but no admin token is found", async () => {
    const gate = await standIn(200);
    const missing = join(tmpdir(), `toolgate-no-such-dev-vars-${String(process.pid)}`);
    try {
      const run = await runCommand({ TOOLGATE_BASE: gate.base, TOOLGATE_DEV_VARS: missing });
      expect(run).toEqual({
        status: EXIT_CANNOT_RUN,
        stdout: "",
        stderr: `mcp conformance: no ${missing} to read the admin token from: \`npm start\` writes it there; start the gate with \`npm start\`, or name its secrets file in TOOLGATE_DEV_VARS\n`,
      });
    } finally {
      await gate.close();
    }
  }, 30_000);
});
