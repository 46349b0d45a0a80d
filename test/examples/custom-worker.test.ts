/**
 * examples/custom-worker from a packed install: this repository through `npm pack`, the example
 * installed from the tarball in a temporary folder, type-checked there against the packed
 * sources, and run under `wrangler dev` (workerd) on loopback. Its `word_count` tool, written
 * as code with `defineTool` from "toolgate/worker", is enabled for a consumer and called over
 * HTTP as an agent would call it.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  installExample,
  removeInstalled,
  ROOT,
  startExample,
  type ExampleServer,
  type InstalledExample,
} from "./packed-example";

const ADMIN = randomBytes(24).toString("base64url");
const CONSUMER = "words";

let example: InstalledExample | undefined;
let server: ExampleServer | undefined;
/** The start in progress: a hook that timed out still stops what it started. */
let starting: Promise<ExampleServer> | undefined;
let typecheck: Promise<{ code: number | null; output: string }>;
let agent: string;
const timings: Record<string, number> = {};

/** Runs the repository's TypeScript on the installed example (its own tsconfig.json). */
function typecheckApp(app: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", app], {
      cwd: app,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("exit", (code) => done({ code, output }));
  });
}

async function send(
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const base = server?.base ?? "";
  const res = await fetch(`${base}/v1/consumers/${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // A 5xx is a bug of the gate: show what the Worker logged.
  if (res.status >= 500) {
    await new Promise((r) => setTimeout(r, 300)); // the log line arrives after the answer
    throw new Error(`${method} ${path}: ${res.status} ${text}\n${server?.output().slice(-3000) ?? ""}`);
  }
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
}

/** A tool call of the OpenAI Responses profile (docs/http-api.md, "Tool calls"). */
function toolCall(callId: string, name: string, args: Record<string, unknown>) {
  return {
    proposal: { name, arguments: args },
    context: {
      call_id: callId,
      operation_id: `op-${callId}`,
      idempotency_key: null,
      provider: "openai",
      api_family: "responses",
      response_id: "resp-1",
      adapter_revision: "openai-responses-v1",
    },
  };
}

beforeAll(async () => {
  const started = Date.now();
  example = await installExample("custom-worker");
  timings["pack+install"] = Date.now() - started;
  typecheck = typecheckApp(example.app);
  const devStarted = Date.now();
  starting = startExample(example, {
    TOOLGATE_ADMIN_TOKEN: ADMIN,
    TOOLGATE_TOKEN_KEY: randomBytes(32).toString("base64url"),
    TOOLGATE_SIGNING_KEY: randomBytes(32).toString("base64url"),
  });
  server = await starting;
  timings["wrangler dev healthy"] = Date.now() - devStarted;
  const put = await send("PUT", CONSUMER, ADMIN, { tools: ["word_count"], approver_subjects: [] });
  expect([put.status, put.body["tools"]]).toEqual([200, ["word_count"]]);
  const minted = await send("POST", `${CONSUMER}/credentials`, ADMIN, { kind: "agent", subject_id: "user-1" });
  expect(minted.status).toBe(201);
  agent = minted.body["secret"] as string;
}, 120_000);

afterAll(async () => {
  await (server ?? (await starting?.catch(() => undefined)))?.stop();
  if (example !== undefined) removeInstalled(example);
  console.log(
    `custom-worker example: ${Object.entries(timings)
      .map(([step, ms]) => `${step} ${ms} ms`)
      .join(", ")}`,
  );
}, 30_000);

describe("examples/custom-worker from a packed install", () => {
  it("the tarball holds the sources the worker entry needs, and no tests", () => {
    const packed = example?.packed ?? [];
    expect(packed).toContain("src/worker/gate.ts");
    expect(packed).toContain("src/worker/kernel/consumer-object.ts");
    expect(packed).toContain("package.json");
    expect(packed.filter((path) => /^(test|fixtures|bench|docs|examples)\//.test(path))).toEqual([]);
  });

  it("type-checks against the packed package (tsc -p, the example's tsconfig)", async () => {
    const started = Date.now();
    expect(await typecheck).toEqual({ code: 0, output: "" });
    timings["tsc (after dev start)"] = Date.now() - started;
  }, 60_000);

  it("an agent's call of word_count answers the counted words as a succeeded Tool Result v2", async () => {
    const before = Math.floor(Date.now() / 1000);
    const answer = await send(
      "POST",
      `${CONSUMER}/tool-calls`,
      agent,
      toolCall("call-1", "word_count", { text: "the quick  brown fox\njumps" }),
    );
    const after = Math.floor(Date.now() / 1000);
    const result = answer.body["model_result"] as { provenance?: { observed_at?: string } } | undefined;
    const observedAt = result?.provenance?.observed_at ?? "(none)";
    expect(answer).toEqual({
      status: 200,
      body: {
        model_result: {
          schema_version: "tool-model-result-v2",
          status: "succeeded",
          data: { words: 5 },
          error: null,
          execution: { outcome: "committed", delivery: "fresh", complete: true, truncated: false },
          provenance: {
            source_label: "word-count",
            producer_revision: "word-count-v1",
            resource_revision: null,
            observed_at: observedAt,
            trust: "untrusted_data",
          },
        },
        provider_output: { type: "function_call_output", call_id: "call-1", output: JSON.stringify(result) },
        // The call's receipt: the third audit entry (after consumer.configured and credential.created).
        audit: { seq: 3, leaf_hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      },
    });
    // The handler's clock: the second of the call.
    const observed = Date.parse(observedAt) / 1000;
    expect(observed >= before && observed <= after).toBe(true);
  });

  it("the tool's argument rules apply: text that is only whitespace is INVALID_ARGUMENTS, and nothing ran", async () => {
    const answer = await send(
      "POST",
      `${CONSUMER}/tool-calls`,
      agent,
      toolCall("call-2", "word_count", { text: " \t " }),
    );
    const result = (answer.body["model_result"] ?? answer.body) as Record<string, unknown>;
    expect([
      answer.status,
      result["status"],
      result["data"],
      (result["error"] as { code?: string } | null)?.code,
      result["execution"],
    ]).toEqual([
      200,
      "failed",
      null,
      "INVALID_ARGUMENTS",
      { outcome: "not_started", delivery: "fresh", complete: true, truncated: false },
    ]);
  });

  it("a consumer that does not list word_count cannot call it (UNKNOWN_TOOL)", async () => {
    expect((await send("PUT", "other", ADMIN, { tools: [], approver_subjects: [] })).status).toBe(200);
    const minted = await send("POST", "other/credentials", ADMIN, { kind: "agent", subject_id: "user-1" });
    const answer = await send(
      "POST",
      "other/tool-calls",
      minted.body["secret"] as string,
      toolCall("call-3", "word_count", { text: "one two" }),
    );
    const result = (answer.body["model_result"] ?? answer.body) as {
      status?: string;
      error?: { code?: string } | null;
    };
    expect([answer.status, result.status, result.error?.code]).toEqual([200, "failed", "UNKNOWN_TOOL"]);
  });
});
