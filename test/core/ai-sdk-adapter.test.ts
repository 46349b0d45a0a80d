/**
 * The AI SDK adapter's pure parts: the request derived from a toolCallId (a repeat is the same
 * request), the idempotency key (a digest past the identifier's 1024 characters), and what the
 * model reads of each kind of answer. The adapter against a real gate: test/blackbox/ai-sdk.test.ts.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { derivedKey, isPending } from "../../src/adapters/ai-sdk";
import { callRequest, DEFAULT_PROFILE, toModelOutput, type CallSettings } from "../../src/adapters/ai-sdk/gate-call";
import { AgentClient } from "../../src/client/agent";

const settings: CallSettings = {
  client: new AgentClient({ baseUrl: "https://gate.example", consumer: "acme", token: "tg_agent_x" }),
  profile: DEFAULT_PROFILE,
  keyPrefix: "chat-9:",
};

describe("the AI SDK adapter's requests", () => {
  it("derives every id from the toolCallId, under the prefix", async () => {
    expect(await callRequest(settings, "create_invoice", { amount: 5 }, "call_abc")).toEqual({
      proposal: { name: "create_invoice", arguments: { amount: 5 } },
      context: {
        call_id: "call_abc",
        operation_id: "ai-sdk:chat-9:call_abc",
        idempotency_key: "ai-sdk:chat-9:call_abc",
        response_id: "ai-sdk:chat-9:call_abc",
        provider: "openai",
        api_family: "responses",
        adapter_revision: "openai-responses-v1",
      },
    });
    await expect(callRequest(settings, "create_invoice", [1], "call_abc")).rejects.toThrow(
      "the arguments of create_invoice are not an object",
    );
  });

  it("replaces a key past 1024 characters by its SHA-256", async () => {
    const id = "x".repeat(1018);
    expect(await derivedKey("", id.slice(1))).toBe(`ai-sdk:${id.slice(1)}`);
    const sha = createHash("sha256").update(`ai-sdk:${id}`).digest("hex");
    expect(await derivedKey("", id)).toBe(`ai-sdk:sha256:${sha}`);
  });
});

describe("what the model reads", () => {
  const result = (status: string) => ({ schema_version: "tool-model-result-v2", status, data: null });

  it("a succeeded call as JSON, any other as an error, a pending approval as JSON", () => {
    expect(toModelOutput(result("succeeded"))).toEqual({ type: "json", value: result("succeeded") });
    expect(toModelOutput(result("failed"))).toEqual({ type: "error-json", value: result("failed") });
    expect(toModelOutput(result("unknown"))).toEqual({ type: "error-json", value: result("unknown") });
    const pending = { ...result("failed"), approval: { approval_id: "ap_1", state: "pending" } };
    expect(isPending(pending)).toBe(true);
    expect(toModelOutput(pending)).toEqual({ type: "json", value: pending });
    expect(isPending({ ...pending, approval: { approval_id: "ap_1", state: "approved" } })).toBe(false);
  });

  it("an integer beyond 2^53 - 1 as its decimal text, every digit kept", () => {
    const big = { status: "succeeded", data: { n: 9007199254740993n, list: [1n] } };
    expect(toModelOutput(big)).toEqual({
      type: "json",
      value: { status: "succeeded", data: { n: "9007199254740993", list: ["1"] } },
    });
  });
});
