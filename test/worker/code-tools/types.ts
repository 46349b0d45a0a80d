/**
 * Type-level checks of `defineTool` with zod schemas, run by `npx tsc --noEmit` (never executed):
 * the handler, `authorize` and `needsApproval` see the parsed arguments' types, and the handler
 * must answer the output schema's type.
 */
import * as zc from "zod";
import * as z from "zod/mini";
import { defineTool, type ToolRunContext } from "../../../src/worker/gate";

const input = z.object({
  part_number: z.string(),
  quantity: z.int(),
  shipping: z.object({ speed: z.enum(["ground", "air"]), notes: z.optional(z.array(z.string())) }),
});
const output = z.object({ order_id: z.string(), total_cents: z.int() });

export const typed = defineTool({
  name: "typed_order",
  description: "Types only.",
  input,
  output,
  needsApproval: (args, { principal }) => {
    // @ts-expect-error quantity is a number
    args.quantity.toUpperCase();
    // @ts-expect-error no such argument
    const price: unknown = args.price;
    return price === undefined && args.quantity > 10 && principal.roles.length >= 0;
  },
  authorize: ({ shipping }) => {
    // @ts-expect-error speed is "ground" | "air"
    const speed: "sea" = shipping.speed;
    // @ts-expect-error notes may be absent
    return speed !== "sea" && shipping.notes.length >= 0;
  },
  execute: async ({ part_number, quantity }, { signal, principal, idempotencyKey }) => {
    const aborted: boolean = signal.aborted;
    const key: string | null = idempotencyKey;
    return { order_id: `${part_number}${key ?? principal.subject_id}`, total_cents: aborted ? 0 : quantity * 100 };
  },
});

// @ts-expect-error the handler's total_cents must be a number
export const wrongOutput = defineTool({
  name: "wrong_output",
  description: "Answers a string where the output schema says an integer.",
  input,
  output,
  execute: ({ part_number }) => ({ order_id: part_number, total_cents: "0" }),
});

interface PartsEnv {
  readonly PARTS_URL: string;
}

export const withEnv = defineTool({
  name: "typed_env",
  description: "The Worker's own bindings, typed by the handler's context.",
  input,
  output,
  execute: ({ part_number }, { env }: ToolRunContext<PartsEnv>) => ({
    order_id: env.PARTS_URL + part_number,
    total_cents: 1,
  }),
});

/** The README's example ("A tool written as code"), type-checked here. */
const PRICE_CENTS: Record<string, number> = { "P-1001": 2_500, "P-2002": 40_000 };

export const orderParts = defineTool({
  name: "order_parts",
  description: "Order spare parts for a machine.",
  input: zc.object({
    part_number: zc.string().regex(/^P-[0-9]{4}$/),
    quantity: zc.int().min(1).max(50),
    shipping: zc.enum(["ground", "air"]),
  }),
  output: zc.object({ order_id: zc.string(), total_cents: zc.int() }),
  // A person approves an order above 1,000.00; a smaller one runs at once.
  needsApproval: ({ part_number, quantity }) => (PRICE_CENTS[part_number] ?? 0) * quantity > 100_000,
  async execute(args, { fetch }) {
    // Signed for the call's principal, with the write's Idempotency-Key and the timeout's signal.
    const res = await fetch("https://parts.example.com/orders", { body: JSON.stringify(args) });
    if (!res.ok) throw new Error(`the parts service answered ${res.status}`);
    return res.json();
  },
});
