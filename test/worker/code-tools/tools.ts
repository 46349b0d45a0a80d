/**
 * The code tools of the worker tests (`defineTool` with zod schemas and `execute`), and how a
 * test's consumer object gets them: the object the test Worker binds is the gate's own, so the
 * tools are handed to the consumer's object before it is configured, as `createGate({ tools })`'s
 * subclass does (`codeTools()`).
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import * as z from "zod/mini";
import type { ToolSpec } from "../../../src/core/tool-result/tool-spec";
import { checkCodeTools } from "../../../src/worker/targets/code/tools";
import { defineTool } from "../../../src/worker/gate";

/** What the handlers saw (the test reads it after a call). */
export const seen: { signal: { aborted: boolean; reason: string } | null } = { signal: null };

const LEDGER = "https://ledger.test";

/** A read that asks the ledger for a customer's tier. */
export const customerTier = defineTool({
  name: "customer_tier",
  description: "Look up a customer's tier.",
  input: z.object({ customer: z.string().check(z.minLength(1), z.maxLength(8)) }),
  output: z.object({ customer: z.string(), tier: z.enum(["gold", "silver"]) }),
  async execute({ customer }, { fetch }) {
    const res = await fetch(`${LEDGER}/customers/lookup`, { body: JSON.stringify({ customer }) });
    const body: { data: { customer: string; tier: "gold" | "silver" } } = await res.json();
    return body.data;
  },
});

/** A write: an invoice at the ledger, idempotent by the call's key, with a status query. */
export const billCustomer = defineTool({
  name: "bill_customer",
  description: "Create an invoice.",
  input: z.object({ customer: z.string().check(z.minLength(1), z.maxLength(8)), amount: z.int().check(z.minimum(1)) }),
  output: z.object({ invoice_id: z.string(), customer: z.string(), amount: z.int() }),
  needsApproval: false,
  risk: "write",
  timeoutMs: 2_000,
  async execute(args, { fetch }) {
    const res = await fetch(`${LEDGER}/invoices`, { body: JSON.stringify(args) });
    if (!res.ok) throw new Error(`ledger answered ${res.status}: secret-cause-text`);
    const body: { data: { invoice_id: string; customer: string; amount: number } } = await res.json();
    return body.data;
  },
  async status(_args, { fetch, idempotencyKey }) {
    const res = await fetch(`${LEDGER}/invoices/status/${encodeURIComponent(idempotencyKey ?? "")}`);
    const body: { state: string; result?: { data: { invoice_id: string; customer: string; amount: number } } } =
      await res.json();
    if (body.state === "committed" && body.result !== undefined) return { state: "committed", data: body.result.data };
    return body.state === "fenced" ? { state: "not_executed" } : { state: "unknown" };
  },
});

/** A read that waits for its signal (it never answers before the timeout). */
export const slowRead = defineTool({
  name: "slow_read",
  description: "Waits until it is aborted.",
  input: z.object({ wait: z.boolean() }),
  output: z.object({ done: z.boolean() }),
  timeoutMs: 50,
  execute: (_args, { signal }) =>
    new Promise<{ done: boolean }>((_resolve, reject) => {
      signal.addEventListener("abort", () => {
        seen.signal = {
          aborted: signal.aborted,
          reason: signal.reason instanceof DOMException ? signal.reason.name : "other",
        };
        reject(new Error("aborted"));
      });
    }),
});

/** A read whose handler answers data its output schema refuses. */
export const badOutput = defineTool({
  name: "bad_output",
  description: "Answers a number where a string belongs.",
  input: z.object({ customer: z.string().check(z.maxLength(8)) }),
  output: z.object({ customer: z.string().check(z.regex(/^cust-secret-rule$/)) }),
  execute: ({ customer }) => ({ customer: `${customer}-not-matching` }),
});

/** Per part: its unit price in cents. */
const PRICES: Record<string, number> = { "P-1001": 2_500, "P-2002": 40_000 };

/** The README's example: three arguments, approval above a total of 1,000.00. */
export const orderParts = defineTool({
  name: "order_parts",
  description: "Order spare parts for a machine.",
  input: z.object({
    part_number: z.string().check(z.regex(/^P-[0-9]{4}$/)),
    quantity: z.int().check(z.minimum(1), z.maximum(50)),
    shipping: z.object({
      speed: z.enum(["ground", "air"]),
      notes: z.optional(z.array(z.string().check(z.maxLength(40))).check(z.maxLength(3))),
    }),
  }),
  output: z.object({ order_id: z.string(), total_cents: z.int() }),
  needsApproval: ({ part_number, quantity }) => (PRICES[part_number] ?? 0) * quantity > 100_000,
  authorize: (_args, { principal }) => principal.roles.includes("buyer"),
  execute: ({ part_number, quantity, shipping }) => ({
    order_id: `ORD-${part_number}-${quantity}-${shipping.speed}`,
    total_cents: (PRICES[part_number] ?? 0) * quantity,
  }),
});

export const CODE_TOOLS: readonly ToolSpec[] = checkCodeTools([
  customerTier,
  billCustomer,
  slowRead,
  badOutput,
  orderParts,
]);

/** Gives `consumer`'s object the code tools (before its configuration names them). */
export async function withCodeTools(consumer: string): Promise<void> {
  const stub = env.CONSUMER.get(env.CONSUMER.idFromName(consumer));
  await runInDurableObject(stub, (instance) => {
    Reflect.set(instance, "codeTools", () => CODE_TOOLS);
  });
}
