/**
 * `defineTool({ input, output, execute })` of "toolgate/worker" with zod 4 (classic) schemas, at
 * definition time (pure: it runs in Node): the JSON Schema is zod's own, refused where the gate's
 * subset cannot express it (a TypeError naming the pointer), the risk is inferred, the revisions
 * are digests of the definition, and `needsApproval`/`authorize` see the parsed arguments.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import type { JsonObject } from "../../src/core/json";
import { InMemoryToolResultStore } from "../../src/core/tool-result/store";
import { checkCodeTools } from "../../src/worker/targets/code/tools";
import { defineTool } from "../../src/worker/targets/code/define-tool";

const PRINCIPAL = { tenant_id: "parts", subject_id: "user-1", roles: ["buyer"] };
const CTX = { store: new InMemoryToolResultStore(), now: 1_784_419_200 };

const input = z.object({
  part_number: z.string().regex(/^P-[0-9]{4}$/),
  quantity: z.int().min(1).max(50),
  shipping: z.object({ speed: z.enum(["ground", "air"]), notes: z.array(z.string().max(40)).max(3).optional() }),
});
const output = z.object({ order_id: z.string(), total_cents: z.int() });
const ORDER = { part_number: "P-1001", quantity: 4, shipping: { speed: "air" } };

function order(overrides: Record<string, unknown> = {}) {
  return defineTool({
    name: "order_parts",
    description: "Order spare parts.",
    input,
    output,
    needsApproval: ({ quantity }) => quantity * 2_500 > 100_000,
    authorize: (_args, { principal }) => principal.roles.includes("buyer"),
    execute: ({ part_number, quantity }) => ({ order_id: part_number, total_cents: quantity * 2_500 }),
    ...overrides,
  });
}

describe("defineTool with zod schemas", () => {
  it("takes zod's own JSON Schema of the arguments and output, and validates by it and by the schema", () => {
    const spec = order();
    expect(spec.inputSchema?.document).toEqual(z.toJSONSchema(input, { io: "input" }));
    expect(spec.outputSchema?.document).toEqual(z.toJSONSchema(output, { io: "output" }));
    const valid = (args: JsonObject) => spec.inputSchema?.validate(args);
    expect([
      valid(ORDER),
      valid({ ...ORDER, shipping: { speed: "ground", notes: ["dock 4"] } }),
      valid({ ...ORDER, quantity: 0 }),
      valid({ ...ORDER, quantity: 51 }),
      valid({ ...ORDER, part_number: "P-12" }),
      valid({ ...ORDER, shipping: { speed: "sea" } }),
      valid({ ...ORDER, shipping: { speed: "air", notes: ["a", "b", "c", "d"] } }),
      valid({ ...ORDER, shipping: { speed: "air", extra: 1 } }),
      valid({ part_number: "P-1001", quantity: 4 }),
    ]).toEqual([true, true, false, false, false, false, false, false, false]);
  });

  it("infers the risk: a write with needsApproval (a function or true) or risk write, else a read", () => {
    const bare = { needsApproval: undefined, authorize: undefined };
    expect([
      order().risk,
      order({ needsApproval: true }).risk,
      order({ needsApproval: false }).risk,
      order(bare).risk,
      order({ ...bare, risk: "write" }).risk,
    ]).toEqual(["write", "write", "read", "read", "write"]);
    expect(() => order({ risk: "read" })).toThrow(
      new TypeError('defineTool order_parts: a read never waits for approval; drop needsApproval or say risk: "write"'),
    );
  });

  it("evaluates needsApproval and authorize over the parsed arguments and the principal", () => {
    const spec = order();
    expect([
      spec.needsApproval?.(PRINCIPAL, ORDER, CTX),
      spec.needsApproval?.(PRINCIPAL, { ...ORDER, quantity: 41 }, CTX),
      spec.authorize(PRINCIPAL, ORDER, CTX),
      spec.authorize({ ...PRINCIPAL, roles: [] }, ORDER, CTX),
    ]).toEqual([false, true, true, false]);
    expect(order({ needsApproval: false }).needsApproval?.(PRINCIPAL, ORDER, CTX)).toBe(false);
    expect(Object.hasOwn(order({ needsApproval: true }), "needsApproval")).toBe(false);
  });

  it("derives every revision from the definition: the same definition the same ones, changed code new ones", () => {
    const revisions = (spec: ReturnType<typeof order>) => [
      spec.inputSchemaRevision,
      spec.outputSchemaRevision,
      spec.policyRevision,
      spec.effectRevision,
      spec.handlerRevision,
    ];
    const first = revisions(order());
    expect(first.map((r) => /^(input|output|policy|effect|handler)-[0-9a-f]{16}$/.test(r))).toEqual(
      Array(5).fill(true),
    );
    expect(revisions(order())).toEqual(first);
    const changed = revisions(order({ execute: () => ({ order_id: "x", total_cents: 0 }) }));
    expect(changed.map((r, i) => r === first[i])).toEqual([true, true, true, false, false]);
    const bumped = revisions(order({ revision: "2" }));
    expect(bumped.map((r, i) => r === first[i])).toEqual([true, true, false, false, false]);
    const spec = order();
    expect([spec.producerRevision, spec.producerLabel, spec.timeoutMs, spec.maxOutputBytes, spec.execution]).toEqual([
      spec.handlerRevision,
      "order_parts",
      10_000,
      16_384,
      { kind: "external" },
    ]);
  });

  it("refuses at definition what the subset cannot express, naming the pointer", () => {
    const withInput = (schema: z.ZodType) => () =>
      defineTool({
        name: "t",
        description: "d",
        input: schema,
        output,
        execute: () => ({ order_id: "", total_cents: 0 }),
      });
    expect(withInput(z.object({ tags: z.array(z.string()) }))).toThrow(
      new TypeError(
        'defineTool t: the input schema at /properties/tags: an "array" schema requires "maxItems" (at most 1000)',
      ),
    );
    expect(withInput(z.object({ n: z.number().multipleOf(5) }))).toThrow(
      new TypeError('defineTool t: the input schema at /properties/n/multipleOf: unsupported keyword "multipleOf"'),
    );
    expect(withInput(z.string())).toThrow(
      new TypeError("defineTool t: the input schema must be an object schema (z.object)"),
    );
    expect(withInput(z.object({ at: z.date() }))).toThrow(
      new TypeError(
        "defineTool t: the input schema cannot be written as JSON Schema: Date cannot be represented in JSON Schema",
      ),
    );
  });

  it("passes createGate's checks (an external tool with its runner)", () => {
    expect(checkCodeTools([order()]).map((t) => t.name)).toEqual(["order_parts"]);
  });
});
