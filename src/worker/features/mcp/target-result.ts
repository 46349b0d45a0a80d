/**
 * A tool whose target is an MCP server, as the gate's own MCP endpoint shows it (docs/mcp.md,
 * "MCP targets, intact"): `tools/call` answers the downstream's own `content`,
 * `structuredContent` and `isError` (as the gate's checks let them through), with the gate's
 * receipt in `_meta` `io.toolgate/receipt`; `tools/list` advertises the downstream's own
 * `outputSchema`. A client that validates `structuredContent` against the listed schema (the
 * SDK's does) then sees exactly the server it would see without the gate. Every other tool keeps
 * the Tool Result v2 projection (call.ts `callToolResult`).
 * @module
 */
import { canonicalJson, type Json, type JsonObject } from "../../../core/json";
import { ContentBlock, MCP_META } from "../../../contracts/mcp";
import { MAX_CONTENT_BLOCKS } from "../../targets/mcp/content";
import type { McpNotifySink } from "../../targets/mcp/notify";
import * as jsonRpc from "./rpc";

/** The gate's ids of one call, as the receipt names them. */
export interface TargetCallRef {
  /** Always set by the MCP endpoint (call.ts `callIdentity`); the stored input's contract leaves it optional. */
  readonly call_id: string | null;
  readonly operation_id: string;
  readonly idempotency_key: string | null;
}

/** What the gate's answer carries that is not the downstream's: the model result without its `data`, the ids, the approval, the status reference, the audit entry. */
export function receiptOf(answer: JsonObject, call: TargetCallRef): JsonObject {
  const model = jsonRpc.objectMember(answer, "model_result");
  if (model === undefined) throw new Error("a tool-call answer without its model result");
  const receipt: JsonObject = {
    call_id: call.call_id,
    operation_id: call.operation_id,
    idempotency_key: call.idempotency_key,
  };
  for (const member of ["schema_version", "status", "error", "execution", "provenance"]) {
    const value = model[member];
    if (value !== undefined) receipt[member] = value;
  }
  if (typeof answer["approval_id"] === "string") receipt["approval_id"] = answer["approval_id"];
  if (typeof answer["status_ref"] === "string") receipt["status_ref"] = answer["status_ref"];
  const audit = jsonRpc.objectMember(answer, "audit");
  if (audit !== undefined) receipt["audit"] = audit;
  return receipt;
}

/** The blocks an MCP client may be shown: valid MCP content blocks, at most {@link MAX_CONTENT_BLOCKS}. */
function validBlocks(blocks: readonly Json[]): Json[] {
  return blocks.filter((block) => ContentBlock.safeParse(block).success).slice(0, MAX_CONTENT_BLOCKS);
}

/**
 * The `CallToolResult` of an MCP target's call. Succeeded: the downstream's `content` and
 * `structuredContent` as the output contract admitted them (`isError` absent, as a server that
 * succeeds sends it). The server answered `isError` (`refused`: its blocks): those blocks with
 * `isError: true`. Any other ending is the gate's (an approval, an unknown outcome, a refused
 * answer): the model result as one text block, `isError: true`, and no `structuredContent`,
 * which could not match the downstream's schema. `_meta` always carries the receipt, beside the
 * approval, status reference and audit keys every tool's result carries.
 */
export function targetCallResult(answer: JsonObject, call: TargetCallRef, refused: readonly Json[] | null): JsonObject {
  const model = jsonRpc.objectMember(answer, "model_result");
  if (model === undefined) throw new Error("a tool-call answer without its model result");
  const meta: JsonObject = {};
  if (typeof answer["approval_id"] === "string") meta[MCP_META.approvalId] = answer["approval_id"];
  if (typeof answer["status_ref"] === "string") meta[MCP_META.statusRef] = answer["status_ref"];
  const audit = jsonRpc.objectMember(answer, "audit");
  if (audit !== undefined) meta[MCP_META.audit] = audit;
  meta[MCP_META.receipt] = receiptOf(answer, call);
  if (model["status"] === "succeeded") {
    const data = jsonRpc.objectMember(model, "data");
    const content = data?.["content"];
    const structured = data === undefined ? undefined : jsonRpc.objectMember(data, "structuredContent");
    return {
      content: Array.isArray(content) ? content : [],
      ...(structured === undefined ? {} : { structuredContent: structured }),
      _meta: meta,
    };
  }
  const error = jsonRpc.objectMember(model, "error");
  const blocks = refused === null || error?.["code"] !== "TOOL_ERROR" ? [] : validBlocks(refused);
  if (blocks.length > 0) return { content: blocks, isError: true, _meta: meta };
  return { content: [{ type: "text", text: canonicalJson(model) }], isError: true, _meta: meta };
}

/**
 * The sink an MCP target's call runs with: the relaying call's own (progress, log messages,
 * requests) when it has one, and the server's `isError` blocks handed to `refused`.
 */
export function refusalSink(base: McpNotifySink | undefined, refused: (content: Json[]) => void): McpNotifySink {
  if (base === undefined) return { progress: false, notify: () => undefined, refused };
  return {
    progress: base.progress,
    notify: (notification) => base.notify(notification),
    ...(base.requests === undefined ? {} : { requests: base.requests }),
    refused,
  };
}

/**
 * The `outputSchema` `tools/list` shows for an MCP target's tool: the downstream's own (as
 * imported: `structuredContent` of the stored output schema, its annotations dropped at import),
 * or none when the downstream declared none.
 */
export function targetOutputSchema(stored: JsonObject | undefined): JsonObject | undefined {
  const properties = stored === undefined ? undefined : jsonRpc.objectMember(stored, "properties");
  return properties === undefined ? undefined : jsonRpc.objectMember(properties, "structuredContent");
}
