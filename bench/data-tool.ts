// Benchmark part of `npm run bench`: the per-call cost of a data-defined tool (JSON Schema input
// and output, a CEL `authorize`) beside the built-in `get_order`, through the same engine path
// (`dispatch` of a read on a fresh in-memory engine), in interleaved rounds, medians reported.
//
// The data tool is built exactly as the Worker builds one (`buildTool` from a definition checked
// by its zod contract). Its execution is external (an HTTP target); here the built spec is
// wrapped with an in-process handler answering a fixed valid result, so only the gate's own
// cost is measured: input schema validation, the CEL authorize rule (with the conversion of its
// variables), output schema validation. Both tools answer the same data for the same arguments.
import { checkJsonDomain, type JsonObject } from "../src/core/json";
import { celVariables } from "../src/core/policy/variables";
import { compilePolicy } from "../src/core/policy";
import {
  bindToolCall,
  createRegistry,
  defineTool,
  dispatch,
  validateArguments,
  validateResult,
} from "../src/core/tool-result";
import { createDemoEngine, getOrderTool } from "../src/conformance/tool-cases";
import type { HandlerResult, Principal, ResultPackage, ToolCall } from "../src/core/tool-result";
import { ToolDefinition } from "../src/contracts/tool-definition";
import { buildTool } from "../src/worker/features/tools/build";
import { loadPolicyLanguage } from "../src/worker/kernel/policy-language";
import type { Result } from "../src/core/result";

const NAME = "lookup_order";
const PRINCIPAL: Principal = { tenant_id: "tenant-a", subject_id: "user-1", roles: [] };
const NOW = 1784419200;
const OBSERVED_AT = "2026-07-19T00:00:00Z";

/** The data-defined twin of `get_order`: same argument and output rules, its authorize rule in CEL. */
export const LOOKUP_ORDER_DEFINITION = {
  description: "Look up an order's status.",
  risk: "read",
  input: {
    type: "object",
    properties: { order_ref: { type: "string", minLength: 1, maxLength: 64 } },
    required: ["order_ref"],
    additionalProperties: false,
  },
  output: {
    schema: {
      type: "object",
      properties: {
        order_ref: { type: "string", minLength: 1, maxLength: 64 },
        status: { type: "string", enum: ["paid", "pending", "refunded"] },
      },
      required: ["order_ref", "status"],
      additionalProperties: false,
    },
    bound_to_arguments: { order_ref: "order_ref" },
    max_bytes: 256,
    max_depth: 1,
  },
  authorize:
    'consumer == "tenant-a" && args.order_ref.startsWith("ORDER-") && (principal.subject_id == "user-1" || "support_admin" in principal.roles)',
  target: { kind: "http", url: "https://orders.example.test/lookup" },
};

function buildDataTool() {
  const definition = ToolDefinition.parse(LOOKUP_ORDER_DEFINITION);
  const built = buildTool(NAME, definition, { allowLoopback: false });
  if (!built.ok) throw new Error(`the bench's data tool does not build: ${built.error.pointer} ${built.error.message}`);
  const spec = built.value.spec;
  // A fresh data object per call, as get_order's handler makes one (validated outputs are memoized per object).
  const handler = (args: JsonObject): HandlerResult => ({
    data: { order_ref: args["order_ref"] as string, status: "paid" },
    producer_revision: spec.producerRevision,
    resource_revision: "order-7-r3",
    observed_at: OBSERVED_AT,
    downstream_request_id: "orders-request-1",
    receipt_id: null,
  });
  return defineTool({ ...spec, execution: { kind: "in_process", handler } });
}

// The policy language is loaded as an object loads it when it starts (src/worker/kernel/policy-language.ts).
await loadPolicyLanguage();
const dataTool = buildDataTool();
const registry = createRegistry([getOrderTool, dataTool]);

function calls(name: string, n: number): ToolCall[] {
  const out: ToolCall[] = [];
  for (let i = 1; i <= n; i++) {
    out.push(
      bindToolCall(
        { name, arguments: { order_ref: "ORDER-7" } },
        {
          provider: "openai",
          api_family: "responses",
          adapter_revision: "openai-responses-v1",
          response_id: "resp-1",
          call_id: `call-${i}`,
          operation_id: `op-${i}`,
          idempotency_key: null,
        },
      ),
    );
  }
  return out;
}

function checkPackage(pkg: ResultPackage, call: ToolCall): void {
  const model = pkg.model_result;
  const data = model["data"] as JsonObject | null;
  if (model["status"] !== "succeeded" || data?.["order_ref"] !== "ORDER-7" || data["status"] !== "paid") {
    throw new Error(`${call.name} did not succeed in the bench: ${JSON.stringify(model["error"])}`);
  }
}

/** One batch: a fresh engine, every call dispatched once. */
function batch(batchCalls: readonly ToolCall[], check = false): void {
  const engine = createDemoEngine({ registry });
  for (const call of batchCalls) {
    const pkg = accepted(dispatch(engine, { principal: PRINCIPAL, call, now: NOW }));
    if (check) {
      checkPackage(pkg, call);
      const problems = validateResult(PRINCIPAL, call, registry.get(call.name), pkg, engine.hash);
      if (problems.length > 0) throw new Error(`${call.name}: the package does not validate: ${problems.join("; ")}`);
    }
  }
}

/**
 * One round: batches of the two tools alternate (the one going first swaps every pair) until
 * `seconds` have passed, so a load change on a shared machine hits both alike. Answers each
 * tool's microseconds per call over the round.
 */
function round(
  data: readonly ToolCall[],
  builtin: readonly ToolCall[],
  seconds: number,
): { data: number; builtin: number } {
  const spent = { data: 0, builtin: 0 };
  let pairs = 0;
  const timed = (which: "data" | "builtin"): void => {
    const start = performance.now();
    batch(which === "data" ? data : builtin);
    spent[which] += performance.now() - start;
  };
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    const first = pairs % 2 === 0 ? "data" : "builtin";
    timed(first);
    timed(first === "data" ? "builtin" : "data");
    pairs++;
  }
  return {
    data: (spent.data * 1000) / (pairs * data.length),
    builtin: (spent.builtin * 1000) / (pairs * builtin.length),
  };
}

/** Microseconds per run of `fn`, over `seconds`. */
function timeEach(fn: () => unknown, seconds: number): number {
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < seconds * 1000) {
    for (let i = 0; i < 1000; i++) fn();
    n += 1000;
    elapsed = performance.now() - start;
  }
  return (elapsed * 1000) / n;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

const fmt = (x: number, d = 2): string =>
  x.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });

/** The gate's own steps of one data-tool call, each timed alone (µs), beside get_order's. */
function breakdown(seconds: number): string {
  const call = calls(NAME, 1)[0] as ToolCall;
  const builtin = calls("get_order", 1)[0] as ToolCall;
  const ctx = { store: createDemoEngine({ registry }).store, now: NOW };
  const data: JsonObject = { order_ref: "ORDER-7", status: "paid" };
  const policy = compilePolicy(LOOKUP_ORDER_DEFINITION.authorize, "authorize");
  if (!policy.ok) throw new Error("the bench's authorize rule does not compile");
  const vars = {
    principal: { subject_id: "user-1", roles: [], claims: {} },
    args: call.arguments,
    tool: NAME,
    consumer: "tenant-a",
    now: NOW,
  };
  const parts: Array<[string, () => unknown]> = [
    ["input schema", () => validateArguments(dataTool, call.arguments)],
    ["CEL variables", () => celVariables(vars, ["principal", "args", "consumer"], policy.value.maxInputSize)],
    ["CEL authorize (incl. variables)", () => dataTool.authorize(PRINCIPAL, call.arguments, ctx)],
    ["output schema", () => checkJsonDomain(data) === null && dataTool.outputSchema?.validate(data)],
    ["get_order arguments", () => validateArguments(getOrderTool, builtin.arguments)],
    ["get_order authorize", () => getOrderTool.authorize(PRINCIPAL, builtin.arguments, ctx)],
  ];
  return parts.map(([label, fn]) => `${label} ${fmt(timeEach(fn, seconds), 3)} µs`).join(", ");
}

/**
 * Runs the comparison: `rounds` rounds of `slice` seconds, the two tools' batches interleaved
 * within each; medians (and ranges) over the rounds. Answers the lines to print.
 */
export function benchDataTool(rounds: number, slice: number, batchSize = 250): string[] {
  const data = calls(NAME, batchSize);
  const builtin = calls("get_order", batchSize);
  batch(data, true);
  batch(builtin, true);
  for (let i = 0; i < 20; i++) {
    batch(data);
    batch(builtin);
  }
  const dataUs: number[] = [];
  const builtinUs: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const us = round(data, builtin, slice);
    dataUs.push(us.data);
    builtinUs.push(us.builtin);
    ratios.push(us.data / us.builtin);
  }
  const ratio = median(ratios);
  return [
    `data tool vs built-in: ${rounds} rounds of ${fmt(slice, 1)} s, batches of ${batchSize} distinct read calls (one fresh engine each) alternating between the two tools; dispatch of get_order's arguments, same answer`,
    `  data tool (schema + CEL authorize) per call: ${fmt(median(dataUs))} µs [${fmt(Math.min(...dataUs))}–${fmt(Math.max(...dataUs))}] ` +
      `vs built-in get_order ${fmt(median(builtinUs))} µs [${fmt(Math.min(...builtinUs))}–${fmt(Math.max(...builtinUs))}] ` +
      `= ${fmt(ratio)}× [${fmt(Math.min(...ratios))}–${fmt(Math.max(...ratios))}] (goal ≤ 1.3×: ${ratio <= 1.3 ? "met" : "NOT met"})`,
    `  each step alone, per call: ${breakdown(Math.min(slice, 0.5))}`,
  ];
}

/** The engine's value; these inputs are well formed, so a refusal is a bug of the bench. */
function accepted<T, E>(result: Result<T, E>): T {
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.error)}`);
  return result.value;
}
