import { canonicalJson, sha256Hex, type Json, type JsonObject } from "../../../core/json";
import { MCP_PROFILE } from "../../../core/tool-result/constants";
import { hashRecurring } from "../../../core/tool-result/hash-memo";
import { CallToolParams, ContentBlock, MCP_META, type JsonRpcId } from "../../../contracts/mcp";
import { ToolCallRequest, ToolCallStatusRequest } from "../../../contracts/tool-call";
import { describeIssues } from "../../http/body";
import { parseTraceParent } from "../../trace/context";
import type { CallTrace } from "../../trace/tool-call";
import type { McpContext } from "./context";
import * as jsonRpc from "./rpc";
import type { McpTasks } from "./tasks";
import { approvalWindowOf } from "../consumers/service";
import { refusalSink, targetCallResult } from "./target-result";

/** The first 32 hex digits of the SHA-256 of a canonical JSON array: the gate's derived ids. */
export function derivedId(prefix: string, parts: readonly Json[]): string {
  return `${prefix}_${sha256Hex(canonicalJson(parts)).slice(0, 32)}`;
}

/** {@link derivedId} of parts that recur from call to call (a session's response id): hashed once while they recur. */
function recurringId(prefix: string, parts: readonly Json[]): string {
  return `${prefix}_${hashRecurring(sha256Hex, canonicalJson(parts)).slice(0, 32)}`;
}

/** The host context of an MCP call (docs/mcp.md, "Call identity"). */
export interface McpCallIdentity {
  readonly call_id: string;
  readonly operation_id: string;
  readonly response_id: string;
  readonly idempotency_key: string | null;
}

/**
 * The call's identity, stable across a repeated call so an approval granted for the first lets
 * the repeat run (an approval binds call, operation and response ids). With an idempotency key
 * every id derives from the tool and the key; without one, from the session and the JSON-RPC
 * id. A status query is its own call (the engine refuses the dispatch's call id for it): its
 * call id also derives from the status reference. `_meta` may name the call and operation ids.
 */
export function callIdentity(
  tool: string,
  meta: CallToolParams["_meta"],
  key: string | null,
  sessionId: string,
  rpcId: JsonRpcId,
  statusRef: string | null = null,
): McpCallIdentity {
  const parts: Json[] = key === null ? [sessionId, rpcId] : [tool, key];
  return {
    call_id:
      meta?.[MCP_META.callId] ??
      derivedId("mcpc", statusRef === null ? ["call", ...parts] : ["status", ...parts, statusRef]),
    operation_id: meta?.[MCP_META.operationId] ?? derivedId("mcpo", ["operation", ...parts]),
    response_id: recurringId("mcpr", ["response", key ?? sessionId]),
    idempotency_key: key,
  };
}

/**
 * What a `tools/call`'s span continues and records: the caller's trace context from `_meta`
 * (`traceparent`, `tracestate`: the MCP conventions' carrier, preferred), else from the HTTP
 * request's headers; the session, its protocol version, the JSON-RPC id and the transport.
 */
function callTrace(ctx: McpContext, meta: CallToolParams["_meta"], rpcId: JsonRpcId): CallTrace {
  const fromMeta = parseTraceParent(meta?.["traceparent"], meta?.["tracestate"]);
  return {
    parent: fromMeta ?? ctx.transport?.trace ?? null,
    mcp: {
      sessionId: ctx.session.sessionId,
      protocolVersion: ctx.session.protocolVersion,
      requestId: rpcId,
      httpVersion: ctx.transport?.httpVersion ?? null,
      refusalCode: jsonRpc.refusalCode,
    },
  };
}

/**
 * A tool-call answer (`{model_result, provider_output, approval_id?, status_ref?}`) as an MCP
 * `CallToolResult`: the MCP projection (`provider_output`), with the content blocks a
 * succeeded result's `data.content` carries placed before the text block, and the approval
 * to wait for, the status reference of an unknown outcome, and the call's audit receipt
 * (`{seq, leaf_hash}`, docs/audit.md) in `_meta`.
 */
export function callToolResult(answer: JsonObject): JsonObject {
  const output = jsonRpc.objectMember(answer, "provider_output");
  const model = jsonRpc.objectMember(answer, "model_result");
  if (output === undefined || model === undefined || !Array.isArray(output["content"]))
    throw new Error("a tool-call answer without its MCP projection");
  let content: Json[] = output["content"];
  const data = model["status"] === "succeeded" ? jsonRpc.objectMember(model, "data") : undefined;
  const blocks = data?.["content"];
  if (Array.isArray(blocks)) content = [...blocks.filter((block) => ContentBlock.safeParse(block).success), ...content];
  const meta: JsonObject = {};
  if (typeof answer["approval_id"] === "string") meta[MCP_META.approvalId] = answer["approval_id"];
  if (typeof answer["status_ref"] === "string") meta[MCP_META.statusRef] = answer["status_ref"];
  const audit = jsonRpc.objectMember(answer, "audit");
  if (audit !== undefined) meta[MCP_META.audit] = audit;
  return Object.keys(meta).length === 0 ? { ...output, content } : { ...output, content, _meta: meta };
}

/** How many approvers an approval's guidance names before it says how many more there are. */
const NAMED_APPROVERS = 5;

/** The consumer's approvers in words: the first five, and how many more. */
function approversNamed(ctx: McpContext): string {
  const approvers = ctx.auth.config.approverSubjects;
  const named = approvers.slice(0, NAMED_APPROVERS).join(", ");
  return approvers.length > NAMED_APPROVERS ? `${named} and ${String(approvers.length - NAMED_APPROVERS)} more` : named;
}

/** What a URL elicitation of an approval tells the person: the tool, who decides, what the link shows. */
export function approvalElicitation(ctx: McpContext, tool: string, approvalId: string): string {
  return (
    `${tool} waits for a person's approval (approval ${approvalId}). ` +
    `One of this consumer's approvers (${approversNamed(ctx)}) decides it in the toolgate console; the link opens that approval. ` +
    `Once it is approved, the same call made again runs, once.`
  );
}

/**
 * What a model without tasks needs to get past an approval, in words it can act on: the
 * approval's id, who decides and where (the console's page of that approval), and that the same
 * call made again once approved runs, once (docs/mcp.md, "Approvals over MCP").
 */
export function approvalGuidance(ctx: McpContext, tool: string, approvalId: string): string {
  const where =
    ctx.consoleOrigin === null
      ? "in the toolgate console"
      : `in the toolgate console at ${ctx.consoleOrigin}/console/approvals/${approvalId}`;
  const valid = ctx.registry.get(tool)?.approvalValidSeconds ?? approvalWindowOf(ctx.auth.config);
  return (
    `This call waits for a person's approval (approval ${approvalId}). ` +
    `One of this consumer's approvers (${approversNamed(ctx)}) decides it ${where}. ` +
    `Once it is approved, call ${tool} again with exactly the same arguments within ${String(valid)} seconds of the decision: it then runs, once. ` +
    "Calling it again before the decision answers this same approval; changed arguments are a new call that needs its own approval."
  );
}

/** A result with a text block for the model before its content. */
function withGuidance(result: JsonObject, text: string): JsonObject {
  const content = Array.isArray(result["content"]) ? result["content"] : [];
  return { ...result, content: [{ type: "text", text }, ...content] };
}

/**
 * `tools/call`: the call in the shape of the HTTP route's body, run through exactly the HTTP
 * tool call's path (admission, dispatch, audit, projection). `_meta` `io.toolgate/status_ref`
 * makes it the status query of an unknown outcome. Under 2025-11-25 with `task`, the answer is
 * a task (a write without an idempotency key gets one derived from the session and the
 * JSON-RPC id, so it runs once), and runs only once its task has a place (mcp/quota.ts).
 * Refusals of the gate are JSON-RPC errors; an unknown tool is the engine's answer
 * (`UNKNOWN_TOOL`, a failed result).
 */
export async function callTool(
  ctx: McpContext,
  params: JsonObject | undefined,
  rpcId: JsonRpcId,
  tasks: McpTasks,
): Promise<jsonRpc.Answer> {
  const parsed = jsonRpc.params(CallToolParams, params);
  if (!parsed.ok) return parsed.answer;
  const { name, task, _meta: meta } = parsed.value;
  const statusRef = meta?.[MCP_META.statusRef] ?? null;
  const asTask = task !== undefined && ctx.session.protocolVersion === "2025-11-25" && statusRef === null;
  let key = meta?.[MCP_META.idempotencyKey] ?? null;
  if (key === null && statusRef === null && ctx.registry.get(name)?.risk === "write")
    key = asTask
      ? derivedId("mcpk", ["key", ctx.session.sessionId, rpcId])
      : ctx.derivedKey(name, params?.["arguments"] ?? {});
  const identity = callIdentity(name, meta, key, ctx.session.sessionId, rpcId, statusRef);
  const context = {
    ...identity,
    provider: MCP_PROFILE.provider,
    api_family: MCP_PROFILE.api_family,
    adapter_revision: MCP_PROFILE.adapter_revision,
  };
  const rationale = meta?.[MCP_META.rationale];
  const body = {
    proposal: { name, arguments: parsed.value.arguments ?? {} },
    context,
    ...(rationale === undefined ? {} : { rationale }),
    ...(statusRef === null ? {} : { status_ref: statusRef }),
  };
  const input = (statusRef === null ? ToolCallRequest : ToolCallStatusRequest).safeParse(body);
  if (!input.success) return jsonRpc.invalidParams(`Invalid params: ${describeIssues(input.error)}`);
  const target = ctx.mcpTarget(name);
  const call = async (): Promise<jsonRpc.Answer> => {
    let refused: Json[] | null = null;
    const sink = target ? refusalSink(ctx.notify, (content) => (refused = content)) : ctx.notify;
    const ran = await ctx.run(input.data, statusRef, sink, callTrace(ctx, meta, rpcId));
    if (!ran.ok) return jsonRpc.refusal(ran.error);
    // The tool-call path's answer as a value: nothing the gate wrote is read back.
    const answer = ran.value;
    const result = target ? targetCallResult(answer, identity, refused) : callToolResult(answer);
    if (!asTask) {
      const approvalId = typeof answer["approval_id"] === "string" ? answer["approval_id"] : null;
      // A capability tool's failure says in words what the catalog's fixed message cannot.
      const guidance = typeof answer["guidance"] === "string" ? answer["guidance"] : null;
      if (guidance !== null) return jsonRpc.result(withGuidance(result, guidance));
      // A client that takes URL-mode elicitation is also shown the approval's console page.
      if (approvalId !== null) ctx.elicitUrl?.(name, approvalId);
      return jsonRpc.result(
        approvalId === null ? result : withGuidance(result, approvalGuidance(ctx, name, approvalId)),
      );
    }
    const approvalId = typeof answer["approval_id"] === "string" ? answer["approval_id"] : null;
    return jsonRpc.result(
      tasks.create(ctx, { input: canonicalJson(input.data), approvalId, result, ttlMs: task.ttl ?? null }),
    );
  };
  // A task needs its place before the call runs: a write must not run when its task cannot be kept.
  return asTask ? tasks.withPlace(ctx, call) : call();
}
