/**
 * R5 hostile HTTP at the socket, against what `npm start` serves: `wrangler dev` behind the local
 * edge (tools/lib/local-edge.ts). Seeded raw requests no client library would send — repeated or
 * lying framing headers, Content-Length with Transfer-Encoding, broken chunks, bodies that end
 * early or never come, unknown methods, missing Host, oversized heads, invalid bytes in
 * headers and bodies, repeated Idempotency-Key / Authorization / Content-Type, compressed
 * garbage, Expect: 100-continue — on every body route with genuine and broken credentials.
 * Pass: every request gets an answer, none is a 5xx, every 4xx is a catalog problem at its
 * catalog status, no answer echoes a credential.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalEdge } from "../../../tools/lib/local-edge";
import { PROBLEM_STATUS } from "../../../src/worker/http/problem";
import { startDev, type DevServer } from "../../blackbox/wrangler-dev";
import { prng, report, seedOf } from "../support/figures";
import { rawRequest, type RawAnswer } from "../support/raw-http";

const ROOT = resolve(__dirname, "..", "..", "..");
const ADMIN = randomBytes(24).toString("base64url");
const CONSUMER = "tenant-a";
const SEED = seedOf(5050);
const COUNT = Number(process.env.TOOLGATE_R5_RAW ?? "5000");
const CONCURRENCY = 16;
/** The edge's request timeout in this check (npm start uses 15 s); stalls are answered 408 after it. */
const STALL_MS = 1_500;

let persistTo: string;
let dev: DevServer;
let edge: { port: number; close(): Promise<void> };
const secrets: Record<string, string> = {};

const enc = (s: string) => Buffer.from(s, "latin1");

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

interface RawCase {
  family: string;
  bytes: Buffer;
  halfClose: boolean;
  waitMs: number;
}

function toolCall(key: string): string {
  return JSON.stringify({
    principal: { subject_id: "user-1", roles: [] },
    proposal: { name: "get_order", arguments: { order_ref: "ORDER-7" } },
    context: {
      call_id: `raw-${key}`,
      operation_id: `op-${key}`,
      idempotency_key: null,
      provider: "openai",
      api_family: "responses",
      response_id: "resp-1",
      adapter_revision: "openai-responses-v1",
    },
  });
}

/** One seeded hostile request. */
function hostileRaw(random: () => number, i: number): RawCase {
  const routes: Array<[string, string, string]> = [
    ["POST", `/v1/consumers/${CONSUMER}/tool-calls`, "agent"],
    ["POST", `/v1/consumers/${CONSUMER}/tool-calls/status`, "agent"],
    ["POST", `/v1/consumers/${CONSUMER}/approvals/apr_${"0".repeat(32)}`, "approver"],
    ["POST", `/v1/consumers/${CONSUMER}/runtime/envelopes`, "runtime"],
    ["POST", `/v1/consumers/${CONSUMER}/capability/providers/provider-1/observations`, "provider"],
    ["POST", `/v1/consumers/${CONSUMER}/credentials`, "admin"],
    ["GET", `/v1/consumers/${CONSUMER}/audit`, "auditor"],
  ];
  const [method, path, kind] = pick(random, routes);
  const token = secrets[kind] as string;
  const auth =
    random() < 0.8
      ? `Authorization: Bearer ${token}`
      : pick(random, [
          "Authorization: Bearer tg_agent_x",
          "Authorization: Basic Zm9vOmJhcg==",
          `Authorization: Bearer ${token}x`,
        ]);
  const body =
    random() < 0.7
      ? toolCall(String(i))
      : pick(random, ["{}", "[]", "", '{"a":1,"a":2}', '{"__proto__":{"x":1}}', "[".repeat(5000)]);
  const base = [`${method} ${path} HTTP/1.1`, "Host: 127.0.0.1", auth, "Content-Type: application/json"];
  const head = (lines: string[]) => enc(`${lines.join("\r\n")}\r\n\r\n`);
  const plain = (family: string, bytes: Buffer, halfClose = true, waitMs = 5_000): RawCase => ({
    family,
    bytes,
    halfClose,
    waitMs,
  });
  const cl = (n: number | string) => `Content-Length: ${n}`;
  const r = random();
  if (r < 0.08)
    return plain(
      "duplicate Idempotency-Key",
      Buffer.concat([head([...base, "Idempotency-Key: k-1", "Idempotency-Key: k-2", cl(body.length)]), enc(body)]),
    );
  if (r < 0.14)
    return plain("duplicate Authorization", Buffer.concat([head([...base, auth, cl(body.length)]), enc(body)]));
  if (r < 0.2)
    return plain(
      "duplicate Content-Type",
      Buffer.concat([
        head([...base, pick(random, ["Content-Type: text/plain", "Content-Type: application/json"]), cl(body.length)]),
        enc(body),
      ]),
    );
  if (r < 0.26)
    return plain(
      "duplicate Content-Length",
      Buffer.concat([head([...base, cl(body.length), cl(pick(random, [body.length, body.length + 1, 0]))]), enc(body)]),
    );
  if (r < 0.32)
    return plain(
      "Content-Length + Transfer-Encoding",
      Buffer.concat([head([...base, cl(body.length), "Transfer-Encoding: chunked"]), enc(body)]),
    );
  if (r < 0.37)
    return plain(
      "broken chunked body",
      Buffer.concat([
        head([...base, "Transfer-Encoding: chunked"]),
        enc(
          pick(random, [
            `zz\r\n${body}\r\n0\r\n\r\n`,
            `${(body.length + 5).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
            `${body.length.toString(16)}\r\n${body}`,
            "-1\r\n\r\n",
          ]),
        ),
      ]),
    );
  if (r < 0.45)
    return plain(
      "Content-Length shorter than the body",
      Buffer.concat([head([...base, cl(Math.max(0, body.length - 1 - Math.floor(random() * 10)))]), enc(body)]),
    );
  if (r < 0.53)
    return plain(
      "Content-Length longer than the body, then EOF",
      Buffer.concat([head([...base, cl(body.length + 1 + Math.floor(random() * 1_000_000))]), enc(body)]),
    );
  if (r < 0.545)
    return plain(
      "Content-Length longer than the body, connection held",
      Buffer.concat([head([...base, cl(body.length + 100)]), enc(body)]),
      false,
      STALL_MS + 3_000,
    );
  if (r < 0.6)
    return plain(
      "invalid Content-Length",
      Buffer.concat([
        head([...base, cl(pick(random, ["-1", "abc", "1e3", "0x10", " 12", "99999999999999999999", ""]))]),
        enc(body),
      ]),
    );
  if (r < 0.65)
    return plain(
      "huge declared body",
      Buffer.concat([head([...base, cl(pick(random, [5_000_000, 2 ** 40, 1_048_577]))]), enc(body)]),
    );
  if (r < 0.7)
    return plain(
      "unknown or unusual method",
      head([
        `${pick(random, ["FOO", "TRACE", "CONNECT", "PROPFIND", "M-SEARCH", "get", "P0ST", "\u0000"])} ${path} HTTP/1.1`,
        "Host: 127.0.0.1",
        auth,
      ]),
    );
  if (r < 0.74)
    return plain(
      "missing Host / old version",
      Buffer.concat([
        head([
          `${method} ${path} ${pick(random, ["HTTP/1.1", "HTTP/1.0", "HTTP/0.9", "HTTP/2.0", "HTTP/1.1 x"])}`,
          auth,
          "Content-Type: application/json",
          cl(body.length),
        ]),
        enc(body),
      ]),
    );
  if (r < 0.78)
    return plain(
      "oversized head",
      Buffer.concat([
        head([...base, `X-Pad: ${"a".repeat(pick(random, [20_000, 40_000, 100_000]))}`, cl(body.length)]),
        enc(body),
      ]),
    );
  if (r < 0.82)
    return plain(
      "many headers",
      Buffer.concat([
        head([...base, ...Array.from({ length: pick(random, [200, 2_000]) }, (_, k) => `X-H${k}: v`), cl(body.length)]),
        enc(body),
      ]),
    );
  if (r < 0.87) {
    const bad = Buffer.from([pick(random, [0xff, 0xc3, 0x80, 0x00, 0x7f, 0x0b])]);
    return plain(
      "invalid bytes in a header",
      Buffer.concat([
        enc(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: k`),
        bad,
        enc(`\r\n${auth}\r\nContent-Type: application/json\r\n${cl(body.length)}\r\n\r\n`),
        enc(body),
      ]),
    );
  }
  if (r < 0.91) {
    const bytes = Buffer.concat([
      enc(body.slice(0, 20)),
      Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80, 0xff]),
      enc(body.slice(20)),
    ]);
    return plain("invalid UTF-8 body", Buffer.concat([head([...base, cl(bytes.length)]), bytes]));
  }
  if (r < 0.94) {
    const bytes = randomBytes(8 + Math.floor(random() * 64));
    return plain(
      "compressed garbage",
      Buffer.concat([
        head([...base, `Content-Encoding: ${pick(random, ["gzip", "br", "deflate", "zstd"])}`, cl(bytes.length)]),
        bytes,
      ]),
    );
  }
  if (r < 0.955)
    return plain(
      "Expect: 100-continue",
      Buffer.concat([head([...base, "Expect: 100-continue", cl(body.length)]), enc(body)]),
    );
  if (r < 0.97) {
    const target = pick(random, [
      "*",
      `http://elsewhere.example${path}`,
      `https://127.0.0.1${path}?x=1`,
      "127.0.0.1:8787",
      `${path}#frag`,
      "//",
      "/%zz",
      `${path}/..%2f..%2f`,
      `/${"a".repeat(8_000)}`,
    ]);
    return plain(
      "request-target forms",
      Buffer.concat([
        head([
          `${pick(random, ["GET", "POST", "OPTIONS"])} ${target} HTTP/1.1`,
          "Host: 127.0.0.1",
          auth,
          "Content-Type: application/json",
          cl(body.length),
        ]),
        enc(body),
      ]),
    );
  }
  if (r < 0.98)
    return plain(
      "bare LF line ends",
      enc(`${method} ${path} HTTP/1.1\nHost: 127.0.0.1\n${auth}\n${cl(body.length)}\n\n${body}`),
    );
  return plain("random bytes", randomBytes(1 + Math.floor(random() * 200)));
}

/** Why an answer breaks the contract, or null. */
function breach(a: RawAnswer): string | null {
  if (a.outcome !== "answered") return `no answer (${a.outcome})`;
  if (a.status >= 500) return `status ${a.status}`;
  for (const secret of Object.values(secrets)) if (a.body.includes(secret)) return "answer echoes a credential";
  if (a.status < 400) return null;
  if (!(a.headers.get("content-type")?.[0] ?? "").startsWith("application/problem+json"))
    return `${a.status} without problem+json`;
  let body: { code?: unknown; status?: unknown };
  try {
    body = JSON.parse(a.body) as typeof body;
  } catch {
    return `${a.status} body is not JSON`;
  }
  const code = body.code;
  if (typeof code !== "string" || !Object.hasOwn(PROBLEM_STATUS, code))
    return `code ${String(code)} not in the catalog`;
  if (PROBLEM_STATUS[code as keyof typeof PROBLEM_STATUS] !== a.status || body.status !== a.status)
    return `code ${code} with status ${a.status}`;
  return null;
}

beforeAll(async () => {
  persistTo = mkdtempSync(join(tmpdir(), "toolgate-r5-raw-"));
  const logs = join(ROOT, ".toolgate", "reliability-logs");
  mkdirSync(logs, { recursive: true });
  dev = await startDev(persistTo, ADMIN, { logFile: join(logs, "r5-raw.log") });
  edge = await startLocalEdge({
    port: 0,
    target: { host: "127.0.0.1", port: Number(new URL(dev.base).port) },
    requestTimeoutMs: STALL_MS,
  });
  const base = `http://127.0.0.1:${edge.port}/v1/consumers/${CONSUMER}`;
  const admin = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`setup ${method} ${path}: ${res.status}`);
    return (await res.json()) as { secret: string };
  };
  await admin("PUT", "", {
    tools: ["get_order", "create_refund_draft"],
    approver_subjects: ["human-reviewer-1"],
    limits: { calls_per_second: 1_000_000, call_burst: 1_000_000 },
  });
  secrets.admin = ADMIN;
  for (const [kind, subject] of [
    ["agent"],
    ["approver", "human-reviewer-1"],
    ["auditor"],
    ["runtime"],
    ["provider", "provider-1"],
  ] as Array<[string, string?]>) {
    secrets[kind] = (
      await admin("POST", "/credentials", subject === undefined ? { kind } : { kind, subject_id: subject })
    ).secret;
  }
}, 180_000);

afterAll(async () => {
  await edge?.close();
  await dev?.kill();
  if (persistTo !== undefined) rmSync(persistTo, { recursive: true, force: true });
});

describe("R5 hostile HTTP at the socket (npm start's edge + wrangler dev)", () => {
  it("answers every malformed request with a catalog 4xx or a normal answer, never a 5xx", async () => {
    const random = prng(SEED);
    const cases = Array.from({ length: COUNT }, (_, i) => hostileRaw(random, i));
    const breaches = new Map<string, number>();
    const families = new Map<string, Map<number, number>>();
    let next = 0;
    let fiveXx = 0;
    let unanswered = 0;
    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= cases.length) return;
        const c = cases[i] as RawCase;
        const a = await rawRequest(edge.port, c.bytes, { halfClose: c.halfClose, waitMs: c.waitMs });
        if (a.status >= 500) fiveXx++;
        if (a.outcome !== "answered") unanswered++;
        const byStatus = families.get(c.family) ?? new Map<number, number>();
        byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
        families.set(c.family, byStatus);
        const why = breach(a);
        if (why !== null) breaches.set(`${c.family}: ${why}`, (breaches.get(`${c.family}: ${why}`) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const health = await fetch(`http://127.0.0.1:${edge.port}/healthz`);
    const rows = [...breaches].map(([k, n]) => `${k} ×${n}`);
    const pass = rows.length === 0 && health.status === 200;
    report({
      id: "R5",
      check: "hostile HTTP at the socket (framing, methods, heads, bytes) via npm start's edge",
      figure: `${cases.length} raw requests in ${families.size} families, ${fiveXx} 5xx, ${unanswered} unanswered, ${rows.length} breach kinds; gate healthy after`,
      pass,
      seed: SEED,
    });
    expect(rows).toEqual([]);
    expect(health.status).toBe(200);
  });
});
