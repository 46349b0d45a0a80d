/**
 * Black box: tool calls through the real gate under `wrangler dev`, then the consumer's audit
 * export verified offline by the `toolgate` command with nothing but the published verifier key
 * (`toolgate audit verify`), and one byte changed in the export found and named.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "../../tools/lib/build-cli";
import { startDev, type DevServer } from "./wrangler-dev";

const ROOT = resolve(__dirname, "..", "..");
const ADMIN = randomBytes(24).toString("base64url");
// The reference's demo orders belong to tenant "tenant-a" (this server's only consumer).
const CONSUMER = "tenant-a";

let dir: string;
let dev: DevServer;
let agent: string;
let auditor: string;

async function call(method: string, path: string, token: string | null, body?: unknown): Promise<Response> {
  return fetch(`${dev.base}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function verify(exportFile: string, key: string): { status: number | null; stdout: string } {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, "bin", "toolgate.js"), "audit", "verify", "--export", exportFile, "--key", key],
    { encoding: "utf8" },
  );
  return { status: run.status, stdout: run.stdout };
}

beforeAll(async () => {
  await buildCli();
  dir = mkdtempSync(join(tmpdir(), "toolgate-audit-offline-"));
  dev = await startDev(join(dir, "state"), ADMIN);
  const admin = async (method: string, path: string, body: unknown) =>
    (await (await call(method, `/v1/consumers/${CONSUMER}${path}`, ADMIN, body)).json()) as { secret: string };
  await admin("PUT", "", {
    tools: ["get_order"],
    approver_subjects: ["reviewer-1"],
    limits: { calls_per_second: 1_000, call_burst: 1_000 },
  });
  agent = (await admin("POST", "/credentials", { kind: "agent", subject_id: "user-1" })).secret;
  auditor = (await admin("POST", "/credentials", { kind: "auditor" })).secret;
}, 180_000);

afterAll(async () => {
  await dev?.kill();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("an audit log anyone can verify offline", () => {
  it("verifies the export of real calls with the published key, and names the entry one changed byte breaks", async () => {
    for (let i = 0; i < 40; i++) {
      const body = {
        proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
        context: {
          call_id: `c-${i}`,
          operation_id: `op-${i}`,
          provider: "openai",
          api_family: "responses",
          response_id: "r-1",
          adapter_revision: "openai-responses-v1",
        },
      };
      expect((await call("POST", `/v1/consumers/${CONSUMER}/tool-calls`, agent, body)).status).toBe(200);
    }
    const keys = (await (await call("GET", "/v1/audit/verifier-keys", null)).json()) as { keys: string[] };
    const key = keys.keys[0] as string;
    const exported = await call("GET", `/v1/consumers/${CONSUMER}/audit/export`, auditor);
    expect(exported.status).toBe(200);
    const text = await exported.text();
    const lines = text.trimEnd().split("\n");
    // The consumer's configuration and credentials, then the 40 calls; the checkpoint line last.
    const entries = lines.length - 1;
    expect(exported.headers.get("toolgate-audit-entries")).toBe(String(entries));
    const good = join(dir, "export.ndjson");
    writeFileSync(good, text);
    const passed = verify(good, key);
    expect(passed.status).toBe(0);
    const report = (out: string, field: string) =>
      out
        .split("\n")
        .find((l) => l.startsWith(`${field}:`))
        ?.replace(/^[a-z ]+:\s+/, "");
    expect([
      report(passed.stdout, "entries"),
      report(passed.stdout, "signed by"),
      report(passed.stdout, "findings"),
      report(passed.stdout, "result"),
    ]).toEqual([String(entries), key.split("+").slice(0, 2).join("+"), "none", "ok"]);
    // One byte of one entry changed: its kind, `tool_call` → `tool_cell`, in the 20th call's entry from the end.
    const target = entries - 20;
    const line = lines[target - 1] as string;
    expect(line.includes('"kind":"tool_call"')).toBe(true);
    const bad = join(dir, "export-changed.ndjson");
    writeFileSync(
      bad,
      [
        ...lines.slice(0, target - 1),
        line.replace('"kind":"tool_call"', '"kind":"tool_cell"'),
        ...lines.slice(target),
      ].join("\n") + "\n",
    );
    expect(readFileSync(bad, "utf8").length).toBe(text.length);
    const failed = verify(bad, key);
    expect(failed.status).toBe(1);
    expect(failed.stdout).toContain(`entry ${target} (line ${target}):`);
    expect(report(failed.stdout, "result")).toBe("FAILED");
  });
});
