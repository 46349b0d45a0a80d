/**
 * `npm start` revokes the credentials its previous start printed before it issues new ones: their
 * ids (never a secret) are kept in the state folder (a 0600 file), so a secret printed by an
 * earlier start stops working instead of staying valid for as long as the state.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ISSUED_FILE, readIssued } from "../../tools/lib/credentials";
import { setUpDemo } from "../../tools/lib/demo-setup";

const ROOT = resolve(__dirname, "..", "..");
/** The public port of the real start below (kept apart from a developer's 8787). */
const PORT = 8878;
const BASE = `http://127.0.0.1:${PORT}`;

const folders: string[] = [];
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-start-credentials-"));
  folders.push(dir);
  return dir;
};
let running: ChildProcess | null = null;

/** Stops a start (SIGTERM to its process group: it stops wrangler and workerd itself), SIGKILL after 20 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-(child.pid as number), signal);
    } catch {
      // already gone
    }
  };
  group("SIGTERM");
  const timer = setTimeout(() => group("SIGKILL"), 20_000);
  await exited;
  clearTimeout(timer);
}

afterEach(async () => {
  if (running !== null) await stop(running);
  running = null;
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs `tools/start.ts` (what `npm start` runs) on `state` until it prints its curl lines; answers the `export NAME=tg_…` credentials it printed. */
async function start(state: string, devVars: string): Promise<Record<string, string>> {
  const child = spawn(process.execPath, ["tools/run.js", "tools/start.ts"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, TOOLGATE_PORT: String(PORT), TOOLGATE_STATE_DIR: state, TOOLGATE_DEV_VARS: devVars },
  });
  running = child;
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const ready = await new Promise<boolean>((done) => {
    const timer = setTimeout(() => done(false), 150_000);
    child.stdout?.on("data", () => out.includes("Press Ctrl-C to stop.") && (clearTimeout(timer), done(true)));
    child.once("exit", () => (clearTimeout(timer), done(false)));
  });
  if (!ready) throw new Error(`npm start did not get ready:\n${out.slice(-3_000)}`);
  return Object.fromEntries(
    [...out.matchAll(/^export ([A-Z_]+)=(tg_\S+)$/gm)].map((m) => [m[1] as string, m[2] as string]),
  );
}

/** A route each printed credential may call: [consumer, path]. */
const ROUTE: Record<string, [string, string]> = {
  AGENT: ["demo", "/tools"],
  APPROVER: ["demo", "/approvals?state=pending"],
  AUDITOR: ["demo", "/audit?limit=1"],
  REF_AGENT: ["tenant-a", "/tools"],
  REF_APPROVER: ["tenant-a", "/approvals?state=pending"],
  REF_AUDITOR: ["tenant-a", "/audit?limit=1"],
  MCP_AGENT: ["tenant-a", "/tools"],
};

/** The status each credential gets on its route. */
async function statuses(credentials: Record<string, string>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, secret] of Object.entries(credentials)) {
    const [consumer, path] = ROUTE[name] as [string, string];
    out[name] = (
      await fetch(`${BASE}/v1/consumers/${consumer}${path}`, { headers: { authorization: `Bearer ${secret}` } })
    ).status;
  }
  return out;
}

const idOf = (secret: string) => `cred_${(secret.split("_")[2] as string).slice(0, 16)}`;
const every = (status: number) => Object.fromEntries(Object.keys(ROUTE).map((name) => [name, status]));

describe("npm start's credentials", () => {
  it("revokes those the previous start recorded before it issues and records new ones", async () => {
    const issuedPath = join(folder(), ISSUED_FILE);
    writeFileSync(
      issuedPath,
      `${JSON.stringify({
        credentials: [
          { consumer: "demo", credential_id: "cred_0000000000000001" },
          { consumer: "tenant-a", credential_id: "cred_0000000000000002" },
        ],
      })}\n`,
    );
    const calls: string[] = [];
    let n = 0;
    const call = async (
      _base: string,
      method: string,
      path: string,
      _token: string,
      _body: unknown,
      expected?: number[],
    ) => {
      calls.push(`${method} ${path}${expected === undefined ? "" : ` ${expected.join(",")}`}`);
      return path.endsWith("/credentials")
        ? { secret: `credential-${++n}`, credential_id: `cred_${String(n).padStart(16, "a")}` }
        : null;
    };
    const text: string = await setUpDemo({
      base: "http://127.0.0.1:1",
      admin: "admin",
      demoBase: "http://127.0.0.1:2",
      token: "t",
      devVarsPath: "/x/.dev.vars",
      issuedPath,
      call,
    });
    expect(calls.slice(0, 3)).toEqual([
      "DELETE /v1/consumers/demo/credentials/cred_0000000000000001 204,404",
      "DELETE /v1/consumers/tenant-a/credentials/cred_0000000000000002 204,404",
      "PUT /v1/consumers/demo",
    ]);
    expect(readIssued(issuedPath)).toEqual(
      ["demo", "demo", "demo", "tenant-a", "tenant-a", "tenant-a", "tenant-a"].map((consumer, i) => ({
        consumer,
        credential_id: `cred_${String(i + 1).padStart(16, "a")}`,
      })),
    );
    expect(statSync(issuedPath).mode & 0o777).toBe(0o600);
    expect(
      text.includes(
        "The credentials above are new and stay valid until the next npm start revokes them; the 2 the previous start printed are revoked.\n",
      ),
    ).toBe(true);
  });

  it("refuses a record it did not write (what to revoke would be unknown)", () => {
    const path = join(folder(), ISSUED_FILE);
    for (const text of [
      "",
      "[]",
      '{"credentials":[{"consumer":"demo"}]}',
      '{"credentials":[{"consumer":"demo","credential_id":"cred_x"}]}',
      '{"credentials":[],"x":1}',
    ]) {
      writeFileSync(path, text);
      expect(() => readIssued(path)).toThrow(`${path} is not the list of credentials npm start issued`);
    }
  });

  it(
    "a credential printed by the first start is refused after the second start; the new ones work",
    { timeout: 400_000 },
    async () => {
      const dir = folder();
      const state = join(dir, "state");
      const devVars = join(dir, ".dev.vars");
      const first = await start(state, devVars);
      expect(Object.keys(first).sort()).toEqual(Object.keys(ROUTE).sort());
      expect(await statuses(first)).toEqual(every(200));
      await stop(running as ChildProcess);
      const second = await start(state, devVars);
      const [old, fresh] = [await statuses(first), await statuses(second)];
      const recorded = readIssued(join(state, ISSUED_FILE)) as Array<{ credential_id: string }>;
      expect([old, fresh]).toEqual([every(401), every(200)]);
      expect(recorded.map((r) => r.credential_id).sort()).toEqual(Object.values(second).map(idOf).sort());
      expect(statSync(join(state, ISSUED_FILE)).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(state, ISSUED_FILE), "utf8").includes("tg_")).toBe(false);
    },
  );
});
