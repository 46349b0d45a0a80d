import { it } from "vitest";
import { buildTool } from "../../../src/worker/object/tools/build";
import { validateHandlerResult } from "../../../src/core/tool-result/output-contract";
import { ToolDefinition } from "../../../src/contracts/tool-definition";
it("dbg", async () => {
  const LOOKUP = {
    description: "Look up a customer's tier.", risk: "read",
    input: { type: "object", properties: { customer: { type: "string", minLength: 1, maxLength: 8 } }, required: ["customer"], additionalProperties: false },
    output: { schema: { type: "object", properties: { customer: { type: "string" }, tier: { type: "string", enum: ["gold", "silver"] } }, required: ["customer", "tier"], additionalProperties: false }, bound_to_arguments: { customer: "customer" } },
    authorize: '"support" in principal.roles',
    target: { kind: "http", url: "https://ledger.test/customers/lookup" },
  };
  const built = buildTool("lookup_customer", ToolDefinition.parse(LOOKUP), { allowLoopback: false });
  if (!built.ok) throw new Error(JSON.stringify(built.error));
  const call = { call_id: "c", operation_id: "o", name: "lookup_customer", arguments: { customer: "acme" }, idempotency_key: null, provider: "openai", api_family: "responses", response_id: "r", adapter_revision: "openai-responses-v1" };
  const raw = { data: { customer: "acme", tier: "gold" }, producer_revision: built.value.spec.producerRevision, resource_revision: null, observed_at: "2026-07-18T00:00:00Z", downstream_request_id: null, receipt_id: null };
  console.log("RESULT", JSON.stringify((validateHandlerResult as any)(built.value.spec, call, raw)));
});
import { callHttpTool } from "../../../src/worker/tools/http-tool";
import { downstreamSigner } from "../../../src/worker/tools/signature";
it("dbg2", async () => {
  const LOOKUP = {
    description: "d", risk: "read",
    input: { type: "object", properties: { customer: { type: "string", minLength: 1, maxLength: 8 } }, required: ["customer"], additionalProperties: false },
    output: { schema: { type: "object", properties: { customer: { type: "string" }, tier: { type: "string", enum: ["gold", "silver"] } }, required: ["customer", "tier"], additionalProperties: false }, bound_to_arguments: { customer: "customer" } },
    target: { kind: "http", url: "https://ledger.test/customers/lookup" },
  };
  const built = buildTool("lookup_customer", ToolDefinition.parse(LOOKUP), { allowLoopback: false });
  if (!built.ok) throw new Error("x");
  const call = { call_id: "c", operation_id: "o", name: "lookup_customer", arguments: { customer: "acme" }, idempotency_key: null, provider: "openai", api_family: "responses", response_id: "r", adapter_revision: "openai-responses-v1" };
  const ds = { fetcher: { fetch: (r: Request) => fetch(r) }, baseUrl: "", signer: downstreamSigner("test-signing-key-0123456789abcdef012345")!, external: { fetch: async (r: Request) => { const res = await fetch(r); console.log("STATUS", res.status, res.type, [...res.headers]); return res; } } };
  const out = await callHttpTool({ spec: built.value.spec, url: "https://ledger.test/customers/lookup" }, ds as any, { tenant_id: "tools-a", subject_id: "u", roles: [] }, call as any, null);
  console.log("RESULT2", JSON.stringify(out));
});
