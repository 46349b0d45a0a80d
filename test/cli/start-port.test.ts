/**
 * `npm start` on a port another process holds: refused before anything starts (no demo
 * service, no wrangler dev, no workerd), naming TOOLGATE_PORT in its one line.
 */
import { spawnSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(__dirname, "..", "..");
let holder: Server;
let port = 0;

beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((done) => holder.listen(0, "127.0.0.1", done));
  const address = holder.address();
  port = typeof address === "object" && address !== null ? address.port : 0;
});

afterAll(() => new Promise<void>((done) => holder.close(() => done())));

describe("npm start on a busy port", () => {
  it("exits 1 with one line naming the port and TOOLGATE_PORT, having started nothing", () => {
    const run = spawnSync(process.execPath, ["tools/run.js", "tools/start.ts"], {
      cwd: ROOT,
      env: { ...process.env, TOOLGATE_PORT: String(port) },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      `toolgate: 127.0.0.1:${port} is in use (another npm start?); stop it, or choose another port: TOOLGATE_PORT=${port + 1} npm start\n`,
    );
    // Nothing started: not even the .dev.vars check, the demo service or wrangler printed a line.
    expect(run.stdout).toBe("");
  });

  it("refuses a TOOLGATE_PORT that is not a port number", () => {
    const run = spawnSync(process.execPath, ["tools/run.js", "tools/start.ts"], {
      cwd: ROOT,
      env: { ...process.env, TOOLGATE_PORT: "http" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect([run.status, run.stderr]).toEqual([
      1,
      'toolgate: TOOLGATE_PORT must be a port number (1–65535), not "http"\n',
    ]);
  });
});
