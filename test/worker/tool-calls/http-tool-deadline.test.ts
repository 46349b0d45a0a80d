/**
 * An HTTP (or code) tool's deadline ends with its call: the timer of `timeout_ms` is cleared once the answer
 * is read (or the call failed), so no timer of a finished call wakes the object later, and one
 * that is still running is aborted by it as before (tool-error-cause.test.ts, "a timeout").
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ToolCall } from "../../../src/core/tool-result/types";
import { lookupRefundTool, submitRefundTool } from "../../../src/worker/targets/catalog";
import { callHttpTool, queryHttpToolStatus, type DownstreamService } from "../../../src/worker/targets/http/tool";
import { downstreamSigner } from "../../../src/worker/targets/http/signature";
import { codeExecutor } from "../../../src/worker/targets/code/executor";
import { registerRunner } from "../../../src/worker/targets/code/runner";

const PRINCIPAL = { tenant_id: "tenant-a", subject_id: "user-1", roles: [] };
const call = (name: string, args: Record<string, string>) =>
  ({ name, arguments: args, call_id: "call-1", operation_id: "op-1" }) as unknown as ToolCall;

const RESULT = {
  data: { refund_id: "RF-1", state: "submitted" },
  resource_revision: null,
  observed_at: "2026-07-19T00:00:00Z",
};

function downstream(fetch: (request: Request) => Promise<Response>): DownstreamService {
  return {
    baseUrl: "http://downstream",
    signer: downstreamSigner("test-signing-key-0123456789abcdef012345")!,
    fetcher: { fetch },
  };
}

/** The timers set with the tools' deadline and those cleared, while `run` runs. */
async function timersOf(timeoutMs: number, run: () => Promise<unknown>): Promise<{ set: number; cleared: number }> {
  const ids: unknown[] = [];
  const realSet = globalThis.setTimeout;
  const set = vi.spyOn(globalThis, "setTimeout").mockImplementation(((handler: () => void, ms?: number) => {
    const id = realSet(handler, ms);
    if (ms === timeoutMs) ids.push(id);
    return id;
  }) as typeof setTimeout);
  const clear = vi.spyOn(globalThis, "clearTimeout");
  await run();
  set.mockRestore();
  const cleared = clear.mock.calls.filter(([id]) => ids.includes(id)).length;
  clear.mockRestore();
  return { set: ids.length, cleared };
}

afterEach(() => vi.restoreAllMocks());

describe("an HTTP tool's deadline", () => {
  it("is cleared once a call's answer is read", async () => {
    const fetch = async () => Response.json(RESULT);
    let kind = "";
    const timers = await timersOf(lookupRefundTool.spec.timeoutMs, async () => {
      kind = (
        await callHttpTool(
          lookupRefundTool,
          downstream(fetch),
          PRINCIPAL,
          call("lookup_refund", { refund_id: "RF-1" }),
          null,
        )
      ).kind;
    });
    expect(kind).toBe("result");
    expect(timers).toEqual({ set: 1, cleared: 1 });
  });

  it("is cleared when a call fails", async () => {
    const fetch = async () => new Response("no", { status: 500 });
    const timers = await timersOf(submitRefundTool.spec.timeoutMs, async () => {
      await callHttpTool(
        submitRefundTool,
        downstream(fetch),
        PRINCIPAL,
        call("submit_refund", { refund_id: "RF-1" }),
        "key-1",
      );
    });
    expect(timers).toEqual({ set: 1, cleared: 1 });
  });

  it("is cleared once a status query is answered", async () => {
    const fetch = async () => Response.json({ state: "committed", result: RESULT });
    let kind = "";
    const timers = await timersOf(submitRefundTool.spec.timeoutMs, async () => {
      kind = (
        await queryHttpToolStatus(
          submitRefundTool,
          downstream(fetch),
          PRINCIPAL,
          call("submit_refund", { refund_id: "RF-1" }),
          "key-1",
        )
      ).kind;
    });
    expect(kind).toBe("committed");
    expect(timers).toEqual({ set: 1, cleared: 1 });
  });

  it("of a code tool is cleared once its handler answered", async () => {
    const spec = { ...lookupRefundTool.spec, name: "deadline_code_tool" };
    registerRunner(spec, { execute: async () => ({ ok: true, data: { refund_id: "RF-1" } }) });
    const executor = codeExecutor(
      { run: async () => ({ kind: "not_sent" }), canQuery: () => false, query: async () => ({ kind: "unknown" }) },
      { env: {}, signer: undefined, now: () => 0 },
    );
    let kind = "";
    const timers = await timersOf(spec.timeoutMs, async () => {
      kind = (await executor.run(spec, PRINCIPAL, call("deadline_code_tool", { refund_id: "RF-1" }), null)).kind;
    });
    expect(kind).toBe("result");
    expect(timers).toEqual({ set: 1, cleared: 1 });
  });
});
