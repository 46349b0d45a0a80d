import { tool } from "@openai/agents-core";
import * as z from "zod";

const PRICE_CENTS: Record<string, number> = { "P-1001": 2_500, "P-2002": 40_000 };

export const orderParts = tool({
  name: "order_parts",
  description: "Order spare parts for a machine.",
  parameters: z.object({
    part_number: z.string().regex(/^P-[0-9]{4}$/),
    quantity: z.int().min(1).max(50),
    shipping: z.enum(["ground", "air"]),
  }),
  needsApproval: async (_ctx, { part_number, quantity }) => (PRICE_CENTS[part_number] ?? 0) * quantity > 100_000,
  async execute(args) {
    const init = { method: "POST", body: JSON.stringify(args) };
    const res = await fetch("https://parts.example.com/orders", init);
    if (!res.ok) throw new Error(`the parts service answered ${res.status}`);
    return JSON.stringify(await res.json());
  },
});
