import { describe, expect, it } from "vitest";
import { toAnthropicMessages, toOpenAiResponses } from "../../../src/core/adapters";
import { bindToolCall, dispatch } from "../../../src/core/tool-result";
import { createDemoEngine } from "../../../src/conformance/tool-cases";
import type { JsonObject } from "../../../src/core/json";
import { accepted } from "../../support/accepted";

const principal = { tenant_id: "tenant-a", subject_id: "user-1", roles: [] as string[] };
const call = bindToolCall(
  { name: "get_order", arguments: { order_ref: "ORDER-7" } },
  {
    provider: "openai",
    api_family: "responses",
    adapter_revision: "openai-responses-v1",
    response_id: "resp-1",
    call_id: "call-1",
    operation_id: "op-1",
    idempotency_key: null,
  },
);

describe("outbound provider adapters", () => {
  const engine = createDemoEngine();
  const spec = engine.registry.get("get_order");
  const pkg = accepted(dispatch(engine, { principal, call, now: 1784419200 }));

  it("isolates provider profiles", () => {
    expect(toAnthropicMessages(principal, call, spec, pkg)).toEqual({
      ok: false,
      error: { code: "RESULT_CONTRACT_VIOLATION", message: "call is not an Anthropic Messages context" },
    });
  });

  it("refuses to project a package that fails validation", () => {
    const tampered = structuredClone(pkg);
    (tampered.protected_audit as JsonObject)["redactions"] = "none";
    expect(toOpenAiResponses(principal, call, spec, tampered)).toEqual({
      ok: false,
      error: {
        code: "RESULT_CONTRACT_VIOLATION",
        message: "result-contract validation failed:\n- protected_audit.redactions must be a list of strings",
      },
    });
  });
});
