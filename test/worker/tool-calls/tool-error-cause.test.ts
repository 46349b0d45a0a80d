/**
 * The cause of a failed external run, kept for operators: a refused connection on 127.0.0.1, an
 * HTTP 404, a timeout, an answer outside the contract and a code tool's throw each come back
 * with their cause; the audit record keeps it (beside the model result, whose bytes do not
 * change), one JSON log line says it, and its detail never carries a query string or a token.
 */
import { describe, expect, it, vi } from "vitest";
import { canonicalJson } from "../../../src/core/json";
import type { ResultPackage, ToolCall } from "../../../src/core/tool-result/types";
import { lookupRefundTool } from "../../../src/worker/targets/catalog";
import { causeDetail } from "../../../src/worker/targets/cause";
import { callHttpTool, type DownstreamService, type HttpToolDefinition } from "../../../src/worker/targets/http/tool";
import { downstreamSigner } from "../../../src/worker/targets/http/signature";
import { codeExecutor } from "../../../src/worker/targets/code/executor";
import { registerRunner } from "../../../src/worker/targets/code/runner";
import { causeLine, toolCallRecord } from "../../../src/worker/features/tool-calls/audit-record";

const PRINCIPAL = { tenant_id: "tenant-a", subject_id: "user-1", roles: [] };
const CALL = {
  name: "lookup_refund",
  arguments: { refund_id: "RF-1" },
  call_id: "call-1",
  operation_id: "op-1",
} as unknown as ToolCall;

function downstream(fetch: (request: Request) => Promise<Response>): DownstreamService {
  return {
    baseUrl: "http://downstream",
    signer: downstreamSigner("test-signing-key-0123456789abcdef012345")!,
    fetcher: { fetch },
    external: { fetch },
  };
}

const withTimeout = (def: HttpToolDefinition, timeoutMs: number): HttpToolDefinition => ({
  ...def,
  spec: { ...def.spec, timeoutMs },
});

describe("the cause of a failed HTTP run", () => {
  it("a refused connection on 127.0.0.1: the local runtime's outbound proxy answers it as HTTP 502", async () => {
    const def = { ...lookupRefundTool, url: "http://127.0.0.1:9/refunds/lookup?token=abc" };
    const outcome = await callHttpTool(
      def,
      downstream((r) => fetch(r)),
      PRINCIPAL,
      CALL,
      null,
    );
    expect(outcome).toEqual({ kind: "failed", cause: { kind: "status", status: 502, detail: "HTTP 502" } });
  });

  it("a connection that fails before any answer (a read is sent twice, then gives up)", async () => {
    const lost = async (): Promise<Response> => {
      throw new TypeError("Network connection lost to http://127.0.0.1:9/x?token=abc");
    };
    const outcome = await callHttpTool(lookupRefundTool, downstream(lost), PRINCIPAL, CALL, null);
    expect(outcome).toEqual({
      kind: "failed",
      cause: { kind: "connect", detail: "TypeError: Network connection lost to http://127.0.0.1:9/x" },
    });
  });

  it("an HTTP 404", async () => {
    const outcome = await callHttpTool(
      lookupRefundTool,
      downstream(async () => new Response("no such route", { status: 404 })),
      PRINCIPAL,
      CALL,
      null,
    );
    expect(outcome).toEqual({ kind: "failed", cause: { kind: "status", status: 404, detail: "HTTP 404" } });
  });

  it("a timeout", async () => {
    const hang = (request: Request) =>
      new Promise<Response>((_, reject) =>
        request.signal.addEventListener("abort", () => reject(request.signal.reason)),
      );
    const outcome = await callHttpTool(withTimeout(lookupRefundTool, 50), downstream(hang), PRINCIPAL, CALL, null);
    expect(outcome).toEqual({ kind: "failed", cause: { kind: "timeout", detail: "no answer within 50 ms" } });
  });

  it("an answer outside the downstream contract: its paths, never its values", async () => {
    const outcome = await callHttpTool(
      lookupRefundTool,
      downstream(async () => Response.json({ data: "secret-value", resource_revision: null, observed_at: "x" })),
      PRINCIPAL,
      CALL,
      null,
    );
    expect(outcome).toEqual({
      kind: "failed",
      cause: {
        kind: "contract",
        detail: "HTTP 200 answer is not a downstream result (data: Invalid input: expected record, received string)",
      },
    });
  });
});

describe("the cause of a code tool's throw", () => {
  it("keeps the thrown message for the operator only", async () => {
    const spec = { ...lookupRefundTool.spec, name: "thrower" };
    registerRunner(spec, {
      execute: async () => {
        throw new Error("database password rejected for https://db.example/x?key=s3cret");
      },
    });
    const lines: string[] = [];
    const executor = codeExecutor(
      { run: async () => ({ kind: "not_sent" }), canQuery: () => false, query: async () => ({ kind: "unknown" }) },
      { env: {}, signer: undefined, now: () => 0, report: (line) => lines.push(line) },
    );
    expect(await executor.run(spec, PRINCIPAL, CALL, null)).toEqual({
      kind: "failed",
      cause: { kind: "thrown", detail: "Error: database password rejected for https://db.example/x" },
    });
    expect(lines.length).toBe(1);
  });
});

describe("where the cause goes", () => {
  const failedPackage = {
    model_result: { status: "failed", error: { code: "TOOL_ERROR", message: "The tool failed." } },
    protected_audit: { binding: { request_sha256: "00" } },
  } as unknown as ResultPackage;
  const cause = { kind: "status", status: 404, detail: "HTTP 404" } as const;

  it("the audit record keeps it beside the unchanged model result; the log line has no arguments", () => {
    const modelBytes = canonicalJson(failedPackage.model_result);
    const facts = { principal: PRINCIPAL, call: CALL, approvalId: null };
    const hash = (text: string) => `h(${text.length})`;
    const record = toolCallRecord(failedPackage, { ...facts, cause }, "digest", hash);
    expect(record.cause).toEqual(cause);
    expect({ ...record, cause: undefined }).toEqual({
      ...toolCallRecord(failedPackage, facts, "digest", hash),
      cause: undefined,
    });
    expect(canonicalJson(failedPackage.model_result)).toBe(modelBytes);
    expect(causeLine(failedPackage, CALL, cause, 12)).toBe(
      '{"event":"toolgate.tool_error","code":"TOOL_ERROR","tool":"lookup_refund","audit_seq":12,"cause":{"kind":"status","status":404,"detail":"HTTP 404"}}',
    );
    const succeeded = { ...failedPackage, model_result: { status: "succeeded" } } as unknown as ResultPackage;
    expect(toolCallRecord(succeeded, { ...facts, cause }, "digest", hash)).not.toHaveProperty("cause");
  });

  it("a detail: no query, no token, hidden characters shown, bounded", () => {
    expect(causeDetail("GET https://u:p@api.example/v1/x?access_token=abc#frag failed")).toBe(
      "GET https://api.example/v1/x failed",
    );
    expect(causeDetail("Authorization: Bearer eyJabc.def rejected; key tg_agent_AbC123 revoked")).toBe(
      "Authorization: Bearer [redacted] rejected; key [redacted] revoked",
    );
    expect(causeDetail("a\u202eb")).toBe("a⟨U+202E⟩b");
    expect(causeDetail("x".repeat(400))).toBe(`${"x".repeat(300)}…`);
    vi.restoreAllMocks();
  });
});
