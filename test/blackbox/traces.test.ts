/**
 * Black box, traces: the real gate under `wrangler dev` exports its spans to a real OTLP/HTTP
 * receiver (node:http on 127.0.0.1, a random port) configured only through bindings
 * (TOOLGATE_OTLP_ENDPOINT, TOOLGATE_OTLP_HEADERS; loopback http through
 * TOOLGATE_ALLOW_LOOPBACK_TARGETS). The same port serves a data tool's target. Checked: the
 * span trees of a read with its downstream call, a write that opens an approval, the approved
 * write, an unknown tool; the collector's key as a header only; nothing sensitive in any export
 * or in wrangler's output.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerTools } from "./ledger-gate";
import { startDev, type DevServer } from "./wrangler-dev";

const ADMIN = randomBytes(24).toString("base64url");
const COLLECTOR_KEY = randomBytes(18).toString("base64url");
const CONSUMER = "traces-bb";
const SUBJECT = "bb-subject-93";
const CUSTOMER = "cu-z4k";

interface Kv {
  key: string;
  value: Record<string, unknown>;
}
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Kv[];
  status: { code: number; message?: string };
}
interface Export {
  text: string;
  headers: Record<string, string | string[] | undefined>;
  body: {
    resourceSpans: Array<{
      resource: { attributes: Kv[] };
      scopeSpans: Array<{ scope: { name: string; version: string }; spans: Span[] }>;
    }>;
  };
}

const exports: Export[] = [];
const lookups: string[] = [];
let receiver: Server;
let port: number;
let persistTo: string;
let logDir: string;
let dev: DevServer;
const secrets: string[] = [ADMIN, COLLECTOR_KEY];
let agent: string;
let approver: string;

const spans = () => exports.flatMap((e) => e.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
const attributes = (span: Span) => Object.fromEntries(span.attributes.map((a) => [a.key, a.value]));
const str = (stringValue: string) => ({ stringValue });

/** The `nth` trace whose root carries this call id, once it has `count` spans: its root and its children's name → [kind, parent is root, attributes]. */
async function trace(callId: string, count: number, nth = 0) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const all = spans();
    const root = all.filter(
      (s) =>
        s.parentSpanId === undefined &&
        JSON.stringify(attributes(s)["gen_ai.tool.call.id"]) === JSON.stringify(str(callId)),
    )[nth];
    const tree = root === undefined ? [] : all.filter((s) => s.traceId === root.traceId && s !== root);
    if (root !== undefined && tree.length + 1 >= count) {
      return {
        root,
        children: Object.fromEntries(
          tree.map((s) => [s.name, [s.kind, s.parentSpanId === root.spanId, attributes(s)]]),
        ),
      };
    }
    if (Date.now() > deadline) throw new Error(`the trace of ${callId} did not arrive:\n${dev.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function request(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${dev.base}/v1/consumers/${CONSUMER}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

function call(callId: string, name: string, args: Record<string, unknown>, key: string | null = null) {
  const context = {
    call_id: callId,
    operation_id: `op-${callId}`,
    idempotency_key: key,
    provider: "openai",
    api_family: "responses",
    response_id: "resp-1",
    adapter_revision: "openai-responses-v1",
  };
  return request("POST", "/tool-calls", agent, {
    principal: { subject_id: SUBJECT, roles: [] },
    proposal: { name, arguments: args },
    context,
  });
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      if (req.url === "/v1/traces") {
        exports.push({ text, headers: req.headers, body: JSON.parse(text) as Export["body"] });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      } else if (req.url === "/ledger/lookup" || req.url === "/ledger/invoices") {
        lookups.push(`${req.url} ${text}`);
        const args = JSON.parse(text) as { customer: string; amount?: number };
        const data =
          req.url === "/ledger/lookup"
            ? { customer: args.customer, tier: "gold" }
            : { invoice_id: "INV-1", customer: args.customer, amount: args.amount };
        res
          .writeHead(req.url === "/ledger/lookup" ? 200 : 201, { "content-type": "application/json" })
          .end(JSON.stringify({ data, resource_revision: null, observed_at: "2026-07-18T00:00:00Z" }));
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
  port = (receiver.address() as { port: number }).port;
  persistTo = mkdtempSync(join(tmpdir(), "toolgate-traces-"));
  logDir = mkdtempSync(join(tmpdir(), "toolgate-traces-log-"));
  dev = await startDev(persistTo, ADMIN, {
    logFile: join(logDir, "wrangler.log"),
    vars: {
      TOOLGATE_OTLP_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`,
      TOOLGATE_OTLP_HEADERS: `x-collector-key=${COLLECTOR_KEY}`,
      TOOLGATE_ALLOW_LOOPBACK_TARGETS: "1",
    },
  });
  const admin = (method: string, path: string, body: unknown) => request(method, path, ADMIN, body);
  expect((await admin("PUT", "", { tools: [], approver_subjects: ["bb-reviewer"] })).status).toBe(200);
  for (const [name, definition] of Object.entries(ledgerTools(port, { description: "Create an invoice." })))
    expect((await admin("PUT", `/tools/${name}`, definition)).status).toBe(200);
  expect(
    (await admin("PUT", "", { tools: ["lookup_customer", "create_invoice"], approver_subjects: ["bb-reviewer"] }))
      .status,
  ).toBe(200);
  agent = (await admin("POST", "/credentials", { kind: "agent" })).body.secret;
  approver = (await admin("POST", "/credentials", { kind: "approver", subject_id: "bb-reviewer" })).body.secret;
  secrets.push(agent, approver);
});

afterAll(async () => {
  await dev?.kill();
  await new Promise((done) => receiver?.close(done));
  for (const dir of [persistTo, logDir]) if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("traces from wrangler dev to an OTLP/HTTP receiver", () => {
  it("a read through a data tool: execute_tool, its downstream call to the loopback host, its audit append", async () => {
    const read = await call("bb-read-1", "lookup_customer", { customer: CUSTOMER });
    expect([read.status, read.body.model_result.status, lookups.length]).toEqual([200, "succeeded", 1]);
    const { root, children } = await trace("bb-read-1", 3);
    expect([root.name, root.kind, root.status]).toEqual(["execute_tool lookup_customer", 1, { code: 0 }]);
    expect(attributes(root)).toEqual({
      "gen_ai.operation.name": str("execute_tool"),
      "gen_ai.tool.type": str("function"),
      "toolgate.consumer": str(CONSUMER),
      "gen_ai.tool.name": str("lookup_customer"),
      "gen_ai.tool.call.id": str("bb-read-1"),
      "gen_ai.provider.name": str("openai"),
      "toolgate.outcome": str("succeeded"),
    });
    expect(children).toEqual({
      "toolgate.downstream": [
        3,
        true,
        {
          "toolgate.downstream.kind": str("http"),
          "http.request.method": str("POST"),
          "server.address": str("127.0.0.1"),
          "http.response.status_code": { intValue: "200" },
        },
      ],
      "toolgate.audit.append": [1, true, { "toolgate.audit.seq": { intValue: String(read.body.audit.seq) } }],
    });
  });

  it("a write: the approval it opened, no downstream call; once approved, the approval it used and its downstream call", async () => {
    const args = { customer: CUSTOMER, amount: 7_391 };
    const asked = await call("bb-write-1", "create_invoice", args, "bb-key-1");
    expect(asked.body.model_result.error.code).toBe("APPROVAL_REQUIRED");
    const opened = await trace("bb-write-1", 3);
    expect([
      opened.root.name,
      opened.root.status,
      attributes(opened.root)["toolgate.outcome"],
      attributes(opened.root)["toolgate.approval_id"],
    ]).toEqual(["execute_tool create_invoice", { code: 0 }, str("APPROVAL_REQUIRED"), str(asked.body.approval_id)]);
    expect(opened.children).toEqual({
      "toolgate.approval": [
        1,
        true,
        {
          "toolgate.approval_id": str(asked.body.approval_id),
          "toolgate.approval.state": str("pending"),
          "toolgate.approval.opened": { boolValue: true },
        },
      ],
      "toolgate.audit.append": [1, true, { "toolgate.audit.seq": { intValue: String(asked.body.audit.seq) } }],
    });
    const list = await request("GET", "/approvals", approver);
    const shown = (list.body.approvals as Array<{ approval_id: string; approval_digest: string }>).find(
      (a) => a.approval_id === asked.body.approval_id,
    );
    expect(
      (
        await request("POST", `/approvals/${asked.body.approval_id}`, approver, {
          decision: "approve",
          approval_digest: shown?.approval_digest,
        })
      ).status,
    ).toBe(200);
    const ran = await call("bb-write-1", "create_invoice", args, "bb-key-1");
    expect([ran.body.model_result.status, lookups.length]).toEqual(["succeeded", 2]);
    const used = await trace("bb-write-1", 4, 1);
    expect([attributes(used.root)["toolgate.outcome"], attributes(used.root)["toolgate.approval_id"]]).toEqual([
      str("succeeded"),
      str(asked.body.approval_id),
    ]);
    expect(used.children).toEqual({
      "toolgate.approval": [
        1,
        true,
        {
          "toolgate.approval_id": str(asked.body.approval_id),
          "toolgate.approval.state": str("approved"),
          "toolgate.approval.opened": { boolValue: false },
        },
      ],
      "toolgate.downstream": [
        3,
        true,
        {
          "toolgate.downstream.kind": str("http"),
          "http.request.method": str("POST"),
          "server.address": str("127.0.0.1"),
          "http.response.status_code": { intValue: "201" },
        },
      ],
      "toolgate.audit.append": [1, true, { "toolgate.audit.seq": { intValue: String(ran.body.audit.seq) } }],
    });
  });

  it("a tool the consumer does not enable: an error span with its code", async () => {
    const unknown = await call("bb-unknown-1", "delete_everything", { customer: CUSTOMER });
    expect(unknown.body.model_result.error.code).toBe("UNKNOWN_TOOL");
    const { root, children } = await trace("bb-unknown-1", 2);
    expect([root.name, root.status, attributes(root)["toolgate.outcome"], attributes(root)["error.type"]]).toEqual([
      "execute_tool delete_everything",
      { code: 2, message: "UNKNOWN_TOOL" },
      str("UNKNOWN_TOOL"),
      str("UNKNOWN_TOOL"),
    ]);
    expect(Object.keys(children)).toEqual(["toolgate.audit.append"]);
  });

  it("every export: JSON with the collector's key as a header, the gate as resource; no argument, token, secret, subject or path in it or in wrangler's output", () => {
    expect(exports.length).toBeGreaterThan(0);
    const forbidden = [...secrets, SUBJECT, CUSTOMER, "/ledger", "Bearer"];
    for (const received of exports) {
      expect([received.headers["content-type"], received.headers["x-collector-key"]]).toEqual([
        "application/json",
        COLLECTOR_KEY,
      ]);
      expect(received.body.resourceSpans.map((r) => [r.resource.attributes, r.scopeSpans.map((s) => s.scope)])).toEqual(
        [
          [
            [
              { key: "service.name", value: str("toolgate") },
              { key: "service.version", value: str("0.1.0") },
            ],
            [{ name: "toolgate", version: "0.1.0" }],
          ],
        ],
      );
      for (const value of forbidden) expect([value, received.text.includes(value)]).toEqual([value, false]);
    }
    const log = readFileSync(join(logDir, "wrangler.log"), "utf8");
    for (const value of [COLLECTOR_KEY, ADMIN, agent, approver]) expect(log.includes(value)).toBe(false);
  });
});
