import { canonicalJson, compareCodePoints, type Json, type JsonObject } from "../../core/json";
import { adapterFor } from "../../core/adapters/provider-results";
import { parseAnthropicToolUse, parseGeminiFunctionCall, parseOpenAiFunctionCall } from "../../core/adapters/native-calls";
import { beginDispatch, completeDispatch, type DispatchTicket, type HandlerOutcome } from "../../core/tool-result/dispatcher";
import { idempotencyScope, recordFromHandler } from "../../core/tool-result/dispatcher-state";
import { memoizeHash, requestDigest } from "../../core/tool-result/digests";
import type { ToolResultEngine } from "../../core/tool-result/engine";
import { ToolResultUsageError } from "../../core/tool-result/host-context";
import { validateHandlerResult } from "../../core/tool-result/output-contract";
import { errorPackage } from "../../core/tool-result/packages";
import { queryStatus, settleNotExecuted } from "../../core/tool-result/query-status";
import { storeKey } from "../../core/tool-result/store";
import type { HashFn, Principal, ResultPackage, ToolCall } from "../../core/tool-result/types";
import { sha256Hex } from "../../core/json";
import type { ToolCallRequest, ToolCallStatusRequest } from "../contracts/tool-call";
import { problem } from "../problem";
import { fail, ok, type Outcome } from "../result";
import { callHttpTool, queryHttpToolStatus, type DownstreamService, type HttpToolStatus } from "../tools/http-tool";
import { HTTP_TOOLS } from "../tools/catalog";
import { approvalBindingKey, type ApprovalBook } from "./approvals";
import type { AuditChain } from "./audit-chain";

/** Seconds a concurrent duplicate is told to wait (`Retry-After`). */
export const IN_PROGRESS_RETRY_SECONDS = 1;

/** Everything the tool-call plane uses inside the consumer object. */
export interface ToolCallPlane {
  readonly engine: ToolResultEngine;
  readonly approvals: ApprovalBook;
  readonly audit: AuditChain;
  readonly downstream: DownstreamService | undefined;
  /** Runs a synchronous step as one SQLite transaction. */
  transaction<T>(step: () => T): T;
}

/** A tool-call request after the Worker's contract check; the tenant is always the consumer. */
export type ToolCallInput = ToolCallRequest | ToolCallStatusRequest;

function principalOf(consumer: string, input: ToolCallInput): Principal {
  const roles = [...new Set(input.principal.roles)].sort(compareCodePoints);
  return { tenant_id: consumer, subject_id: input.principal.subject_id, roles };
}

/** Binds the proposal (or the provider's native item) to the host context. */
export function callOf(input: ToolCallInput): Outcome<ToolCall> {
  const ctx = input.context;
  let name: string;
  let args: JsonObject;
  let callId = ctx.call_id;
  if (input.provider_item !== undefined) {
    const item = input.provider_item as Json;
    const key = `${ctx.provider}/${ctx.api_family}`;
    const parsed =
      key === "openai/responses"
        ? parseOpenAiFunctionCall(item)
        : key === "anthropic/messages"
          ? parseAnthropicToolUse(item)
          : key === "google/interactions"
            ? parseGeminiFunctionCall(item)
            : undefined;
    if (parsed === undefined) return fail(problem("INVALID_HOST_CONTEXT", "The provider profile is not registered."));
    if (!parsed.ok) return fail(problem("INVALID_PROVIDER_ITEM", parsed.error.message));
    if (callId !== undefined && callId !== parsed.value.call_id) {
      return fail(problem("INVALID_PROVIDER_ITEM", "context.call_id differs from the provider item's call id."));
    }
    name = parsed.value.name;
    args = parsed.value.arguments;
    callId = parsed.value.call_id;
  } else if (input.proposal !== undefined) {
    name = input.proposal.name;
    args = input.proposal.arguments as JsonObject;
  } else {
    throw new Error("the contract admits exactly one of proposal and provider_item");
  }
  if (callId === undefined) return fail(problem("INVALID_REQUEST", "$.context.call_id: required with a proposal"));
  return ok({
    call_id: callId,
    operation_id: ctx.operation_id,
    name,
    arguments: args,
    idempotency_key: ctx.idempotency_key,
    provider: ctx.provider,
    api_family: ctx.api_family,
    response_id: ctx.response_id,
    adapter_revision: ctx.adapter_revision,
  });
}

/** The answer body: the model projection, the native result item, and the approval to wait for. */
function answer(plane: ToolCallPlane, principal: Principal, call: ToolCall, pkg: ResultPackage, hash: HashFn, approvalId: string | null): string {
  const spec = plane.engine.registry.get(call.name);
  const adapter = adapterFor(call.provider, call.api_family);
  if (adapter === undefined) throw new Error("validated host context names an unregistered provider profile");
  const projected = adapter.adapter(principal, call, spec, pkg, hash);
  if (!projected.ok) throw new Error(`the engine produced a package its adapter refuses: ${projected.error.message}`);
  const body: JsonObject = { model_result: pkg.model_result, provider_output: projected.value };
  if (approvalId !== null) body.approval_id = approvalId;
  // The host (never the model) needs the status reference to query an unknown outcome.
  const downstream = pkg.protected_audit.downstream as JsonObject;
  if (pkg.model_result.status === "unknown" && typeof downstream.status_ref === "string") body.status_ref = downstream.status_ref;
  return canonicalJson(body);
}

function usage<T>(step: () => T): Outcome<T> {
  try {
    return ok(step());
  } catch (error) {
    if (error instanceof ToolResultUsageError) return fail(problem("INVALID_HOST_CONTEXT", error.message));
    throw error;
  }
}

function errorCode(pkg: ResultPackage): string | null {
  const error = pkg.model_result.error;
  return typeof error === "object" && error !== null && !Array.isArray(error) ? ((error as JsonObject).code as string) : null;
}

/** Records a package in the audit chain (the protected audit never goes back to the agent). */
function audit(plane: ToolCallPlane, kind: string, now: number, pkg: ResultPackage): void {
  plane.audit.append(kind, now, pkg.protected_audit);
}

/** A failure known to precede any effect (rate limit, nothing sent): drop the in-flight mark, answer the catalog error. */
function failBeforeEffect(plane: ToolCallPlane, ticket: DispatchTicket, code: "RATE_LIMIT" | "TOOL_ERROR", hash: HashFn): ResultPackage {
  const principal = ticket.principal as unknown as Principal;
  const call = ticket.call as unknown as ToolCall;
  if (ticket.scope !== null) plane.engine.store.delete("in_flight", storeKey(ticket.scope));
  return errorPackage(principal, call, plane.engine.registry.get(ticket.tool), code, ticket.request_sha256, ticket.now, hash, null);
}

/**
 * `POST …/tool-calls`: engine step one in a transaction; the handler between two steps (a
 * write is durably in flight first); engine step two in a transaction; audit; projection.
 */
export async function dispatchToolCall(plane: ToolCallPlane, consumer: string, input: ToolCallRequest, now: number): Promise<Outcome<string>> {
  const bound = callOf(input);
  if (!bound.ok) return bound;
  const call = bound.value;
  const principal = principalOf(consumer, input);
  const hash = memoizeHash(sha256Hex);
  const spec = plane.engine.registry.get(call.name);

  const begun = usage(() =>
    plane.transaction(() => {
      let bindingKey: string | null = null;
      let pendingId: string | null = null;
      let approvals: ReturnType<ApprovalBook["decidedFor"]>["approvals"] = [];
      if (spec !== undefined && spec.risk === "write" && call.idempotency_key) {
        const digest = requestDigest(principal, call, spec, hash);
        bindingKey = approvalBindingKey(call, digest);
        ({ approvals, pendingId } = plane.approvals.decidedFor(call, principal, spec, bindingKey, now));
      }
      const result = beginDispatch(plane.engine, { principal, call, approvals, now, hash });
      if (result.kind !== "final") return { result, approvalId: null };
      let approvalId: string | null = null;
      if (errorCode(result.package) === "APPROVAL_REQUIRED" && bindingKey !== null) {
        const digest = result.package.protected_audit.binding as JsonObject;
        approvalId = pendingId ?? plane.approvals.request(principal, call, digest.request_sha256 as string, bindingKey, now);
      }
      audit(plane, "tool_call", now, result.package);
      return { result, approvalId };
    }),
  );
  if (!begun.ok) return begun;
  const { result, approvalId } = begun.value;
  if (result.kind === "final") return ok(answer(plane, principal, call, result.package, hash, approvalId));
  if (result.kind === "in_progress") {
    return fail(problem("IDEMPOTENCY_IN_PROGRESS", "The same call is still executing; retry later.", IN_PROGRESS_RETRY_SECONDS));
  }
  const ticket = result.ticket;
  const http = HTTP_TOOLS.get(ticket.tool);
  let pkg: ResultPackage;
  if (http === undefined) {
    const runSpec = plane.engine.registry.get(ticket.tool);
    if (runSpec === undefined) throw new Error("ticket names an unregistered tool");
    // Built-in handlers are synchronous: the handler and step two share one transaction.
    pkg = plane.transaction(() => {
      let outcome: HandlerOutcome;
      try {
        const raw = runSpec.handler(call.arguments, { store: plane.engine.store });
        if (raw instanceof Promise) throw new Error("built-in handlers must be synchronous");
        outcome = raw;
      } catch {
        outcome = "threw";
      }
      const done = completeDispatch(plane.engine, ticket, outcome, { hash });
      audit(plane, "tool_call", now, done);
      return done;
    });
  } else {
    const downstream = plane.downstream;
    // No downstream configured: nothing was sent, so the call certainly did not start.
    const called = downstream === undefined ? ({ kind: "not_sent" } as const) : await callHttpTool(http, downstream, call, ticket.status_ref);
    pkg = plane.transaction(() => {
      const done =
        called.kind === "rate_limited"
          ? failBeforeEffect(plane, ticket, "RATE_LIMIT", hash)
          : called.kind === "not_sent"
            ? failBeforeEffect(plane, ticket, "TOOL_ERROR", hash)
            : completeDispatch(plane.engine, ticket, called.kind === "result" ? called.result : "threw", { hash });
      audit(plane, "tool_call", now, done);
      return done;
    });
  }
  return ok(answer(plane, principal, call, pkg, hash, null));
}

/**
 * `POST …/tool-calls/status`: the reference's `query_status`. For an HTTP tool whose unknown
 * outcome belongs to this caller, the downstream's status URL is asked first and a committed
 * receipt is recorded, so the engine can reconcile it; the handler never runs again.
 */
export async function queryToolCallStatus(plane: ToolCallPlane, consumer: string, input: ToolCallStatusRequest, now: number): Promise<Outcome<string>> {
  const bound = callOf(input);
  if (!bound.ok) return bound;
  const call = bound.value;
  const principal = principalOf(consumer, input);
  const hash = memoizeHash(sha256Hex);
  const spec = plane.engine.registry.get(call.name);
  const http = HTTP_TOOLS.get(call.name);
  let downstreamStatus: HttpToolStatus | undefined;
  if (http !== undefined && spec !== undefined && call.idempotency_key !== null && plane.downstream !== undefined) {
    // Ask the downstream only for this caller's own unknown write of this exact request.
    const unknown = plane.engine.store.get("status_refs", input.status_ref) as JsonObject | undefined;
    const scopeKey = storeKey(idempotencyScope(principal, call));
    if (
      unknown !== undefined &&
      storeKey(unknown.scope as string[]) === scopeKey &&
      unknown.request_sha256 === requestDigest(principal, call, spec, hash) &&
      plane.engine.store.get("uncertain_outcomes", scopeKey) !== undefined
    ) {
      downstreamStatus = await queryHttpToolStatus(http, plane.downstream, input.status_ref);
    }
  }
  const result = usage(() =>
    plane.transaction(() => {
      if (downstreamStatus?.kind === "committed" && spec !== undefined && validateHandlerResult(spec, call, downstreamStatus.result).length === 0) {
        const digest = requestDigest(principal, call, spec, hash);
        const scopeKey = storeKey(idempotencyScope(principal, call));
        if (plane.engine.store.get("downstream_receipts", scopeKey) === undefined) {
          plane.engine.store.put("downstream_receipts", scopeKey, recordFromHandler(spec, call, downstreamStatus.result, digest, input.status_ref) as unknown as Json);
        }
      }
      if (downstreamStatus?.kind === "not_executed") settleNotExecuted(plane.engine, idempotencyScope(principal, call), input.status_ref);
      const pkg = queryStatus(plane.engine, {
        principal,
        call,
        status_ref: input.status_ref,
        expected_request_sha256: spec === undefined ? "0".repeat(64) : requestDigest(principal, call, spec, hash),
        now,
        hash,
      });
      audit(plane, "tool_call.status", now, pkg);
      return pkg;
    }),
  );
  if (!result.ok) return result;
  return ok(answer(plane, principal, call, result.value, hash, null));
}
