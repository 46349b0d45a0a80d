/**
 * Issue #15, traces: every agent tool call's spans reach an OTLP/HTTP collector as JSON
 * (test/support/otlp-receiver.ts at https://otlp.test, TOOLGATE_OTLP_ENDPOINT in
 * vitest.config.ts): the names, kinds, attributes and parent/child structure of a read, a
 * write that needs approval, the approved write, and refusals, checked against the GenAI
 * semantic conventions' own constants; nothing sensitive in any export; an export never holds
 * up or fails a call. Then the tracer, the OTLP encoding, the exporter's bounds and the
 * configuration rules on their own.
 */
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_TRANSPORT,
  ATTR_RPC_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  NETWORK_TRANSPORT_VALUE_TCP,
} from "@opentelemetry/semantic-conventions";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  MCP_METHOD_NAME_VALUE_TOOLS_CALL,
} from "@opentelemetry/semantic-conventions/incubating";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { traceConfig, tracerFor } from "../../../src/worker/trace/config";
import { parseTraceParent, receivedTrace } from "../../../src/worker/trace/context";
import { OtlpExporter } from "../../../src/worker/trace/export";
import { otlpSpan, otlpValue } from "../../../src/worker/trace/otlp";
import { createTracer, NOOP_TRACER, randomId, unixNano, type FinishedSpan } from "../../../src/worker/trace/span";
import { ADMIN_TOKEN, adminClient, context, credential, gate, mcpPost, pinClock, send, wipe } from "../../kit";
import { INVOICE as LEDGER_INVOICE, LOOKUP as LEDGER_LOOKUP } from "../../support/ledger-tools";

const C = "traces-a";
const T0 = 1_784_419_200;
const SUBJECT = "traces-subject-41";
const LEDGER_TOKEN = "ledger-secret-7d1f0e";
const COLLECTOR_KEY = "otlp-test-key-5a7c,9";
/** Argument values that must never reach a collector. */
const CUSTOMER = "cu-q8v2";
const AMOUNT = 4_817;

const LOOKUP = {
  ...LEDGER_LOOKUP,
  authorize: '"support" in principal.roles',
  target: { kind: "http", url: "https://ledger.test/customers/lookup?tenant=q" },
};

const INVOICE = {
  ...LEDGER_INVOICE,
  target: {
    ...LEDGER_INVOICE.target,
    secret_headers: { authorization: { secret: "ledger_token", prefix: "Bearer " } },
  },
};

type Value = { stringValue: string } | { intValue: string } | { boolValue: boolean } | { doubleValue: number };
interface ExportedSpan {
  traceId: string;
  spanId: string;
  traceState?: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Value }>;
  status: { code: number; message?: string };
}
interface ExportBody {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: Value }> };
    scopeSpans: Array<{ scope: { name: string; version: string }; spans: ExportedSpan[] }>;
  }>;
}
interface Received {
  text: string;
  headers: Record<string, string>;
  body: ExportBody;
}

async function otlp(path: string, body?: unknown): Promise<{ exports: Received[]; ignored: number; held: number }> {
  const res = await fetch(
    `https://otlp.test${path}`,
    body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
  );
  return (await res.json()) as { exports: Received[]; ignored: number; held: number };
}

async function ledger(body: unknown): Promise<void> {
  await fetch("https://ledger.test/_control", { method: "POST", body: JSON.stringify(body) });
}

const str = (stringValue: string): Value => ({ stringValue });
const int = (n: number): Value => ({ intValue: String(n) });
const bool = (boolValue: boolean): Value => ({ boolValue });
const attributes = (span: ExportedSpan) => Object.fromEntries(span.attributes.map((a) => [a.key, a.value]));
const spansOf = (exports: Received[]) =>
  exports.flatMap((e) => e.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the collector (exports are detached from the answers) until `found` answers something, for at most 10 s. */
async function eventually<T>(what: string, found: (spans: ExportedSpan[]) => T | undefined): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = found(spansOf((await otlp("/_state")).exports));
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} reached the collector`);
    await sleep(25);
  }
}

const isRootOf = (callId: string) => (s: ExportedSpan) =>
  s.parentSpanId === undefined &&
  JSON.stringify(attributes(s)[ATTR_GEN_AI_TOOL_CALL_ID]) === JSON.stringify(str(callId));

/** The `nth` trace whose root span carries this call id, once `count` spans of it arrived. */
function trace(callId: string, count: number, nth = 0): Promise<{ root: ExportedSpan; children: ExportedSpan[] }> {
  return eventually(`trace of ${callId}`, (spans) => {
    const root = spans.filter(isRootOf(callId))[nth];
    const all = root === undefined ? [] : spans.filter((s) => s.traceId === root.traceId);
    return root !== undefined && all.length >= count ? { root, children: all.filter((s) => s !== root) } : undefined;
  });
}

/** A caller's trace and span ids the tests send in `traceparent`. */
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const MCP_SPAN = "b7ad6b7169203331";
const HEADER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const HEADER_SPAN = "53995c3f42cd8ad8";
const BATCH_TRACE = "5b8efff798038103d269b633813fc60c";
const BATCH_SPAN = "eee19b7ec3c1b174";

/** The trace a call's root span continued (its parent the caller's span), once `count` spans of the call arrived. */
function continued(callId: string, parent: string, count: number) {
  return eventually(`continued trace of ${callId}`, (spans) => {
    const root = spans.find(
      (s) =>
        s.parentSpanId === parent &&
        JSON.stringify(attributes(s)[ATTR_GEN_AI_TOOL_CALL_ID]) === JSON.stringify(str(callId)),
    );
    const all = root === undefined ? [] : spans.filter((s) => s.traceId === root.traceId && s.spanId !== parent);
    const children = all.filter((s) => s !== root && s.parentSpanId === root?.spanId);
    return root !== undefined && children.length + 1 >= count ? { root, children } : undefined;
  });
}

let n = 0;
async function callTool(
  agent: string,
  name: string,
  args: Record<string, unknown>,
  key: string | null,
  opts: { roles?: string[]; callId?: string; provider?: "openai" | "anthropic"; headers?: Record<string, string> } = {},
) {
  n += 1;
  const callId = opts.callId ?? `tr-call-${n}`;
  const body = {
    principal: { subject_id: SUBJECT, roles: opts.roles ?? ["support"] },
    proposal: { name, arguments: args },
    context: context(callId, { key, provider: opts.provider ?? "openai" }),
  };
  const res =
    opts.headers === undefined
      ? await send("POST", `/v1/consumers/${C}/tool-calls`, agent, body)
      : await gate(`/v1/consumers/${C}/tool-calls`, {
          method: "POST",
          headers: { authorization: `Bearer ${agent}`, "content-type": "application/json", ...opts.headers },
          body: JSON.stringify(body),
        });
  return { callId, status: res.status, body: (await res.json()) as Record<string, any> };
}

const admin = adminClient(C).status;

/** The root span's attributes every dispatched call has. */
function rootAttributes(tool: string, callId: string, provider: string): Record<string, Value> {
  return {
    [ATTR_GEN_AI_OPERATION_NAME]: str(GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL),
    [ATTR_GEN_AI_TOOL_TYPE]: str("function"),
    "toolgate.consumer": str(C),
    [ATTR_GEN_AI_TOOL_NAME]: str(tool),
    [ATTR_GEN_AI_TOOL_CALL_ID]: str(callId),
    [ATTR_GEN_AI_PROVIDER_NAME]: str(provider),
  };
}

/** Kind, parent and attributes of a child span, by name. */
function child(children: ExportedSpan[], name: string) {
  const found = children.filter((s) => s.name === name);
  expect(found.length).toBe(1);
  const span = found[0]!;
  return { kind: span.kind, parent: span.parentSpanId, attributes: attributes(span), status: span.status };
}

const INTERNAL = 1;
const SERVER = 2;
const CLIENT = 3;
const UNSET = { code: 0 };
const ERROR = (type: string) => ({ code: 2, message: type });

let agent: string;
let approver: string;
let scoped: string;
const tokens: string[] = [];

beforeAll(async () => {
  await wipe(C);
  await otlp("/_control", { reset: true, armed: true });
  await ledger({ reset: true, token: LEDGER_TOKEN });
  expect(await admin("PUT", "", { tools: [], approver_subjects: ["traces-rev"] })).toBe(200);
  expect(await admin("PUT", "/secrets/ledger_token", { value: LEDGER_TOKEN })).toBe(204);
  expect(await admin("PUT", "/tools/lookup_customer", LOOKUP)).toBe(200);
  expect(await admin("PUT", "/tools/create_invoice", INVOICE)).toBe(200);
  expect(
    await admin("PUT", "", { tools: ["lookup_customer", "create_invoice"], approver_subjects: ["traces-rev"] }),
  ).toBe(200);
  await pinClock(C, T0);
  agent = (await credential(C, "agent", undefined, { roles: ["support"] })).secret;
  approver = (await credential(C, "approver", "traces-rev")).secret;
  scoped = (await credential(C, "agent", undefined, { roles: ["support"], tools: ["lookup_customer"] })).secret;
  tokens.push(agent, approver, scoped);
});

afterAll(async () => {
  await otlp("/_control", { reset: true });
  await ledger({ reset: true });
});

describe("the spans of tool calls", () => {
  it("a read: execute_tool (internal) with its downstream call (client, method and host only) and its audit append", async () => {
    const read = await callTool(agent, "lookup_customer", { customer: CUSTOMER }, null);
    expect([read.status, read.body.model_result.status]).toEqual([200, "succeeded"]);
    const { root, children } = await trace(read.callId, 3);
    expect([root.name, root.kind, root.status]).toEqual(["execute_tool lookup_customer", INTERNAL, UNSET]);
    expect(attributes(root)).toEqual({
      ...rootAttributes("lookup_customer", read.callId, GEN_AI_PROVIDER_NAME_VALUE_OPENAI),
      "toolgate.outcome": str("succeeded"),
    });
    expect(children.map((s) => s.name).sort()).toEqual(["toolgate.audit.append", "toolgate.downstream"]);
    expect(child(children, "toolgate.downstream")).toEqual({
      kind: CLIENT,
      parent: root.spanId,
      attributes: {
        "toolgate.downstream.kind": str("http"),
        [ATTR_HTTP_REQUEST_METHOD]: str("POST"),
        [ATTR_SERVER_ADDRESS]: str("ledger.test"),
        [ATTR_HTTP_RESPONSE_STATUS_CODE]: int(200),
      },
      status: UNSET,
    });
    expect(child(children, "toolgate.audit.append")).toEqual({
      kind: INTERNAL,
      parent: root.spanId,
      attributes: { "toolgate.audit.seq": int(read.body.audit.seq) },
      status: UNSET,
    });
    for (const span of [root, ...children]) {
      expect([span.traceId, span.spanId]).toEqual([
        expect.stringMatching(/^[0-9a-f]{32}$/),
        expect.stringMatching(/^[0-9a-f]{16}$/),
      ]);
      expect([span.startTimeUnixNano, span.endTimeUnixNano]).toEqual([
        expect.stringMatching(/^\d{19}$/),
        expect.stringMatching(/^\d{19}$/),
      ]);
      expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);
    }
  });

  it("a write that needs approval: the approval it opened, no downstream call; waiting is not an error", async () => {
    const asked = await callTool(agent, "create_invoice", { customer: CUSTOMER, amount: AMOUNT }, "tr-key-1", {
      callId: "tr-write-1",
      provider: "anthropic",
    });
    expect(asked.body.model_result.error.code).toBe("APPROVAL_REQUIRED");
    const { root, children } = await trace("tr-write-1", 3);
    expect([root.name, root.kind, root.status]).toEqual(["execute_tool create_invoice", INTERNAL, UNSET]);
    expect(attributes(root)).toEqual({
      ...rootAttributes("create_invoice", "tr-write-1", GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC),
      "toolgate.approval_id": str(asked.body.approval_id),
      "toolgate.outcome": str("APPROVAL_REQUIRED"),
    });
    expect(children.map((s) => s.name).sort()).toEqual(["toolgate.approval", "toolgate.audit.append"]);
    expect(child(children, "toolgate.approval")).toEqual({
      kind: INTERNAL,
      parent: root.spanId,
      attributes: {
        "toolgate.approval_id": str(asked.body.approval_id),
        "toolgate.approval.state": str("pending"),
        "toolgate.approval.opened": bool(true),
      },
      status: UNSET,
    });
    expect(child(children, "toolgate.audit.append").attributes).toEqual({
      "toolgate.audit.seq": int(asked.body.audit.seq),
    });
  });

  it("the approved write: the approval it used, the downstream call that ran it, the audit append, in one new trace", async () => {
    const list = (await (await send("GET", `/v1/consumers/${C}/approvals`, approver)).json()) as {
      approvals: Array<{ approval_id: string; approval_digest: string }>;
    };
    const pending = list.approvals[0]!;
    expect(
      (
        await send("POST", `/v1/consumers/${C}/approvals/${pending.approval_id}`, approver, {
          decision: "approve",
          approval_digest: pending.approval_digest,
        })
      ).status,
    ).toBe(200);
    const first = await trace("tr-write-1", 3);
    const ran = await callTool(agent, "create_invoice", { customer: CUSTOMER, amount: AMOUNT }, "tr-key-1", {
      callId: "tr-write-1",
      provider: "anthropic",
    });
    expect(ran.body.model_result.status).toBe("succeeded");
    const { root, children } = await trace("tr-write-1", 4, 1);
    expect(root.traceId).not.toBe(first.root.traceId);
    expect([root.name, root.kind, root.status]).toEqual(["execute_tool create_invoice", INTERNAL, UNSET]);
    expect(attributes(root)).toEqual({
      ...rootAttributes("create_invoice", "tr-write-1", GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC),
      "toolgate.approval_id": str(pending.approval_id),
      "toolgate.outcome": str("succeeded"),
    });
    expect(children.map((s) => s.name).sort()).toEqual([
      "toolgate.approval",
      "toolgate.audit.append",
      "toolgate.downstream",
    ]);
    expect(child(children, "toolgate.approval").attributes).toEqual({
      "toolgate.approval_id": str(pending.approval_id),
      "toolgate.approval.state": str("approved"),
      "toolgate.approval.opened": bool(false),
    });
    expect(child(children, "toolgate.downstream")).toEqual({
      kind: CLIENT,
      parent: root.spanId,
      attributes: {
        "toolgate.downstream.kind": str("http"),
        [ATTR_HTTP_REQUEST_METHOD]: str("POST"),
        [ATTR_SERVER_ADDRESS]: str("ledger.test"),
        [ATTR_HTTP_RESPONSE_STATUS_CODE]: int(200),
      },
      status: UNSET,
    });
    expect(child(children, "toolgate.audit.append").attributes).toEqual({
      "toolgate.audit.seq": int(ran.body.audit.seq),
    });
    expect(children.every((s) => s.parentSpanId === root.spanId)).toBe(true);
  });

  it("a write its approval refuses: the approval span in the state the call found it (denied), APPROVAL_INVALID an error", async () => {
    const asked = await callTool(agent, "create_invoice", { customer: CUSTOMER, amount: AMOUNT }, "tr-key-3", {
      callId: "tr-write-3",
    });
    const list = (await (await send("GET", `/v1/consumers/${C}/approvals`, approver)).json()) as {
      approvals: Array<{ approval_id: string; approval_digest: string }>;
    };
    const digest = list.approvals.find((a) => a.approval_id === asked.body.approval_id)?.approval_digest;
    expect(
      (
        await send("POST", `/v1/consumers/${C}/approvals/${asked.body.approval_id}`, approver, {
          decision: "deny",
          approval_digest: digest,
        })
      ).status,
    ).toBe(200);
    const again = await callTool(agent, "create_invoice", { customer: CUSTOMER, amount: AMOUNT }, "tr-key-3", {
      callId: "tr-write-3",
    });
    expect(again.body.model_result.error.code).toBe("APPROVAL_INVALID");
    const { root, children } = await trace("tr-write-3", 3, 1);
    expect([root.name, root.status]).toEqual(["execute_tool create_invoice", ERROR("APPROVAL_INVALID")]);
    expect(attributes(root)).toEqual({
      ...rootAttributes("create_invoice", "tr-write-3", GEN_AI_PROVIDER_NAME_VALUE_OPENAI),
      "toolgate.approval_id": str(asked.body.approval_id),
      "toolgate.outcome": str("APPROVAL_INVALID"),
      [ATTR_ERROR_TYPE]: str("APPROVAL_INVALID"),
    });
    expect(children.map((s) => s.name).sort()).toEqual(["toolgate.approval", "toolgate.audit.append"]);
    expect(child(children, "toolgate.approval").attributes).toEqual({
      "toolgate.approval_id": str(asked.body.approval_id),
      "toolgate.approval.state": str("denied"),
      "toolgate.approval.opened": bool(false),
    });
  });

  it("refusals: the engine's (NOT_FOUND, audited) and the gate's before any dispatch (TOOL_NOT_IN_SCOPE, no tool name)", async () => {
    const denied = await callTool(agent, "lookup_customer", { customer: CUSTOMER }, null, { roles: [] });
    expect(denied.body.model_result.error.code).toBe("NOT_FOUND");
    const engine = await trace(denied.callId, 2);
    expect([engine.root.name, engine.root.status]).toEqual(["execute_tool lookup_customer", ERROR("NOT_FOUND")]);
    expect(attributes(engine.root)).toEqual({
      ...rootAttributes("lookup_customer", denied.callId, GEN_AI_PROVIDER_NAME_VALUE_OPENAI),
      "toolgate.outcome": str("NOT_FOUND"),
      [ATTR_ERROR_TYPE]: str("NOT_FOUND"),
    });
    expect(engine.children.map((s) => [s.name, s.parentSpanId, attributes(s)])).toEqual([
      ["toolgate.audit.append", engine.root.spanId, { "toolgate.audit.seq": int(denied.body.audit.seq) }],
    ]);

    const refused = await callTool(scoped, "create_invoice", { customer: CUSTOMER, amount: AMOUNT }, "tr-key-2");
    expect([refused.status, refused.body.code]).toEqual([403, "TOOL_NOT_IN_SCOPE"]);
    const gate = await eventually("TOOL_NOT_IN_SCOPE span", (spans) =>
      spans.find((s) => JSON.stringify(attributes(s)["toolgate.outcome"]) === JSON.stringify(str("TOOL_NOT_IN_SCOPE"))),
    );
    expect([gate.name, gate.kind, gate.parentSpanId, gate.status, attributes(gate)]).toEqual([
      "execute_tool",
      INTERNAL,
      undefined,
      ERROR("TOOL_NOT_IN_SCOPE"),
      {
        [ATTR_GEN_AI_OPERATION_NAME]: str("execute_tool"),
        [ATTR_GEN_AI_TOOL_TYPE]: str("function"),
        "toolgate.consumer": str(C),
        "toolgate.outcome": str("TOOL_NOT_IN_SCOPE"),
        [ATTR_ERROR_TYPE]: str("TOOL_NOT_IN_SCOPE"),
      },
    ]);
    expect(spansOf((await otlp("/_state")).exports).filter((s) => s.traceId === gate.traceId)).toHaveLength(1);
  });

  it("an incoming traceparent continues: the call's spans in the caller's trace, execute_tool a child of the caller's span, tracestate kept", async () => {
    const traceparent = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
    const read = await callTool(agent, "lookup_customer", { customer: CUSTOMER }, null, {
      headers: { traceparent, tracestate: "vendor1=opaque-1,vendor2=b" },
    });
    expect([read.status, read.body.model_result.status]).toEqual([200, "succeeded"]);
    const { root, children } = await continued(read.callId, CALLER_SPAN, 3);
    expect([root.traceId, root.parentSpanId, root.traceState, root.name, root.kind, root.status]).toEqual([
      CALLER_TRACE,
      CALLER_SPAN,
      "vendor1=opaque-1,vendor2=b",
      "execute_tool lookup_customer",
      INTERNAL,
      UNSET,
    ]);
    expect(root.spanId).not.toBe(CALLER_SPAN);
    expect(attributes(root)).toEqual({
      ...rootAttributes("lookup_customer", read.callId, GEN_AI_PROVIDER_NAME_VALUE_OPENAI),
      "toolgate.outcome": str("succeeded"),
    });
    expect(
      children.map((s) => [s.name, s.traceId, s.parentSpanId, s.traceState]).sort((x, y) => x[0]!.localeCompare(y[0]!)),
    ).toEqual([
      ["toolgate.audit.append", CALLER_TRACE, root.spanId, "vendor1=opaque-1,vendor2=b"],
      ["toolgate.downstream", CALLER_TRACE, root.spanId, "vendor1=opaque-1,vendor2=b"],
    ]);
  });

  it("a batch continues the caller's trace: each call's execute_tool a child of the caller's span, beside the others", async () => {
    const proposal = { name: "lookup_customer", arguments: { customer: CUSTOMER } };
    const res = await gate(`/v1/consumers/${C}/tool-calls/batch`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${agent}`,
        "content-type": "application/json",
        traceparent: `00-${BATCH_TRACE}-${BATCH_SPAN}-00`,
      },
      body: JSON.stringify({
        principal: { subject_id: SUBJECT, roles: ["support"] },
        context: {
          response_id: "tr-batch-resp",
          provider: "anthropic",
          api_family: "messages",
          adapter_revision: "anthropic-messages-v1",
        },
        calls: [
          { proposal, call_id: "tr-batch-1", operation_id: "tr-batch-op-1" },
          { proposal, call_id: "tr-batch-2", operation_id: "tr-batch-op-2" },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const first = await continued("tr-batch-1", BATCH_SPAN, 3);
    const second = await continued("tr-batch-2", BATCH_SPAN, 3);
    expect([first.root.traceId, first.root.parentSpanId, first.root.traceState, first.root.name]).toEqual([
      BATCH_TRACE,
      BATCH_SPAN,
      undefined,
      "execute_tool lookup_customer",
    ]);
    expect([second.root.traceId, second.root.parentSpanId]).toEqual([BATCH_TRACE, BATCH_SPAN]);
    expect(second.root.spanId).not.toBe(first.root.spanId);
    expect([...first.children, ...second.children].map((s) => s.traceId)).toEqual(Array(4).fill(BATCH_TRACE));
  });

  it("a malformed traceparent is ignored: a new trace, the call answered as without one", async () => {
    const malformed = [
      `00-${CALLER_TRACE.toUpperCase()}-${CALLER_SPAN}-01`,
      `01-${CALLER_TRACE}-${CALLER_SPAN}-01`,
      `00-${"0".repeat(32)}-${CALLER_SPAN}-01`,
      `00-${CALLER_TRACE}-${"0".repeat(16)}-01`,
      `00-${CALLER_TRACE}-${CALLER_SPAN}-01-extra`,
      `00-${CALLER_TRACE}-${CALLER_SPAN}-1`,
      `00-${CALLER_TRACE}-${CALLER_SPAN}-01, 00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
    ];
    for (const traceparent of malformed) {
      const read = await callTool(agent, "lookup_customer", { customer: CUSTOMER }, null, {
        headers: { traceparent, tracestate: "vendor1=dropped" },
      });
      expect([traceparent, read.status, read.body.model_result.status]).toEqual([traceparent, 200, "succeeded"]);
      const { root, children } = await trace(read.callId, 3);
      expect([traceparent, root.parentSpanId, root.traceState, root.name]).toEqual([
        traceparent,
        undefined,
        undefined,
        "execute_tool lookup_customer",
      ]);
      expect(root.traceId).not.toBe(CALLER_TRACE);
      expect(children.map((s) => [s.traceId, s.parentSpanId, s.traceState])).toEqual([
        [root.traceId, root.spanId, undefined],
        [root.traceId, root.spanId, undefined],
      ]);
    }
  });

  it("MCP tools/call: the MCP server span with the MCP attributes, continuing _meta's traceparent over the header's", async () => {
    const mcpAgent = (await credential(C, "agent", "traces-mcp-subject", { roles: ["support"] })).secret;
    tokens.push(mcpAgent);
    const opened = await mcpPost(C, mcpAgent, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
    });
    const sessionId = opened.headers.get("mcp-session-id") ?? "";
    expect([opened.status, sessionId]).toEqual([200, expect.stringMatching(/^[0-9a-f]{32}$/)]);
    const headers = {
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
      traceparent: `00-${HEADER_TRACE}-${HEADER_SPAN}-01`,
    };
    const called = await mcpPost(
      C,
      mcpAgent,
      {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: {
          name: "lookup_customer",
          arguments: { customer: CUSTOMER },
          _meta: {
            "io.toolgate/call_id": "tr-mcp-1",
            traceparent: `00-${CALLER_TRACE}-${MCP_SPAN}-01`,
            tracestate: "mcp=1",
          },
        },
      },
      headers,
    );
    expect([called.status, called.json.result.isError]).toEqual([200, false]);
    const { root, children } = await continued("tr-mcp-1", MCP_SPAN, 3);
    expect([root.traceId, root.parentSpanId, root.traceState, root.name, root.kind, root.status]).toEqual([
      CALLER_TRACE,
      MCP_SPAN,
      "mcp=1",
      "tools/call lookup_customer",
      SERVER,
      UNSET,
    ]);
    expect(attributes(root)).toEqual({
      [ATTR_GEN_AI_OPERATION_NAME]: str(GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL),
      [ATTR_GEN_AI_TOOL_TYPE]: str("function"),
      "toolgate.consumer": str(C),
      [ATTR_MCP_METHOD_NAME]: str(MCP_METHOD_NAME_VALUE_TOOLS_CALL),
      [ATTR_MCP_SESSION_ID]: str(sessionId),
      [ATTR_MCP_PROTOCOL_VERSION]: str("2025-06-18"),
      [ATTR_JSONRPC_REQUEST_ID]: str("7"),
      [ATTR_NETWORK_PROTOCOL_NAME]: str("http"),
      [ATTR_NETWORK_TRANSPORT]: str(NETWORK_TRANSPORT_VALUE_TCP),
      [ATTR_GEN_AI_TOOL_NAME]: str("lookup_customer"),
      [ATTR_GEN_AI_TOOL_CALL_ID]: str("tr-mcp-1"),
      "toolgate.outcome": str("succeeded"),
    });
    expect(children.map((s) => s.name).sort()).toEqual(["toolgate.audit.append", "toolgate.downstream"]);
    expect(children.every((s) => s.traceId === CALLER_TRACE && s.parentSpanId === root.spanId)).toBe(true);

    // Only the header's traceparent: continued; a refusal before dispatch records the JSON-RPC error code.
    const scopedMcp = (
      await credential(C, "agent", "traces-mcp-subject", { roles: ["support"], tools: ["lookup_customer"] })
    ).secret;
    tokens.push(scopedMcp);
    const second = await mcpPost(C, scopedMcp, {
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } },
    });
    const secondSession = second.headers.get("mcp-session-id") ?? "";
    const refused = await mcpPost(
      C,
      scopedMcp,
      {
        jsonrpc: "2.0",
        id: "call-2",
        method: "tools/call",
        params: { name: "create_invoice", arguments: { customer: CUSTOMER, amount: AMOUNT } },
      },
      { "mcp-session-id": secondSession, "mcp-protocol-version": "2025-11-25", traceparent: headers.traceparent },
    );
    expect([refused.status, refused.json.error.code, refused.json.error.data.code]).toEqual([
      200,
      -32000,
      "TOOL_NOT_IN_SCOPE",
    ]);
    const span = await eventually("the refused MCP call's span", (spans) =>
      spans.find((s) => s.traceId === HEADER_TRACE && s.parentSpanId === HEADER_SPAN),
    );
    expect([span.name, span.kind, span.status, attributes(span)]).toEqual([
      "tools/call",
      SERVER,
      ERROR("TOOL_NOT_IN_SCOPE"),
      {
        [ATTR_GEN_AI_OPERATION_NAME]: str(GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL),
        [ATTR_GEN_AI_TOOL_TYPE]: str("function"),
        "toolgate.consumer": str(C),
        [ATTR_MCP_METHOD_NAME]: str(MCP_METHOD_NAME_VALUE_TOOLS_CALL),
        [ATTR_MCP_SESSION_ID]: str(secondSession),
        [ATTR_MCP_PROTOCOL_VERSION]: str("2025-11-25"),
        [ATTR_JSONRPC_REQUEST_ID]: str("call-2"),
        [ATTR_NETWORK_PROTOCOL_NAME]: str("http"),
        [ATTR_NETWORK_TRANSPORT]: str(NETWORK_TRANSPORT_VALUE_TCP),
        [ATTR_RPC_STATUS_CODE]: str("-32000"),
        "toolgate.outcome": str("TOOL_NOT_IN_SCOPE"),
        [ATTR_ERROR_TYPE]: str("TOOL_NOT_IN_SCOPE"),
      },
    ]);
  });

  it("every export: OTLP/HTTP JSON with the gate as resource and scope, the collector's key as a header only, nothing sensitive", async () => {
    const { exports } = await otlp("/_state");
    expect(exports.length).toBeGreaterThan(0);
    for (const received of exports) {
      expect([received.headers["content-type"], received.headers["x-collector-key"]]).toEqual([
        "application/json",
        COLLECTOR_KEY,
      ]);
      for (const resourceSpans of received.body.resourceSpans) {
        expect(resourceSpans.resource.attributes).toEqual([
          { key: ATTR_SERVICE_NAME, value: str("toolgate") },
          { key: ATTR_SERVICE_VERSION, value: str("0.1.0") },
        ]);
        expect(resourceSpans.scopeSpans.map((s) => s.scope)).toEqual([{ name: "toolgate", version: "0.1.0" }]);
      }
      // The amount is digits, which random hex ids may contain: it is checked among the attribute values below.
      const forbidden = [
        CUSTOMER,
        SUBJECT,
        "traces-mcp-subject",
        LEDGER_TOKEN,
        COLLECTOR_KEY,
        "otlp-test-key",
        ADMIN_TOKEN,
        ...tokens,
        "test-token-key-0123456789abcdef0123456789",
        "test-signing-key-0123456789abcdef012345",
        "test-secrets-key-0123456789abcdef0123456",
        "PRIVATE+KEY",
        "/customers",
        "/invoices",
        "tenant=q",
        "Bearer",
        "https://",
      ];
      for (const value of forbidden) expect([value, received.text.includes(value)]).toEqual([value, false]);
      const values = spansOf([received]).flatMap((s) => s.attributes.map((a) => Object.values(a.value)[0]));
      expect(values.filter((v) => v === AMOUNT || v === String(AMOUNT))).toEqual([]);
    }
  });

  it("an export never holds up or fails a call: a collector that does not answer, one that fails", async () => {
    await otlp("/_control", { hold: true });
    const held = await callTool(agent, "lookup_customer", { customer: CUSTOMER }, null);
    expect([held.status, held.body.model_result.status]).toEqual([200, "succeeded"]);
    // The call answered while its export is parked at the collector.
    for (let i = 0; i < 400 && (await otlp("/_state")).held === 0; i += 1) await sleep(25);
    expect((await otlp("/_state")).held).toBe(1);
    await otlp("/_control", { hold: false, status: 503 });
    const failing = await callTool(agent, "lookup_customer", { customer: CUSTOMER }, null);
    expect([failing.status, failing.body.model_result.status]).toEqual([200, "succeeded"]);
    expect((await trace(held.callId, 3)).root.name).toBe("execute_tool lookup_customer");
    expect((await trace(failing.callId, 3)).root.name).toBe("execute_tool lookup_customer");
    await otlp("/_control", { status: 200 });
  });
});

describe("the tracer, the OTLP encoding and the exporter", () => {
  const ended = (): { spans: FinishedSpan[]; roots: number; sink: (span: FinishedSpan, root: boolean) => void } => {
    const out = {
      spans: [] as FinishedSpan[],
      roots: 0,
      sink: (span: FinishedSpan, root: boolean) => (out.spans.push(span), root && (out.roots += 1)),
    };
    return out;
  };

  it("tracing off: one shared span that records nothing, however it is used", () => {
    const a = NOOP_TRACER.start("execute_tool");
    const b = a.child("toolgate.downstream", "client").set("k", "v").fail("x").rename("y");
    b.end();
    expect([NOOP_TRACER.enabled, a.recording, a === b, NOOP_TRACER.start("other") === a, Object.isFrozen(a)]).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });

  it("a root and its child: ids, parent, times from the clock, attributes in order, a failure's status; a span ends once", () => {
    const out = ended();
    let ms = 1_784_419_200_123;
    const tracer = createTracer(out.sink, () => ms);
    const root = tracer
      .start("execute_tool")
      .set("b", 1)
      .set("a", "x")
      .set("b", 2)
      .set("skip", undefined)
      .set("none", null);
    ms += 1.5;
    const child = root.child("toolgate.downstream", "client").set("http.request.method", "POST").fail("rate_limited");
    child.end();
    child.end();
    root.rename("execute_tool t").end();
    root.set("late", true).end();
    expect(out.roots).toBe(1);
    const [c, r] = out.spans;
    expect([r!.traceId, r!.spanId, r!.parentSpanId, c!.traceId, c!.parentSpanId]).toEqual([
      expect.stringMatching(/^[0-9a-f]{32}$/),
      expect.stringMatching(/^[0-9a-f]{16}$/),
      null,
      r!.traceId,
      r!.spanId,
    ]);
    expect([r!.name, r!.kind, r!.startTimeUnixNano, r!.endTimeUnixNano, [...r!.attributes], r!.status]).toEqual([
      "execute_tool t",
      "internal",
      "1784419200123000000",
      "1784419200124500000",
      [
        ["b", 2],
        ["a", "x"],
      ],
      { code: "unset" },
    ]);
    expect([c!.name, c!.kind, c!.startTimeUnixNano, [...c!.attributes], c!.status]).toEqual([
      "toolgate.downstream",
      "client",
      "1784419200124500000",
      [
        ["http.request.method", "POST"],
        ["error.type", "rate_limited"],
      ],
      { code: "error", message: "rate_limited" },
    ]);
    expect(otlpSpan(c!)).toEqual({
      traceId: r!.traceId,
      spanId: c!.spanId,
      parentSpanId: r!.spanId,
      name: "toolgate.downstream",
      kind: 3,
      startTimeUnixNano: "1784419200124500000",
      endTimeUnixNano: "1784419200124500000",
      attributes: [
        { key: "http.request.method", value: { stringValue: "POST" } },
        { key: "error.type", value: { stringValue: "rate_limited" } },
      ],
      status: { code: 2, message: "rate_limited" },
    });
    expect(Object.keys(otlpSpan(r!))).not.toContain("parentSpanId");
  });

  it("traceparent read strictly: version 00, lowercase hex ids not all zeros, two hex flag digits; tracestate kept as it came", () => {
    const id = "4bf92f3577b34da6a3ce929d0e0e4736";
    const parent = "00f067aa0ba902b7";
    expect(parseTraceParent(`00-${id}-${parent}-01`, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")).toEqual({
      traceId: id,
      parentSpanId: parent,
      flags: "01",
      tracestate: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
    });
    expect(parseTraceParent(`00-${id}-${parent}-00`, null)).toEqual({
      traceId: id,
      parentSpanId: parent,
      flags: "00",
      tracestate: null,
    });
    // A tracestate too long or not printable ASCII is dropped whole; the traceparent still counts.
    expect([
      parseTraceParent(`00-${id}-${parent}-01`, "a=" + "b".repeat(511))?.tracestate,
      parseTraceParent(`00-${id}-${parent}-01`, "a=\u00e9")?.tracestate,
      parseTraceParent(`00-${id}-${parent}-01`, "a=b\nc")?.tracestate,
      parseTraceParent(`00-${id}-${parent}-01`, " ")?.tracestate,
    ]).toEqual([null, null, null, null]);
    const refused = [
      undefined,
      null,
      42,
      "",
      `00-${id.toUpperCase()}-${parent}-01`,
      `00-${id}-${parent.toUpperCase()}-01`,
      `ff-${id}-${parent}-01`,
      `01-${id}-${parent}-01`,
      `00-${"0".repeat(32)}-${parent}-01`,
      `00-${id}-${"0".repeat(16)}-01`,
      `00-${id}-${parent}-0`,
      `00-${id}-${parent}-0g`,
      `00-${id}-${parent}-01-`,
      `00-${id}-${parent}-01 `,
      `00-${id.slice(1)}-${parent}-01`,
      `00_${id}_${parent}_01`,
    ];
    expect(refused.map((header) => parseTraceParent(header, "k=v"))).toEqual(refused.map(() => null));
    expect([
      receivedTrace(null),
      receivedTrace(undefined),
      receivedTrace({ traceId: id, parentSpanId: parent, flags: "01", tracestate: "k=v" }),
      receivedTrace({ traceId: id, parentSpanId: parent, flags: "01-00", tracestate: null }),
      receivedTrace({ traceId: "0".repeat(32), parentSpanId: parent, flags: "01", tracestate: null }),
    ]).toEqual([null, null, { traceId: id, parentSpanId: parent, flags: "01", tracestate: "k=v" }, null, null]);
  });

  it("a root that continues the caller's trace: its trace id, the caller's span as parent, tracestate on every span; it ends the unit of work", () => {
    const out = ended();
    const caller = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", parentSpanId: "00f067aa0ba902b7", flags: "01" };
    const root = createTracer(out.sink).start("execute_tool", "server", { ...caller, tracestate: "k=v" });
    root.child("toolgate.audit.append").end();
    expect(out.roots).toBe(0);
    root.end();
    expect(out.roots).toBe(1);
    const [c, r] = out.spans;
    expect([r!.traceId, r!.parentSpanId, r!.traceState, r!.kind, c!.traceId, c!.parentSpanId, c!.traceState]).toEqual([
      caller.traceId,
      caller.parentSpanId,
      "k=v",
      "server",
      caller.traceId,
      r!.spanId,
      "k=v",
    ]);
    expect(r!.spanId).not.toBe(caller.parentSpanId);
    expect(otlpSpan(r!)).toMatchObject({
      traceId: caller.traceId,
      traceState: "k=v",
      parentSpanId: caller.parentSpanId,
      kind: 2,
    });
    const fresh = ended();
    createTracer(fresh.sink).start("execute_tool", "internal", null).end();
    expect([fresh.roots, fresh.spans[0]!.parentSpanId, fresh.spans[0]!.traceState]).toEqual([1, null, null]);
    expect(Object.keys(otlpSpan(fresh.spans[0]!))).not.toContain("traceState");
  });

  it("attribute values typed as OTLP's JSON mapping: strings, booleans, integers as decimal text, other numbers as doubles", () => {
    expect([
      otlpValue("s"),
      otlpValue(true),
      otlpValue(429),
      otlpValue(-3),
      otlpValue(0.25),
      otlpValue(2 ** 60),
    ]).toEqual([
      { stringValue: "s" },
      { boolValue: true },
      { intValue: "429" },
      { intValue: "-3" },
      { doubleValue: 0.25 },
      { doubleValue: 2 ** 60 },
    ]);
    expect([unixNano(0), unixNano(1_700_000_000_000), unixNano(1.000001)]).toEqual([
      "0",
      "1700000000000000000",
      "1000001",
    ]);
    expect(new Set(Array.from({ length: 64 }, () => randomId(8))).size).toBe(64);
  });

  /** A span ended now, for the exporter. */
  const span = (name: string): FinishedSpan => {
    const out = ended();
    createTracer(out.sink).start(name).end();
    return out.spans[0]!;
  };

  it("the exporter: one POST per flush of at most a batch, a bounded queue, a bounded number of requests at once", async () => {
    const posts: Array<{
      url: string;
      method: string;
      type: string | null;
      key: string | null;
      redirect: string;
      names: string[];
    }> = [];
    const waited: Array<Promise<unknown>> = [];
    const exporter = new OtlpExporter({
      endpoint: "https://collector.example/v1/traces",
      headers: { "x-key": "k1", "content-type": "text/plain" },
      maxBatchSpans: 2,
      maxQueuedSpans: 5,
      maxConcurrentExports: 1,
      waitUntil: (p) => waited.push(p),
      fetch: async (request) => {
        const body = (await request.json()) as ExportBody;
        posts.push({
          url: request.url,
          method: request.method,
          type: request.headers.get("content-type"),
          key: request.headers.get("x-key"),
          redirect: request.redirect,
          names: spansOf([{ text: "", headers: {}, body }]).map((s) => s.name),
        });
        return new Response("{}", { status: 200 });
      },
    });
    for (const name of ["a", "b", "c", "d", "e", "f", "g"]) exporter.add(span(name));
    exporter.flush();
    await exporter.idle();
    expect(posts.map((p) => p.names)).toEqual([["a", "b"], ["c", "d"], ["e"]]);
    expect(posts[0]).toEqual({
      url: "https://collector.example/v1/traces",
      method: "POST",
      type: "application/json",
      key: "k1",
      redirect: "manual",
      names: ["a", "b"],
    });
    expect([waited.length, exporter.stats()]).toEqual([
      3,
      { exportedSpans: 5, droppedSpans: 2, failedExports: 0, failedSpans: 0 },
    ]);
  });

  it("the exporter: a failed, refused or unanswered export is counted and dropped, never thrown", async () => {
    const answers: Array<(request: Request) => Promise<Response>> = [
      async () => Promise.reject(new Error("connection refused")),
      async () => new Response("busy", { status: 503 }),
      (request) =>
        new Promise((_, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason))),
      async () => new Response(null, { status: 202 }),
    ];
    const exporter = new OtlpExporter({
      endpoint: "https://collector.example/v1/traces",
      headers: {},
      timeoutMs: 50,
      fetch: (request) => answers.shift()!(request),
    });
    for (const name of ["a", "b", "c", "d"]) {
      exporter.sink(span(name), true);
      await exporter.idle();
    }
    expect(exporter.stats()).toEqual({ exportedSpans: 1, droppedSpans: 0, failedExports: 3, failedSpans: 3 });
  });

  it("the configuration: a private, loopback or link-local endpoint is refused naming the host and its block, never the path or query", () => {
    const refused = (env: Record<string, string>) => {
      const config = traceConfig(env);
      return config.ok ? "accepted" : config.error;
    };
    expect([
      refused({ TOOLGATE_OTLP_ENDPOINT: "https://169.254.169.254/v1/traces?key=s3cret" }),
      refused({ TOOLGATE_OTLP_ENDPOINT: "https://[::ffff:0:a9fe:a9fe]/v1/traces" }),
      refused({ TOOLGATE_OTLP_ENDPOINT: "http://10.0.0.1:4318/v1/traces", TOOLGATE_ALLOW_LOOPBACK_TARGETS: "1" }),
      refused({ TOOLGATE_OTLP_ENDPOINT: "https://user:pw@10.0.0.1/v1/traces" }),
    ]).toEqual([
      "TOOLGATE_OTLP_ENDPOINT may not name a private, loopback or link-local address: 169.254.169.254 is link-local (169.254.0.0/16)",
      "TOOLGATE_OTLP_ENDPOINT may not name a private, loopback or link-local address: [::ffff:0:a9fe:a9fe] is IPv4-translated link-local (169.254.0.0/16)",
      "TOOLGATE_OTLP_ENDPOINT may not name a private, loopback or link-local address: 10.0.0.1 is private (10.0.0.0/8) (only loopback is allowed under npm start)",
      "TOOLGATE_OTLP_ENDPOINT is not an https URL without credentials",
    ]);
  });

  it("the configuration: off unless an endpoint is set; https, or loopback http where allowed; headers percent-decoded, a malformed list refused", () => {
    expect([traceConfig({}), traceConfig({ TOOLGATE_OTLP_ENDPOINT: " " })]).toEqual([
      { ok: true, value: null },
      { ok: true, value: null },
    ]);
    expect(
      traceConfig({
        TOOLGATE_OTLP_ENDPOINT: "https://otel.example/v1/traces",
        TOOLGATE_OTLP_HEADERS: "X-Api-Key=a%3Db%2Cc, x-team = t1 ,",
      }),
    ).toEqual({
      ok: true,
      value: { endpoint: "https://otel.example/v1/traces", headers: { "x-api-key": "a=b,c", "x-team": "t1" } },
    });
    const loopback = "http://127.0.0.1:4318/v1/traces";
    expect([
      traceConfig({ TOOLGATE_OTLP_ENDPOINT: loopback }),
      traceConfig({ TOOLGATE_OTLP_ENDPOINT: loopback, TOOLGATE_ALLOW_LOOPBACK_TARGETS: "1" }),
    ]).toEqual([
      {
        ok: false,
        error:
          "TOOLGATE_OTLP_ENDPOINT may not name a private, loopback or link-local address: 127.0.0.1 is loopback (127.0.0.0/8)",
      },
      { ok: true, value: { endpoint: loopback, headers: {} } },
    ]);
    const refused = (env: Record<string, string>) => {
      const config = traceConfig(env);
      return config.ok ? "accepted" : config.error;
    };
    expect([
      refused({ TOOLGATE_OTLP_ENDPOINT: "http://otel.example/v1/traces", TOOLGATE_ALLOW_LOOPBACK_TARGETS: "1" }),
      refused({ TOOLGATE_OTLP_ENDPOINT: "https://user:pw@otel.example/v1/traces" }),
      refused({ TOOLGATE_OTLP_ENDPOINT: "otel.example" }),
      refused({ TOOLGATE_OTLP_ENDPOINT: "https://otel.example", TOOLGATE_OTLP_HEADERS: "x-key" }),
      refused({ TOOLGATE_OTLP_ENDPOINT: "https://otel.example", TOOLGATE_OTLP_HEADERS: "bad name=v" }),
      refused({ TOOLGATE_OTLP_ENDPOINT: "https://otel.example", TOOLGATE_OTLP_HEADERS: "content-type=text/plain" }),
      refused({ TOOLGATE_OTLP_ENDPOINT: "https://otel.example", TOOLGATE_OTLP_HEADERS: "x-key=%E0%A4%A" }),
      refused({ TOOLGATE_OTLP_ENDPOINT: "https://otel.example", TOOLGATE_OTLP_HEADERS: "x-key=a%0Ab" }),
    ]).toEqual([
      "TOOLGATE_OTLP_ENDPOINT is not an https URL (or loopback http) without credentials",
      "TOOLGATE_OTLP_ENDPOINT is not an https URL without credentials",
      "TOOLGATE_OTLP_ENDPOINT is not a URL",
      "TOOLGATE_OTLP_HEADERS is not a list of name=value pairs",
      "TOOLGATE_OTLP_HEADERS is not a list of name=value pairs",
      "TOOLGATE_OTLP_HEADERS may not set content-type",
      "TOOLGATE_OTLP_HEADERS has a value that is not percent-encoded text",
      "TOOLGATE_OTLP_HEADERS has a value with a control character",
    ]);
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const enabled = [
        tracerFor({}),
        tracerFor({ TOOLGATE_OTLP_ENDPOINT: "http://otel.example/k3y" }),
        tracerFor({ TOOLGATE_OTLP_ENDPOINT: "https://otel.example" }),
      ].map((t) => t.enabled);
      expect([enabled, logged.mock.calls]).toEqual([
        [false, false, true],
        [["toolgate: TOOLGATE_OTLP_ENDPOINT is not an https URL without credentials; tracing is off"]],
      ]);
    } finally {
      logged.mockRestore();
    }
  });
});
