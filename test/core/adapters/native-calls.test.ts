import { describe, expect, it } from "vitest";
import { PyFloat } from "../../../src/core/json";
import { parseAnthropicToolUse, parseGeminiFunctionCall, parseOpenAiFunctionCall } from "../../../src/core/adapters";

describe("inbound native tool calls", () => {
  it("reads an OpenAI Responses function_call, parsing arguments strictly", () => {
    const item = {
      type: "function_call",
      id: "fc_1",
      call_id: "call_1",
      name: "get_order",
      arguments: '{"order_ref":"ORDER-7","n":1.0}',
      status: "completed",
    };
    expect(parseOpenAiFunctionCall(item)).toEqual({
      ok: true,
      value: { name: "get_order", arguments: { order_ref: "ORDER-7", n: new PyFloat(1) }, call_id: "call_1" },
    });
  });

  it("refuses duplicate keys and non-object arguments in an OpenAI item", () => {
    const dup = parseOpenAiFunctionCall({ type: "function_call", call_id: "c", name: "t", arguments: '{"a":1,"a":2}' });
    expect(dup.ok ? "" : dup.error.code).toBe("NATIVE_ARGUMENTS_INVALID");
    expect(parseOpenAiFunctionCall({ type: "function_call", call_id: "c", name: "t", arguments: "[1]" })).toEqual({
      ok: false,
      error: { code: "NATIVE_ARGUMENTS_INVALID", message: "arguments must be a JSON object" },
    });
    const wrong = parseOpenAiFunctionCall({ type: "message", call_id: "c", name: "t", arguments: "{}" });
    expect(wrong.ok ? "" : wrong.error.code).toBe("NATIVE_CALL_INVALID");
  });

  it("reads an Anthropic tool_use block", () => {
    expect(
      parseAnthropicToolUse({ type: "tool_use", id: "toolu_1", name: "get_order", input: { order_ref: "ORDER-7" } }),
    ).toEqual({
      ok: true,
      value: { name: "get_order", arguments: { order_ref: "ORDER-7" }, call_id: "toolu_1" },
    });
    const blank = parseAnthropicToolUse({ type: "tool_use", id: " \u0085", name: "get_order", input: {} });
    expect(blank.ok ? "" : blank.error.code).toBe("NATIVE_CALL_INVALID");
  });

  it("reads a Gemini function call and refuses array args", () => {
    expect(parseGeminiFunctionCall({ id: "fc-1", name: "get_order", args: { order_ref: "ORDER-7" } })).toEqual({
      ok: true,
      value: { name: "get_order", arguments: { order_ref: "ORDER-7" }, call_id: "fc-1" },
    });
    const bad = parseGeminiFunctionCall({ id: "fc-1", name: "get_order", args: [] });
    expect(bad.ok ? "" : bad.error.code).toBe("NATIVE_CALL_INVALID");
  });
});
