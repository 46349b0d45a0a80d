/**
 * A connection that fails before any answer: a read (and a status query) is sent once more
 * within its deadline; a write is never sent twice (its outcome is unknown instead).
 */
import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/core/tool-result/types";
import { lookupRefundTool, submitRefundTool } from "../../../src/worker/targets/catalog";
import { callHttpTool, queryHttpToolStatus, type DownstreamService } from "../../../src/worker/targets/http/tool";
import { downstreamSigner } from "../../../src/worker/targets/http/signature";

const RECEIPT = {
  data: { refund_id: "RF-1", state: "submitted" },
  resource_revision: null,
  observed_at: "2026-07-19T00:00:00Z",
  request_id: "lookup-1",
};

/** A downstream whose first `failures` requests lose their connection before any answer. */
function flaky(failures: number, answer: unknown): { service: DownstreamService; sent: string[] } {
  const sent: string[] = [];
  const service: DownstreamService = {
    baseUrl: "http://downstream",
    signer: downstreamSigner("test-signing-key-0123456789abcdef012345")!,
    fetcher: {
      async fetch(request: Request) {
        sent.push(
          `${request.method} ${new URL(request.url).pathname} ${request.headers.get("idempotency-key") ?? "-"} ${await request.text()}`,
        );
        if (sent.length <= failures) throw new TypeError("Network connection lost.");
        return Response.json(answer);
      },
    },
  };
  return { service, sent };
}

const PRINCIPAL = { tenant_id: "tenant-a", subject_id: "user-1", roles: [] };
const call = (name: string, args: Record<string, string>) =>
  ({ name, arguments: args, call_id: "call-1", operation_id: "op-1" }) as unknown as ToolCall;

describe("HTTP tools after a lost connection", () => {
  it("sends a read once more and answers its result", async () => {
    const { service, sent } = flaky(1, RECEIPT);
    const outcome = await callHttpTool(
      lookupRefundTool,
      service,
      PRINCIPAL,
      call("lookup_refund", { refund_id: "RF-1" }),
      null,
    );
    expect(outcome.kind).toBe("result");
    expect(sent).toEqual([
      'POST /refunds/lookup - {"refund_id":"RF-1"}',
      'POST /refunds/lookup - {"refund_id":"RF-1"}',
    ]);
  });

  it("gives up on a read after the second lost connection", async () => {
    const { service, sent } = flaky(2, RECEIPT);
    expect(
      await callHttpTool(lookupRefundTool, service, PRINCIPAL, call("lookup_refund", { refund_id: "RF-1" }), null),
    ).toEqual({ kind: "failed", cause: { kind: "connect", detail: "TypeError: Network connection lost." } });
    expect(sent.length).toBe(2);
  });

  it("never sends a write twice", async () => {
    const { service, sent } = flaky(1, RECEIPT);
    expect(
      await callHttpTool(
        submitRefundTool,
        service,
        PRINCIPAL,
        call("submit_refund", { order_ref: "ORDER-7", reason: "duplicate" }),
        "key-1",
      ),
    ).toEqual({ kind: "failed", cause: { kind: "connect", detail: "TypeError: Network connection lost." } });
    expect(sent).toEqual(['POST /refunds "key-1" {"order_ref":"ORDER-7","reason":"duplicate"}']);
  });

  it("asks for a write's status once more", async () => {
    const { service, sent } = flaky(1, {
      state: "committed",
      result: {
        data: { refund_id: "RF-9", order_ref: "ORDER-7", reason: "duplicate" },
        resource_revision: "rf-9-r1",
        observed_at: "2026-07-19T00:00:00Z",
        request_id: "r-9",
        receipt_id: "c-9",
      },
    });
    const status = await queryHttpToolStatus(
      submitRefundTool,
      service,
      PRINCIPAL,
      call("submit_refund", { order_ref: "ORDER-7", reason: "duplicate" }),
      "key-9",
    );
    expect(status.kind === "committed" ? status.result.receipt_id : status.kind).toBe("c-9");
    expect(sent).toEqual(["GET /refunds/status/key-9 - ", "GET /refunds/status/key-9 - "]);
  });
});
