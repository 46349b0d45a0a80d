import {
  canonicalJson,
  checkJsonDomain,
  compareCodePoints,
  sha256Hex,
  type Json,
  type JsonObject,
} from "../../../core/json";
import { requestDigest } from "../../../core/tool-result/digests";
import { isBoundedIdentifier } from "../../../core/tool-result/text-rules";
import type { ToolSpec } from "../../../core/tool-result/tool-spec";
import {
  preparedAction,
  type AppFacadeRequest,
  type DispatchBinding,
  type InvocationContext,
  type PreparedAction,
  type PreviewDetail,
  type PreviewValue,
} from "../../../core/wire";
import { ToolCallRequest } from "../../../contracts/tool-call";
import type { Caller } from "../credentials/service";
import { fromStored } from "../../kernel/rpc";
import { storedJson } from "../../kernel/sql";
import { IN_PROGRESS_RETRY_SECONDS } from "../tool-calls/outcome";
import type { ToolCallService } from "../tool-calls/service";
import { callOf, storedPrincipal } from "../tool-calls/bind";
import { idempotencyScope } from "../../../core/tool-result/dispatcher-state";
import { storeKey } from "../../../core/tool-result/store";
import { facadePrincipal, facadeTool, refused } from "./facade-admission";
import { catalogFailure, failed, fromOutcome, type FacadeAnswer } from "./facade-answer";
import { facadeIdempotencyKey, facadeIdentity, facadeToolCall, storedRequest, type FacadeIdentity } from "./identity";
import type { ActionRow, RuntimeStore } from "./store";

/** Everything a facade step needs inside the consumer object. */
export interface FacadeDeps {
  readonly store: RuntimeStore;
  readonly toolCalls: ToolCallService;
  readonly consumer: string;
  /** The runtime credential that sent the envelope: its principal rules and tool scope apply to every phase. */
  readonly caller: Caller;
  /** Unix seconds. */
  readonly now: number;
  /**
   * Commits whose write is awaited, by action id (a count: duplicates may overlap). Owned by
   * the transport, so it spans requests; in memory, because only a live object has a write in flight.
   */
  readonly committing: Map<string, number>;
  transaction<T>(step: () => T): T;
  audit(record: Record<string, Json>): void;
}

function previewValue(value: Json): PreviewValue {
  if (typeof value === "string") return { type: "text", text: value };
  if (typeof value === "boolean") return { type: "bool", value };
  if (typeof value === "number") return { type: "number", value };
  if (Array.isArray(value) && value.every((item) => typeof item === "string"))
    return { type: "text_list", items: value };
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

/** The stored call of an action, bound the way the tool-call route binds one. */
function storedCall(deps: FacadeDeps, action: ActionRow) {
  const input = fromStored(action.request, ToolCallRequest);
  const call = callOf(input);
  if (!call.ok) throw new Error("a stored facade call no longer binds");
  return { principal: storedPrincipal(deps.consumer, input), call: call.value };
}

/**
 * The `PreparedAction` of a stored action (rebuilt the same way every time); `args`: its call's
 * arguments when the caller holds them (it just wrote the row), else read from the row.
 */
function actionOf(deps: FacadeDeps, action: ActionRow, spec: ToolSpec, args?: JsonObject): PreparedAction {
  return preparedAction({
    actionId: action.action_id,
    operationId: action.operation_id,
    preview: preview(spec, action.target, args ?? storedCall(deps, action).call.arguments),
    payload: {
      approval_id: action.approval_id,
      request_sha256: action.request_sha256,
      target: action.target,
      tool: action.tool,
    },
    revision: action.revision,
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

/** Target → tool (within the credential's scope), identity, arguments; or the facade failure that stops the request. */
function resolve(
  deps: FacadeDeps,
  context: InvocationContext,
  operationId: string,
  target: string,
  input: Json,
): Resolved | FacadeAnswer {
  const { targets, revision } = deps.store.targets();
  const tool = facadeTool(deps.caller, targets.get(target));
  if (typeof tool !== "string") return tool;
  if (!isBoundedIdentifier(operationId) || !isBoundedIdentifier(context.actor.user_id))
    return failed("INVALID_IDENTITY");
  const spec = deps.toolCalls.engine.registry.get(tool);
  if (spec === undefined) return catalogFailure("UNKNOWN_TOOL");
  if (typeof input !== "object" || input === null || Array.isArray(input) || checkJsonDomain(input) !== null)
    return catalogFailure("INVALID_ARGUMENTS");
  return { identity: facadeIdentity(context, operationId), tool, spec, args: input as JsonObject, revision };
}

function isAnswer(value: Resolved | FacadeAnswer): value is FacadeAnswer {
  return "type" in value;
}

type FacadeCall = { operation_id: string; target: string; input: Json };

/** `invoke`: a read executes at once on the tool-call service. */
async function invoke(deps: FacadeDeps, context: InvocationContext, request: FacadeCall): Promise<FacadeAnswer> {
  const acting = await facadePrincipal(deps.consumer, deps.caller, context.actor.user_id);
  if (refused(acting)) return acting;
  const resolved = resolve(deps, context, request.operation_id, request.target, request.input);
  if (isAnswer(resolved)) return resolved;
  if (resolved.spec.risk === "write") return failed("PREPARE_REQUIRED");
  const { principal, call } = facadeToolCall(acting, resolved.identity, resolved.tool, resolved.args, null);
  return fromOutcome(await deps.toolCalls.dispatch(principal, call, deps.now));
}

/**
 * `prepare`: binds the call; a write goes through the tool-call service in prepare mode (it can
 * never execute there), which opens its approval; then the action row is written. A repeated
 * prepare answers the stored action.
 */
async function prepare(
  deps: FacadeDeps,
  context: InvocationContext,
  request: FacadeCall,
  dispatch: DispatchBinding,
): Promise<FacadeAnswer> {
  const acting = await facadePrincipal(deps.consumer, deps.caller, context.actor.user_id);
  if (refused(acting)) return acting;
  const resolved = resolve(deps, context, request.operation_id, request.target, request.input);
  if (isAnswer(resolved)) return resolved;
  const { identity, spec, tool, args, revision } = resolved;
  const key = spec.risk === "write" ? facadeIdempotencyKey(identity.actionId, identity.operationId) : null;
  const { principal, call } = facadeToolCall(acting, identity, tool, args, key);
  const requestText = storedRequest(principal, call);
  const existing = deps.store.action(identity.actionId);
  if (existing !== undefined)
    return existing.request === requestText
      ? { type: "prepared", action: actionOf(deps, existing, spec) }
      : failed("ACTION_CONFLICT");
  let approvalId: string | null = null;
  let digest: string;
  if (spec.risk === "write") {
    const gated = await deps.toolCalls.dispatch(principal, call, deps.now, { prepareOnly: true, facade: true });
    if (!gated.ok) return fromOutcome(gated);
    const error = gated.value.package.model_result.error;
    if (error === null) return failed("ACTION_COMMITTED");
    if (gated.value.approvalId === null) return catalogFailure(error.code);
    approvalId = gated.value.approvalId;
    digest = gated.value.package.protected_audit.binding.request_sha256;
  } else {
    digest = requestDigest(principal, call, spec, sha256Hex);
  }
  return deps.transaction(() => {
    deps.store.insertAction({
      action_id: identity.actionId,
      thread_id: context.thread_id,
      run_id: context.run_id,
      operation_id: identity.operationId,
      subject_id: context.actor.user_id,
      target: request.target,
      tool,
      request: requestText,
      request_sha256: digest,
      revision,
      approval_id: approvalId,
      dispatch_id: dispatch.dispatch_id,
      agent_session_id: dispatch.agent_session_id,
      prepared_at: deps.now,
    });
    deps.audit(closeRecord("prepare", identity.actionId, identity.operationId, tool, approvalId, context, dispatch));
    const stored = deps.store.action(identity.actionId);
    if (stored === undefined) throw new Error("action row missing right after insert");
    return { type: "prepared", action: actionOf(deps, stored, spec, call.arguments) } satisfies FacadeAnswer;
  });
}

/**
 * The stored action a commit or reject names, if it belongs to this thread, operation and user
 * and its tool is within the credential's scope (one outside reads as missing).
 */
function ownedAction(deps: FacadeDeps, context: InvocationContext, action: PreparedAction): ActionRow | undefined {
  const row = deps.store.action(action.action_id);
  if (row === undefined || typeof facadeTool(deps.caller, row.tool) !== "string") return undefined;
  return row.thread_id === context.thread_id &&
    row.operation_id === action.operation_id &&
    row.subject_id === context.actor.user_id
    ? row
    : undefined;
}

/**
 * Whether the credential may act on an action: for the context's user, and (`asStored`, a
 * commit, which executes the stored call) with the stored principal's roles. An action's stored
 * call never changes, so the caller reads its row again afterwards, without awaiting in between.
 */
async function actingRefusal(
  deps: FacadeDeps,
  context: InvocationContext,
  action: PreparedAction,
  asStored: boolean,
): Promise<FacadeAnswer | null> {
  const acting = await facadePrincipal(deps.consumer, deps.caller, context.actor.user_id);
  if (refused(acting)) return acting;
  const row = asStored ? ownedAction(deps, context, action) : undefined;
  if (row === undefined) return null;
  const { principal } = storedCall(deps, row);
  const allowed = await facadePrincipal(deps.consumer, deps.caller, principal.subject_id, principal.roles);
  return refused(allowed) ? allowed : null;
}

function closeRecord(
  phase: "prepare" | "commit" | "reject",
  actionId: string,
  operationId: string,
  tool: string,
  approvalId: string | null,
  context: InvocationContext,
  dispatch: DispatchBinding,
): Record<string, Json> {
  return {
    phase,
    action_id: actionId,
    operation_id: operationId,
    thread_id: context.thread_id,
    run_id: context.run_id,
    dispatch_id: dispatch.dispatch_id,
    agent_session_id: dispatch.agent_session_id,
    tool,
    approval_id: approvalId,
  };
}

/**
 * `commit`: executes the stored call once. The tool service's idempotency key is derived from the
 * action and operation ids, and the committed value is stored, so a repeated commit answers the
 * stored result without a second execution.
 */
async function commit(
  deps: FacadeDeps,
  context: InvocationContext,
  action: PreparedAction,
  dispatch: DispatchBinding,
): Promise<FacadeAnswer> {
  const refusal = await actingRefusal(deps, context, action, true);
  if (refusal !== null) return refusal;
  const row = ownedAction(deps, context, action);
  if (row === undefined) return failed("ACTION_NOT_FOUND");
  if (row.state === "committed" && row.result !== null)
    return { type: "result", value: storedJson(row.result, "runtime JSON") };
  if (row.state === "rejected") return failed("ACTION_REJECTED");
  if (BigInt(action.revision) !== BigInt(row.revision) || deps.store.targets().revision !== row.revision)
    return failed("STALE_REVISION");
  const { principal, call } = storedCall(deps, row);
  // Marked before the first await: a reject arriving meanwhile sees the commit in flight.
  const id = row.action_id;
  deps.committing.set(id, (deps.committing.get(id) ?? 0) + 1);
  let answer: FacadeAnswer;
  try {
    answer = fromOutcome(await deps.toolCalls.dispatch(principal, call, deps.now, { facade: true }));
  } finally {
    const left = (deps.committing.get(id) ?? 1) - 1;
    if (left === 0) deps.committing.delete(id);
    else deps.committing.set(id, left);
  }
  if (answer.type !== "result") return answer;
  deps.transaction(() => {
    deps.store.commitAction(row.action_id, answer.value, deps.now);
    deps.audit(closeRecord("commit", row.action_id, row.operation_id, row.tool, row.approval_id, context, dispatch));
  });
  return answer;
}

/**
 * What the tool service durably holds under the action's idempotency key, whichever path sent
 * the call: a record or an unknown outcome (it ran or may have), its in-flight mark, or nothing.
 */
function keyState(deps: FacadeDeps, row: ActionRow): "ran" | "in_flight" | null {
  const { principal, call } = storedCall(deps, row);
  if (call.idempotency_key === null) return null;
  const key = storeKey(idempotencyScope(principal, call));
  const store = deps.toolCalls.engine.store;
  if (store.get("idempotency_records", key) !== undefined || store.get("uncertain_outcomes", key) !== undefined)
    return "ran";
  return store.get("in_flight", key) !== undefined ? "in_flight" : null;
}

/**
 * `reject`: closes the action and withdraws its pending approval; repeating it is harmless. While
 * a commit's write is in flight it is refused (`ACTION_COMMIT_IN_FLIGHT`) and the action stays as
 * it is: the write may execute, so the action must not read as rejected. The durable state of
 * the call's idempotency key decides, not only this object's memory: once the key holds a
 * record or an unknown outcome, the action is `ACTION_COMMITTED`.
 */
async function reject(
  deps: FacadeDeps,
  context: InvocationContext,
  action: PreparedAction,
  dispatch: DispatchBinding,
): Promise<FacadeAnswer> {
  const refusal = await actingRefusal(deps, context, action, false);
  if (refusal !== null) return refusal;
  const row = ownedAction(deps, context, action);
  if (row === undefined) return failed("ACTION_NOT_FOUND");
  if (row.state === "committed") return failed("ACTION_COMMITTED");
  const ran = keyState(deps, row);
  if (ran === "ran") return failed("ACTION_COMMITTED");
  if (ran === "in_flight" || deps.committing.has(row.action_id))
    return failed("ACTION_COMMIT_IN_FLIGHT", IN_PROGRESS_RETRY_SECONDS * 1000);
  if (row.state === "rejected") return { type: "rejected" };
  deps.transaction(() => {
    deps.store.rejectAction(row.action_id, deps.now);
    if (row.approval_id !== null) deps.toolCalls.withdraw(row.approval_id, deps.now);
    deps.audit(closeRecord("reject", row.action_id, row.operation_id, row.tool, row.approval_id, context, dispatch));
  });
  return { type: "rejected" };
}

/** Runs one `app_facade_request` on the tool-call service. */
export async function handleFacadeRequest(
  deps: FacadeDeps,
  request: AppFacadeRequest,
  dispatch: DispatchBinding,
): Promise<FacadeAnswer> {
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
