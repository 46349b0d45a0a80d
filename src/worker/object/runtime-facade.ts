import { canonicalJson, checkJsonDomain, compareCodePoints, readJson, sha256Hex, type Json, type JsonObject } from "../../core/json";
import { beginDispatch } from "../../core/tool-result/dispatcher";
import { memoizeHash, requestDigest } from "../../core/tool-result/digests";
import { ERROR_CATALOG } from "../../core/tool-result/error-catalog";
import { ToolResultUsageError } from "../../core/tool-result/host-context";
import { isBoundedIdentifier } from "../../core/tool-result/text-rules";
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { Principal } from "../../core/tool-result/types";
import {
  preparedAction,
  type AppFacadeRequest,
  type DispatchBinding,
  type InvocationContext,
  type PreparedAction,
  type PreviewDetail,
  type PreviewValue,
} from "../../core/wire";
import type { ToolCallRequest } from "../contracts/tool-call";
import type { Outcome } from "../result";
import { approvalBindingKey } from "./approvals";
import { facadeIdempotencyKey, facadeIdentity, facadeToolCall, type FacadeIdentity } from "./runtime-identity";
import { loadFacadeTargets } from "./runtime-targets";
import { int, one, run, STORED_JSON, text, textOrNull, type SqlRow } from "./sql";
import { callOf, dispatchToolCall, IN_PROGRESS_RETRY_SECONDS, type ToolCallPlane } from "./tool-calls";

/** What the gate answers to an `app_facade_request`; the transport turns it into an envelope. */
export type FacadeAnswer =
  | { type: "result"; value: Json }
  | { type: "prepared"; action: PreparedAction }
  | { type: "rejected" }
  | { type: "failed"; code: string; message: string; retryAfterMs: number | null };

/** Everything a facade step needs inside the consumer object. */
export interface FacadeDeps {
  readonly sql: SqlStorage;
  readonly plane: ToolCallPlane;
  readonly consumer: string;
  /** Unix seconds. */
  readonly now: number;
}

/** Gate-level failure codes of the App Facade (the rest are the tool plane's catalog codes). */
const GATE_FAILURES = {
  UNKNOWN_TARGET: "The facade target is not mapped to a tool.",
  PREPARE_REQUIRED: "The target mutates state: prepare it, then commit.",
  INVALID_IDENTITY: "The invocation identity cannot be bound to a tool call.",
  ACTION_NOT_FOUND: "No such prepared action for this thread and user.",
  ACTION_CONFLICT: "The operation was already prepared with different input.",
  ACTION_REJECTED: "The action was rejected and cannot be committed.",
  ACTION_COMMITTED: "The action was already committed and cannot be rejected.",
  STALE_REVISION: "The facade revision changed since the action was prepared.",
  IN_PROGRESS: "The same commit is still executing; retry later.",
} as const;

type GateFailure = keyof typeof GATE_FAILURES;

function failed(code: GateFailure, retryAfterMs: number | null = null): FacadeAnswer {
  return { type: "failed", code, message: GATE_FAILURES[code], retryAfterMs };
}

function catalogFailure(code: string): FacadeAnswer {
  const policy = (ERROR_CATALOG as Record<string, { safe_message: string; retry_after_ms: number | null }>)[code];
  if (policy === undefined) throw new Error(`not a catalog code: ${code}`);
  return { type: "failed", code, message: policy.safe_message, retryAfterMs: policy.retry_after_ms };
}

function principalOf(consumer: string, subjectId: string): Principal {
  return { tenant_id: consumer, subject_id: subjectId, roles: [] };
}

/** Reads JSON this object wrote itself. */
function stored(textValue: string): Json {
  const parsed = readJson(textValue, STORED_JSON);
  if (!parsed.ok) throw new Error("stored runtime JSON is not strict JSON");
  return parsed.value;
}

/** Maps a tool-plane answer (or its problem) onto a facade answer. */
function fromToolAnswer(outcome: Outcome<string>): FacadeAnswer {
  if (!outcome.ok) {
    if (outcome.problem.code === "IDEMPOTENCY_IN_PROGRESS") return failed("IN_PROGRESS", IN_PROGRESS_RETRY_SECONDS * 1000);
    if (outcome.problem.code === "INVALID_HOST_CONTEXT") return failed("INVALID_IDENTITY");
    throw new Error(`unexpected tool-plane problem for a facade call: ${outcome.problem.code}`);
  }
  const answer = stored(outcome.value) as JsonObject;
  const result = answer.model_result as JsonObject;
  if (result.status === "succeeded") return { type: "result", value: result.data as Json };
  return catalogFailure((result.error as JsonObject).code as string);
}

function previewValue(value: Json): PreviewValue {
  if (typeof value === "string") return { type: "text", text: value };
  if (typeof value === "boolean") return { type: "bool", value };
  if (typeof value === "number") return { type: "number", value };
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return { type: "text_list", items: value as string[] };
  return { type: "text", text: canonicalJson(value) };
}

/** The user-facing preview: one detail per bound argument, in canonical (code-point) key order. */
function preview(spec: ToolSpec, target: string, args: JsonObject): PreparedAction["preview"] {
  const details: PreviewDetail[] = Object.keys(args)
    .sort(compareCodePoints)
    .map((key) => ({ label: key, value: previewValue(args[key] as Json) }));
  const write = spec.risk === "write";
  return {
    actionCode: spec.name,
    title: write ? `Approve ${spec.name}` : `Run ${spec.name}`,
    message: `${write ? "Changes data through" : "Reads data through"} ${target}.`,
    tone: write ? "danger" : "normal",
    details,
    proceedLabel: write ? "Approve" : "Run",
    rejectLabel: "Reject",
  };
}

/** The `PreparedAction` of a stored action row (rebuilt the same way every time). */
function actionOf(row: SqlRow, spec: ToolSpec): PreparedAction {
  const request = stored(text(row, "request")) as unknown as ToolCallRequest;
  const args = (request.proposal?.arguments ?? {}) as JsonObject;
  return preparedAction({
    actionId: text(row, "action_id"),
    operationId: text(row, "operation_id"),
    preview: preview(spec, text(row, "target"), args),
    payload: {
      approval_id: textOrNull(row, "approval_id"),
      request_sha256: text(row, "request_sha256"),
      target: text(row, "target"),
      tool: text(row, "tool"),
    },
    revision: int(row, "revision"),
    approval: spec.risk === "write" ? "always" : "never",
    interactionKind: "approval",
  });
}

interface Resolved {
  identity: FacadeIdentity;
  tool: string;
  spec: ToolSpec;
  args: JsonObject;
  revision: number;
}

/** Target → tool, identity, arguments; or the facade failure that stops the request. */
function resolve(deps: FacadeDeps, context: InvocationContext, operationId: string, target: string, input: Json): Resolved | FacadeAnswer {
  const { targets, revision } = loadFacadeTargets(deps.sql);
  const tool = targets.get(target);
  if (tool === undefined) return failed("UNKNOWN_TARGET");
  if (!isBoundedIdentifier(operationId) || !isBoundedIdentifier(context.actor.user_id)) return failed("INVALID_IDENTITY");
  const spec = deps.plane.engine.registry.get(tool);
  if (spec === undefined) return catalogFailure("UNKNOWN_TOOL");
  if (typeof input !== "object" || input === null || Array.isArray(input) || checkJsonDomain(input) !== null) {
    return catalogFailure("INVALID_ARGUMENTS");
  }
  return { identity: facadeIdentity(context, operationId), tool, spec, args: input as JsonObject, revision };
}

function isAnswer(value: Resolved | FacadeAnswer): value is FacadeAnswer {
  return "type" in value;
}

/** `invoke`: a read executes at once on the tool-call plane. */
async function invoke(deps: FacadeDeps, context: InvocationContext, request: { operation_id: string; target: string; input: Json }): Promise<FacadeAnswer> {
  const resolved = resolve(deps, context, request.operation_id, request.target, request.input);
  if (isAnswer(resolved)) return resolved;
  if (resolved.spec.risk === "write") return failed("PREPARE_REQUIRED");
  const call = facadeToolCall(resolved.identity, context.actor.user_id, resolved.tool, resolved.args, null);
  return fromToolAnswer(await dispatchToolCall(deps.plane, deps.consumer, call, deps.now));
}

/**
 * `prepare`: binds the call, runs the engine's first step without approvals (a write can never
 * execute here) and opens the approval on the approvals plane; the action row and the approval
 * are written in one transaction. A repeated prepare answers the stored action.
 */
function prepare(deps: FacadeDeps, context: InvocationContext, request: { operation_id: string; target: string; input: Json }, dispatch: DispatchBinding): FacadeAnswer {
  const resolved = resolve(deps, context, request.operation_id, request.target, request.input);
  if (isAnswer(resolved)) return resolved;
  const { identity, spec, tool, args, revision } = resolved;
  const key = spec.risk === "write" ? facadeIdempotencyKey(identity.actionId, identity.operationId) : null;
  const toolRequest = facadeToolCall(identity, context.actor.user_id, tool, args, key);
  const requestText = canonicalJson(toolRequest as unknown as Json);
  const existing = one(deps.sql, "SELECT * FROM runtime_actions WHERE action_id = ?", identity.actionId);
  if (existing !== undefined) {
    return text(existing, "request") === requestText ? { type: "prepared", action: actionOf(existing, spec) } : failed("ACTION_CONFLICT");
  }
  const bound = callOf(toolRequest);
  if (!bound.ok) return failed("INVALID_IDENTITY");
  const call = bound.value;
  const principal = principalOf(deps.consumer, context.actor.user_id);
  const hash = memoizeHash(sha256Hex);
  const digest = requestDigest(principal, call, spec, hash);
  try {
    return deps.plane.transaction(() => {
      let approvalId: string | null = null;
      if (spec.risk === "write") {
        const begun = beginDispatch(deps.plane.engine, { principal, call, approvals: [], now: deps.now, hash });
        if (begun.kind === "in_progress") return failed("IN_PROGRESS", IN_PROGRESS_RETRY_SECONDS * 1000);
        if (begun.kind === "execute") throw new Error("a write without approvals reached its handler");
        deps.plane.audit.append("tool_call", deps.now, begun.package.protected_audit);
        const error = begun.package.model_result.error as JsonObject | null;
        if (error === null) return failed("ACTION_COMMITTED");
        if (error.code !== "APPROVAL_REQUIRED") return catalogFailure(error.code as string);
        const bindingKey = approvalBindingKey(call, digest);
        approvalId = deps.plane.approvals.decidedFor(call, principal, spec, bindingKey, deps.now).pendingId ?? deps.plane.approvals.request(principal, call, digest, bindingKey, deps.now);
      }
      run(
        deps.sql,
        `INSERT INTO runtime_actions (action_id, thread_id, run_id, operation_id, subject_id, target, tool, request, request_sha256, revision,
           approval_id, state, result, dispatch_id, agent_session_id, prepared_at, closed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'prepared', NULL, ?, ?, ?, NULL)`,
        identity.actionId,
        context.thread_id,
        context.run_id,
        identity.operationId,
        context.actor.user_id,
        request.target,
        tool,
        requestText,
        digest,
        revision,
        approvalId,
        dispatch.dispatch_id,
        dispatch.agent_session_id,
        deps.now,
      );
      deps.plane.audit.append("runtime.facade", deps.now, {
        phase: "prepare",
        action_id: identity.actionId,
        operation_id: identity.operationId,
        thread_id: context.thread_id,
        run_id: context.run_id,
        dispatch_id: dispatch.dispatch_id,
        agent_session_id: dispatch.agent_session_id,
        tool,
        approval_id: approvalId,
      });
      const row = one(deps.sql, "SELECT * FROM runtime_actions WHERE action_id = ?", identity.actionId);
      if (row === undefined) throw new Error("action row missing right after insert");
      return { type: "prepared", action: actionOf(row, spec) } satisfies FacadeAnswer;
    });
  } catch (error) {
    if (error instanceof ToolResultUsageError) return failed("INVALID_IDENTITY");
    throw error;
  }
}

/** The stored action a commit or reject names, if it belongs to this thread, operation and user. */
function ownedAction(deps: FacadeDeps, context: InvocationContext, action: PreparedAction): SqlRow | undefined {
  const row = one(deps.sql, "SELECT * FROM runtime_actions WHERE action_id = ?", action.action_id);
  if (row === undefined) return undefined;
  const owned = text(row, "thread_id") === context.thread_id && text(row, "operation_id") === action.operation_id && text(row, "subject_id") === context.actor.user_id;
  return owned ? row : undefined;
}

function closeAudit(deps: FacadeDeps, phase: "commit" | "reject", row: SqlRow, context: InvocationContext, dispatch: DispatchBinding): void {
  deps.plane.audit.append("runtime.facade", deps.now, {
    phase,
    action_id: text(row, "action_id"),
    operation_id: text(row, "operation_id"),
    thread_id: context.thread_id,
    run_id: context.run_id,
    dispatch_id: dispatch.dispatch_id,
    agent_session_id: dispatch.agent_session_id,
    tool: text(row, "tool"),
    approval_id: textOrNull(row, "approval_id"),
  });
}

/**
 * `commit`: executes the stored call once. The tool plane's idempotency key is derived from the
 * action and operation ids, and the committed value is stored, so a repeated commit answers the
 * stored result without a second execution.
 */
async function commit(deps: FacadeDeps, context: InvocationContext, action: PreparedAction, dispatch: DispatchBinding): Promise<FacadeAnswer> {
  const row = ownedAction(deps, context, action);
  if (row === undefined) return failed("ACTION_NOT_FOUND");
  const state = text(row, "state");
  if (state === "committed") return { type: "result", value: stored(text(row, "result")) };
  if (state === "rejected") return failed("ACTION_REJECTED");
  const revision = int(row, "revision");
  if (BigInt(action.revision) !== BigInt(revision) || loadFacadeTargets(deps.sql).revision !== revision) return failed("STALE_REVISION");
  const request = stored(text(row, "request")) as unknown as ToolCallRequest;
  const answer = fromToolAnswer(await dispatchToolCall(deps.plane, deps.consumer, request, deps.now));
  if (answer.type !== "result") return answer;
  deps.plane.transaction(() => {
    run(deps.sql, "UPDATE runtime_actions SET state = 'committed', result = ?, closed_at = ? WHERE action_id = ? AND state = 'prepared'", canonicalJson(answer.value), deps.now, text(row, "action_id"));
    closeAudit(deps, "commit", row, context, dispatch);
  });
  return answer;
}

/** `reject`: closes the action and withdraws its pending approval; repeating it is harmless. */
function reject(deps: FacadeDeps, context: InvocationContext, action: PreparedAction, dispatch: DispatchBinding): FacadeAnswer {
  const row = ownedAction(deps, context, action);
  if (row === undefined) return failed("ACTION_NOT_FOUND");
  const state = text(row, "state");
  if (state === "committed") return failed("ACTION_COMMITTED");
  if (state === "rejected") return { type: "rejected" };
  deps.plane.transaction(() => {
    run(deps.sql, "UPDATE runtime_actions SET state = 'rejected', closed_at = ? WHERE action_id = ?", deps.now, text(row, "action_id"));
    const approvalId = textOrNull(row, "approval_id");
    // A withdrawn approval leaves the approvers' pending list and can no longer be decided.
    if (approvalId !== null) run(deps.sql, "UPDATE approvals SET state = 'withdrawn', decided_at = ? WHERE approval_id = ? AND state = 'pending'", deps.now, approvalId);
    closeAudit(deps, "reject", row, context, dispatch);
  });
  return { type: "rejected" };
}

/** Runs one `app_facade_request` on the tool-call plane. */
export async function handleFacadeRequest(deps: FacadeDeps, request: AppFacadeRequest, dispatch: DispatchBinding): Promise<FacadeAnswer> {
  switch (request.phase) {
    case "invoke":
      return invoke(deps, request.context, request.request);
    case "prepare":
      return prepare(deps, request.context, request.request, dispatch);
    case "commit":
      return commit(deps, request.context, request.action, dispatch);
    case "reject":
      return reject(deps, request.context, request.action, dispatch);
  }
}

