/**
 * The reference's two demo tools and its three orders, with exactly its behaviour:
 * `get_order` (read) and `create_refund_draft` (write, counts side effects in the store), and
 * the engine the reference's dispatcher is: these tools, its approver, a fresh in-memory store.
 * @module
 */
import type { JsonObject } from "../../core/json";
import { createEngine, type EngineOptions, type ToolResultEngine } from "../../core/tool-result/engine";
import { createRegistry, defineTool, type ToolContext, type ToolRegistry } from "../../core/tool-result/tool-spec";
import type { HandlerResult, Principal } from "../../core/tool-result/types";
import { AUTHORIZED_APPROVER_IDS } from "./constants";

/** Store counter the refund handler increments once per executed write. */
export const SIDE_EFFECT_COUNTER = "side_effect_count";

interface Order {
  readonly tenant_id: string;
  readonly owner_id: string;
  readonly status: string;
  readonly revision: string;
}

/** The demo orders. Read-only: no demo tool changes an order. */
export const DEMO_ORDERS: ReadonlyMap<string, Order> = new Map([
  ["ORDER-7", { tenant_id: "tenant-a", owner_id: "user-1", status: "paid", revision: "order-7-r3" }],
  ["ORDER-8", { tenant_id: "tenant-a", owner_id: "user-2", status: "paid", revision: "order-8-r2" }],
  ["ORDER-9", { tenant_id: "tenant-b", owner_id: "user-1", status: "paid", revision: "order-9-r4" }],
]);

function orderOf(args: JsonObject): Order | undefined {
  const ref = Object.hasOwn(args, "order_ref") ? args["order_ref"] : undefined;
  return typeof ref === "string" ? DEMO_ORDERS.get(ref) : undefined;
}

/** Owner or support admin of the same tenant; anything else looks exactly like a missing order. */
function authorizedOrder(principal: Principal, args: JsonObject): boolean {
  const order = orderOf(args);
  if (order === undefined || order.tenant_id !== principal.tenant_id) return false;
  return order.owner_id === principal.subject_id || principal.roles.includes("support_admin");
}

const OBSERVED_AT = "2026-07-19T00:00:00Z";
const REASONS = ["duplicate", "damaged", "other"] as const;

/** `get_order`: the order's status, bound to the requested order_ref. */
export const getOrderTool = defineTool({
  name: "get_order",
  inputSchemaRevision: "get-order-input-v1",
  policyRevision: "get-order-policy-v1",
  risk: "read",
  arguments: { order_ref: { type: "str", minLength: 1, maxLength: 64 } },
  outputSchemaRevision: "get-order-output-v2",
  output: {
    order_ref: { type: "str", minLength: 1, maxLength: 64, equalsArgument: "order_ref" },
    status: { type: "str", enum: ["paid", "pending", "refunded"] },
  },
  maxOutputBytes: 256,
  maxOutputDepth: 1,
  effectRevision: "read-order-v1",
  handlerRevision: "get-order-handler-v2",
  producerLabel: "orders",
  producerRevision: "orders-mock-v2",
  timeoutMs: 500,
  authorize: authorizedOrder,
  businessRule: () => true,
  execution: {
    kind: "in_process",
    handler(args): HandlerResult {
      const order = orderOf(args);
      if (order === undefined) throw new Error("get_order handler reached without an authorized order");
      return {
        data: { order_ref: args["order_ref"] as string, status: order.status },
        producer_revision: "orders-mock-v2",
        resource_revision: order.revision,
        observed_at: OBSERVED_AT,
        downstream_request_id: "orders-request-1",
        receipt_id: null,
      };
    },
  },
});

/** `create_refund_draft`: a write that numbers drafts by the store's side-effect counter. */
export const createRefundDraftTool = defineTool({
  name: "create_refund_draft",
  inputSchemaRevision: "refund-draft-input-v1",
  policyRevision: "refund-draft-policy-v1",
  risk: "write",
  arguments: {
    order_ref: { type: "str", minLength: 1, maxLength: 64 },
    reason: { type: "str", minLength: 1, maxLength: 32, enum: REASONS },
  },
  outputSchemaRevision: "refund-draft-output-v2",
  output: {
    // Python's \d matches any Unicode decimal digit, hence \p{Nd}.
    draft_id: { type: "str", maxLength: 64, pattern: /^DRAFT-[1-9]\p{Nd}*$/u },
    order_ref: { type: "str", maxLength: 64, equalsArgument: "order_ref" },
    reason: { type: "str", enum: REASONS, equalsArgument: "reason" },
  },
  maxOutputBytes: 384,
  maxOutputDepth: 1,
  effectRevision: "create-refund-draft-v1",
  handlerRevision: "refund-draft-handler-v2",
  producerLabel: "refunds",
  producerRevision: "refunds-mock-v2",
  timeoutMs: 800,
  authorize: authorizedOrder,
  businessRule: (_principal, args) => orderOf(args)?.status === "paid",
  execution: {
    kind: "in_process",
    handler(args, ctx: ToolContext): HandlerResult {
      const count = ctx.store.increment(SIDE_EFFECT_COUNTER);
      const draftId = `DRAFT-${count}`;
      return {
        data: { draft_id: draftId, order_ref: args["order_ref"] as string, reason: args["reason"] as string },
        producer_revision: "refunds-mock-v2",
        resource_revision: `${draftId.toLowerCase()}-r1`,
        observed_at: OBSERVED_AT,
        downstream_request_id: `refund-request-${count}`,
        receipt_id: `refund-receipt-${count}`,
      };
    },
  },
});

/** The demo registry: `get_order` and `create_refund_draft`. */
export function createDemoRegistry(): ToolRegistry {
  return createRegistry([getOrderTool, createRefundDraftTool]);
}

/** How many times the demo write handler has executed against this engine's store. */
export function sideEffectCount(engine: ToolResultEngine): number {
  return engine.store.counter(SIDE_EFFECT_COUNTER);
}

/** The reference's demo dispatcher: the demo registry and approver unless `options` names others. */
export function createDemoEngine(options: Partial<EngineOptions> = {}): ToolResultEngine {
  return createEngine({
    ...options,
    registry: options.registry ?? createDemoRegistry(),
    approvers: options.approvers ?? AUTHORIZED_APPROVER_IDS,
  });
}
