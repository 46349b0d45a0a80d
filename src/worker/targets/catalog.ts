import { createRefundDraftTool, getOrderTool } from "../../conformance/tool-cases/demo-registry";
import { APPROVAL_TTL_SECONDS } from "../../core/tool-result/constants";
import { createRegistry, defineTool, type ToolRegistry, type ToolSpec } from "../../core/tool-result/tool-spec";
import type { HttpToolDefinition } from "./http/tool";

const REASONS = ["duplicate", "damaged", "other"] as const;

/**
 * `submit_refund`: a write executed by a downstream refunds service over HTTP
 * (`POST /refunds`, status at `GET /refunds/status/{key}`).
 */
export const submitRefundTool: HttpToolDefinition = {
  url: "/refunds",
  statusUrl: "/refunds/status/{status_ref}",
  fenceUrl: "/refunds/status/{status_ref}/fence",
  spec: defineTool({
    name: "submit_refund",
    inputSchemaRevision: "submit-refund-input-v1",
    policyRevision: "submit-refund-policy-v1",
    risk: "write",
    arguments: {
      order_ref: { type: "str", minLength: 1, maxLength: 64 },
      reason: { type: "str", minLength: 1, maxLength: 32, enum: REASONS },
    },
    outputSchemaRevision: "submit-refund-output-v1",
    output: {
      refund_id: { type: "str", maxLength: 64, pattern: /^RF-[1-9][0-9]*$/ },
      order_ref: { type: "str", maxLength: 64, equalsArgument: "order_ref" },
      reason: { type: "str", enum: REASONS, equalsArgument: "reason" },
    },
    maxOutputBytes: 384,
    maxOutputDepth: 1,
    effectRevision: "submit-refund-v1",
    handlerRevision: "submit-refund-http-v1",
    producerLabel: "refunds-service",
    producerRevision: "refunds-service-v1",
    timeoutMs: 2_000,
    // The downstream owns its resources; the gate checks the caller, the downstream the order,
    // using the subject and roles of the signed identity every request carries (docs/http-tools.md).
    authorize: () => true,
    execution: { kind: "external" },
    approvalValidSeconds: APPROVAL_TTL_SECONDS,
  }),
};

/** `lookup_refund`: a read served by the same downstream (`POST /refunds/lookup`). */
export const lookupRefundTool: HttpToolDefinition = {
  url: "/refunds/lookup",
  statusUrl: "/refunds/status/{status_ref}",
  fenceUrl: "/refunds/status/{status_ref}/fence",
  spec: defineTool({
    name: "lookup_refund",
    inputSchemaRevision: "lookup-refund-input-v1",
    policyRevision: "lookup-refund-policy-v1",
    risk: "read",
    arguments: { refund_id: { type: "str", minLength: 1, maxLength: 64 } },
    outputSchemaRevision: "lookup-refund-output-v1",
    output: {
      refund_id: { type: "str", maxLength: 64, equalsArgument: "refund_id" },
      state: { type: "str", enum: ["submitted", "paid", "rejected"] },
    },
    maxOutputBytes: 256,
    maxOutputDepth: 1,
    effectRevision: "lookup-refund-v1",
    handlerRevision: "lookup-refund-http-v1",
    producerLabel: "refunds-service",
    producerRevision: "refunds-service-v1",
    timeoutMs: 1_000,
    authorize: () => true,
    execution: { kind: "external" },
  }),
};

/**
 * The built-in catalog keeps the reference's approval window (60 s) whatever the consumer's
 * (docs/approvals.md): its answers stay the reference's byte for byte.
 */
function referenceWindow(spec: ToolSpec): ToolSpec {
  return defineTool({ ...spec, approvalValidSeconds: APPROVAL_TTL_SECONDS });
}

/** Built-in tools: the reference's demo catalog, executed in the consumer object. */
export const BUILT_IN_TOOLS: readonly ToolSpec[] = [getOrderTool, createRefundDraftTool].map(referenceWindow);

/** HTTP tools by name. */
export const HTTP_TOOLS: ReadonlyMap<string, HttpToolDefinition> = new Map(
  [submitRefundTool, lookupRefundTool].map((def) => [def.spec.name, def]),
);

/** Every tool a consumer may enable. */
export const ALL_TOOL_NAMES: readonly string[] = [...BUILT_IN_TOOLS.map((t) => t.name), ...HTTP_TOOLS.keys()];

/**
 * The registry of a consumer: the enabled tools only, so any other name is UNKNOWN_TOOL.
 * `extra` are the tools of the embedding Worker (`createGate({ tools })`) and the consumer's
 * data-defined tools; a name there shadows nothing (a duplicate name is a bug, thrown).
 */
export function registryFor(enabled: readonly string[], extra: readonly ToolSpec[] = []): ToolRegistry {
  const wanted = new Set(enabled);
  const tools = [...BUILT_IN_TOOLS, ...[...HTTP_TOOLS.values()].map((d) => d.spec), ...extra].filter((t) =>
    wanted.has(t.name),
  );
  return createRegistry(tools);
}
