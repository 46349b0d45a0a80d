/**
 * The trusted dispatcher, split in two steps so an async handler can run between them:
 * `beginDispatch` validates, binds, authorizes, deduplicates and approves; `completeDispatch`
 * validates the handler's output, records the outcome and projects it. `dispatch` composes
 * both synchronously and answers exactly like the reference.
 * @module
 */
import type { JsonObject } from "../json";
import type { ApprovalBook } from "./approval-book";
import { argumentDetails, type ArgumentProblem } from "./argument-problem";
import { approvalGate } from "./approval-gate";
import { isOneOf, VALID_FAILURES, type Failure } from "./constants";
import { callFingerprint, memoizeHash, requestDigest, statusRef as makeStatusRef } from "./digests";
import {
  bindCallIdentity,
  callCopy,
  callJson,
  idempotencyScope,
  inFlightRecord,
  isNotExecuted,
  principalCopy,
  principalJson,
  readRecord,
  recordFromHandler,
  recordMatches,
  rememberUnknown,
  unknownMatches,
  unknownOutcome,
  type InFlightRecord,
  type UnknownOutcome,
} from "./dispatcher-state";
import type { ToolResultEngine } from "./engine";
import type { ErrorCode } from "./error-catalog";
import { refuse, validateHostContext, type ToolResultRefusal } from "./host-context";
import { ok, type Result } from "../result";
import { checkHandlerOutput } from "./output-contract";
import { errorPackage, successPackage, type IdempotencyRecord } from "./packages";
import { storeKey } from "./store";
import { validateArguments, type ToolContext, type ToolSpec } from "./tool-spec";
import type { Approval, HandlerResult, HashFn, Principal, ResultPackage, ToolCall } from "./types";

/** One dispatch request from the trusted host. */
export interface DispatchRequest {
  readonly principal: Principal;
  readonly call: ToolCall;
  /** Approvals handed over with the call (fixtures, a trusted review UI). */
  readonly approvals?: readonly Approval[];
  /**
   * The approval book instead: the dispatcher looks up the call's requests by binding key,
   * weighs them, and opens a pending request when a write needs a human.
   */
  readonly book?: ApprovalBook;
  /** With a book: decisions are not consulted, so the step can never execute (prepare a write). */
  readonly prepareOnly?: boolean;
  /** Unix seconds, supplied by the host. */
  readonly now: number;
  /** Failure injection for tests and fixtures. */
  readonly failure?: Failure;
  /** Overrides the engine's hash for this call (for example a memo shared with re-validation). */
  readonly hash?: HashFn;
  /** The principal's verified claims, handed to the tool's checks (never digested or stored). */
  readonly claims?: JsonObject;
}

/** Everything the second step needs; plain JSON values, so it survives a JSON round trip. */
export interface DispatchTicket {
  readonly principal: Principal;
  readonly call: ToolCall;
  readonly tool: string;
  readonly request_sha256: string;
  readonly scope: string[] | null;
  readonly status_ref: string | null;
  readonly failure: Failure;
  readonly now: number;
}

/** What the first step answers. */
export type BeginDispatchResult =
  | { readonly kind: "final"; readonly package: ResultPackage }
  /** A write that waits for a human: `APPROVAL_REQUIRED`, and the pending request in the book. */
  | {
      readonly kind: "needs_approval";
      readonly package: ResultPackage;
      readonly approval_id: string;
      readonly request_sha256: string;
      readonly binding_key: string;
    }
  | { readonly kind: "execute"; readonly ticket: DispatchTicket }
  | { readonly kind: "in_progress" }
  /**
   * The write needs a new pending approval but the book refused to open one (the subject's
   * quota of pending approvals is full): nothing was opened, nothing runs, no package exists.
   */
  | { readonly kind: "quota_exceeded"; readonly retry_after_seconds: number };

/** The handler's answer for {@link completeDispatch}: its result, or "threw". */
export type HandlerOutcome = HandlerResult | "threw";

const AFTER_COMMIT_FAILURES: ReadonlySet<Failure> = new Set([
  "timeout_after_commit",
  "timeout_after_commit_receipt_unavailable",
]);
const BEFORE_EXECUTE_FAILURES: ReadonlyMap<Failure, ErrorCode> = new Map<Failure, ErrorCode>([
  ["timeout_before_execute", "TIMEOUT_BEFORE_EXECUTE"],
  ["rate_limit", "RATE_LIMIT"],
  ["tool_error", "TOOL_ERROR"],
]);

/** Step one: everything up to the handler call. Writes are marked in flight before `execute` is returned. */
export function beginDispatch(
  engine: ToolResultEngine,
  request: DispatchRequest,
): Result<BeginDispatchResult, ToolResultRefusal> {
  return begin(engine, request, memoizeHash(request.hash ?? engine.hash));
}

function begin(
  engine: ToolResultEngine,
  request: DispatchRequest,
  hash: HashFn,
): Result<BeginDispatchResult, ToolResultRefusal> {
  const { principal, call, now } = request;
  const failure = request.failure ?? "none";
  const context = validateHostContext(principal, call, now);
  if (!context.ok) return context;
  if (!isOneOf(VALID_FAILURES, failure)) return refuse("FAILURE_NOT_APPLICABLE", `unknown failure: ${String(failure)}`);
  const spec = engine.registry.get(call.name);
  const final = (
    code: ErrorCode,
    digest: string,
    statusRef: string | null = null,
    details?: ArgumentProblem,
  ): BeginDispatchResult => ({
    kind: "final",
    package: errorPackage(principal, call, spec, code, digest, now, hash, statusRef, details),
  });
  const fail = (code: ErrorCode, digest: string, statusRef: string | null = null): Result<BeginDispatchResult, never> =>
    ok(final(code, digest, statusRef));
  if (spec === undefined) return fail("UNKNOWN_TOOL", requestDigest(principal, call, undefined, hash));
  // Arguments stay inside the JSON domain, so the digest is reproducible even when they are rejected.
  const digest = requestDigest(principal, call, spec, hash);
  if (!validateArguments(spec, call.arguments))
    return ok(final("INVALID_ARGUMENTS", digest, null, argumentDetails(spec, call.arguments)));
  if (!bindCallIdentity(engine.store, principal, call, callFingerprint(call, digest, "dispatch", hash))) {
    return fail("CALL_ID_CONFLICT", digest);
  }
  const ctx: ToolContext =
    request.claims === undefined ? { store: engine.store, now } : { store: engine.store, now, claims: request.claims };
  if (!spec.authorize(principal, call.arguments, ctx)) return fail("NOT_FOUND", digest);

  let scope: string[] | null = null;
  let key = "";
  if (spec.risk === "write") {
    if (!call.idempotency_key) return fail("IDEMPOTENCY_KEY_REQUIRED", digest);
    scope = idempotencyScope(principal, call);
    key = storeKey(scope);
    const record = readRecord<IdempotencyRecord>(engine.store, "idempotency_records", key);
    if (record !== undefined) {
      if (!recordMatches(record, call, spec, digest)) return fail("IDEMPOTENCY_CONFLICT", digest);
      return ok({ kind: "final", package: successPackage(principal, call, spec, record, "local_replay", hash) });
    }
    const uncertain = readRecord<UnknownOutcome>(engine.store, "uncertain_outcomes", key);
    if (uncertain !== undefined) {
      if (!unknownMatches(uncertain, call, spec, digest)) return fail("IDEMPOTENCY_CONFLICT", digest);
      // Settled as never executed: the key is spent (a downstream fence holds it), never re-run.
      if (isNotExecuted(uncertain)) return fail("TOOL_ERROR", digest);
      return fail("OUTCOME_UNKNOWN", digest, uncertain.status_ref);
    }
    const inFlight = readRecord<InFlightRecord>(engine.store, "in_flight", key);
    if (inFlight !== undefined) {
      // Never a second execution: the same request waits, a different one conflicts.
      return unknownMatches(inFlight, call, spec, digest)
        ? ok({ kind: "in_progress" })
        : fail("IDEMPOTENCY_CONFLICT", digest);
    }
    if (spec.businessRule !== undefined && !spec.businessRule(principal, call.arguments, ctx)) {
      return fail("BUSINESS_RULE_VIOLATION", digest);
    }
    // Every write needs a human unless the tool's approval rule says this one does not.
    if (spec.needsApproval === undefined || spec.needsApproval(principal, call.arguments, ctx)) {
      const refused = approvalGate(engine, request, spec, digest, hash, final);
      if (refused !== null) return ok(refused);
    }
  }

  const injected = BEFORE_EXECUTE_FAILURES.get(failure);
  if (injected !== undefined) return fail(injected, digest);
  if (AFTER_COMMIT_FAILURES.has(failure) && spec.risk !== "write")
    return refuse("FAILURE_NOT_APPLICABLE", "timeout_after_commit applies only to write actions");
  let statusRef: string | null = null;
  if (scope !== null) {
    statusRef = makeStatusRef(scope, digest, hash);
    const inFlight: InFlightRecord = inFlightRecord(
      unknownOutcome(scope, call, spec, digest, statusRef),
      principalJson(principal),
      callJson(call),
    );
    engine.store.put("in_flight", key, inFlight);
  }
  return ok({
    kind: "execute",
    ticket: {
      principal: principalCopy(principal),
      call: callCopy(call),
      tool: spec.name,
      request_sha256: digest,
      scope,
      status_ref: statusRef,
      failure,
      now,
    },
  });
}

function ticketSpec(engine: ToolResultEngine, ticket: DispatchTicket): ToolSpec {
  const spec = engine.registry.get(ticket.tool);
  if (spec === undefined) throw new Error(`ticket names a tool the registry does not hold: ${ticket.tool}`);
  return spec;
}

/** Step two: validates the handler's outcome, records it, clears the in-flight mark and projects. */
export function completeDispatch(
  engine: ToolResultEngine,
  ticket: DispatchTicket,
  outcome: HandlerOutcome,
  options: { readonly hash?: HashFn } = {},
): ResultPackage {
  const hash = memoizeHash(options.hash ?? engine.hash);
  const spec = ticketSpec(engine, ticket);
  const { principal, call, scope, status_ref: statusRef, request_sha256: digest, now } = ticket;
  const fail = (code: ErrorCode, ref: string | null): ResultPackage =>
    errorPackage(principal, call, spec, code, digest, now, hash, ref);
  const remember = (): void => {
    if (scope !== null && statusRef !== null)
      rememberUnknown(engine.store, unknownOutcome(scope, call, spec, digest, statusRef));
  };
  const key = scope === null ? "" : storeKey(scope);
  if (scope !== null) engine.store.delete("in_flight", key);

  if (outcome === "threw") {
    // A write that threw may still have committed downstream: never report it as not started.
    if (spec.risk === "write") {
      remember();
      return fail("OUTCOME_UNKNOWN", statusRef);
    }
    return fail("TOOL_ERROR", null);
  }
  const checked = checkHandlerOutput(spec, call, outcome);
  if (checked.errors.length > 0) {
    if (spec.risk === "write") remember();
    return fail("OUTPUT_CONTRACT_VIOLATION", statusRef);
  }
  const record = recordFromHandler(spec, call, outcome, digest, statusRef);
  if (scope !== null) {
    if (AFTER_COMMIT_FAILURES.has(ticket.failure)) {
      remember();
      if (ticket.failure === "timeout_after_commit") engine.store.put("downstream_receipts", key, record);
      return fail("OUTCOME_UNKNOWN", statusRef);
    }
    engine.store.put("downstream_receipts", key, record);
    engine.store.put("idempotency_records", key, record);
  }
  return successPackage(principal, call, spec, record, "fresh", hash, checked.dataText);
}

/**
 * Runs an in-process handler synchronously; a thrown error is "threw", and a promise is not a
 * HandlerResult. A tool the host executes has no handler here: the sync path reports "threw".
 */
function runHandlerSync(spec: ToolSpec, engine: ToolResultEngine, args: JsonObject): HandlerOutcome {
  if (spec.execution.kind !== "in_process") return "threw";
  try {
    const result = spec.execution.handler(args, { store: engine.store });
    if (result instanceof Promise) {
      // The sync path cannot wait; the output check reports it, and the rejection is absorbed here.
      result.catch(() => undefined);
    }
    return result as HandlerResult;
  } catch {
    return "threw";
  }
}

/** Both steps at once, for synchronous handlers: the reference's `Dispatcher.dispatch`. */
export function dispatch(engine: ToolResultEngine, request: DispatchRequest): Result<ResultPackage, ToolResultRefusal> {
  const hash = memoizeHash(request.hash ?? engine.hash);
  const started = begin(engine, request, hash);
  if (!started.ok) return started;
  const begun = started.value;
  if (begun.kind === "final" || begun.kind === "needs_approval") return ok(begun.package);
  if (begun.kind === "in_progress") throw new Error("a synchronous dispatch found its own write still in flight");
  // The reference has no approval book; a host that hands this path a book with a quota must use the two steps.
  if (begun.kind === "quota_exceeded")
    throw new Error("a synchronous dispatch cannot answer a refused approval request");
  const spec = ticketSpec(engine, begun.ticket);
  return ok(completeDispatch(engine, begun.ticket, runHandlerSync(spec, engine, request.call.arguments), { hash }));
}
