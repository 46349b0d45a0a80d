/**
 * Observing and reconciling a write whose outcome is unknown, without ever running its handler
 * again; and recovering writes left in flight by a restart.
 * @module
 */
import type { JsonObject } from "../json";
import { callFingerprint, memoizeHash, requestDigest } from "./digests";
import {
  bindCallIdentity,
  callFromJson,
  idempotencyScope,
  principalFromJson,
  recordFromHandler,
  isNotExecuted,
  readRecord,
  recordMatches,
  rememberUnknown,
  unknownMatches,
  type InFlightRecord,
  type UnknownOutcome,
} from "./dispatcher-state";
import type { ToolResultEngine } from "./engine";
import type { ErrorCode } from "./error-catalog";
import { refuse, validateHostContext, type ToolResultRefusal } from "./host-context";
import { ok, type Result } from "../result";
import { errorPackage, successPackage, type IdempotencyRecord } from "./packages";
import { storeKey } from "./store";
import { validateArguments } from "./tool-spec";
import { validateHandlerResult } from "./output-contract";
import type { HandlerResult, HashFn, Principal, ResultPackage, ToolCall } from "./types";

const STATUS_REF_PATTERN = /^status_[0-9a-f]{32}$/;
const HEX64_PATTERN = /^[0-9a-f]{64}$/;

/** A status query: the call that asks, the status reference, and the request digest it expects. */
export interface StatusQuery {
  readonly principal: Principal;
  readonly call: ToolCall;
  readonly status_ref: string;
  readonly expected_request_sha256: string;
  readonly now: number;
  readonly hash?: HashFn;
  /** The principal's verified claims, handed to the tool's checks (never digested or stored). */
  readonly claims?: JsonObject;
}

/** The reference's `query_operation_status`: reconcile a prior unknown write from its receipt. */
export function queryStatus(engine: ToolResultEngine, query: StatusQuery): Result<ResultPackage, ToolResultRefusal> {
  const context = validateHostContext(query.principal, query.call, query.now);
  if (!context.ok) return context;
  if (!STATUS_REF_PATTERN.test(query.status_ref) || !HEX64_PATTERN.test(query.expected_request_sha256))
    return refuse("STATUS_QUERY_INVALID", "status query correlationfieldsformat is invalid");
  return ok(reconcile(engine, query));
}

/** The query once its host metadata and correlation fields are well formed. */
function reconcile(engine: ToolResultEngine, query: StatusQuery): ResultPackage {
  const { principal, call, now, status_ref: statusRef } = query;
  const hash = memoizeHash(query.hash ?? engine.hash);
  const spec = engine.registry.get(call.name);
  const digest = requestDigest(principal, call, spec, hash);
  const fail = (code: ErrorCode, ref: string | null = null): ResultPackage =>
    errorPackage(principal, call, spec, code, digest, now, hash, ref);
  if (spec === undefined) return fail("UNKNOWN_TOOL");
  if (!validateArguments(spec, call.arguments)) return fail("INVALID_ARGUMENTS");
  // A status query is its own purpose: reusing the dispatch's call id conflicts, and that wins over NOT_FOUND.
  if (!bindCallIdentity(engine.store, principal, call, callFingerprint(call, digest, "query_status", hash))) {
    return fail("CALL_ID_CONFLICT");
  }
  const ctx = { store: engine.store, now, ...(query.claims === undefined ? {} : { claims: query.claims }) };
  if (!spec.authorize(principal, call.arguments, ctx)) return fail("NOT_FOUND");
  const unknown = readRecord<UnknownOutcome>(engine.store, "status_refs", statusRef);
  if (unknown === undefined || unknown.scope[0] !== principal.tenant_id || unknown.scope[1] !== principal.subject_id) {
    return fail("NOT_FOUND");
  }
  if (call.idempotency_key === null) return fail("STATUS_CONFLICT", statusRef);
  const scope = [principal.tenant_id, principal.subject_id, call.name, call.idempotency_key];
  const key = storeKey(scope);
  if (
    query.expected_request_sha256 !== digest ||
    storeKey(unknown.scope) !== key ||
    !unknownMatches(unknown, call, spec, digest)
  ) {
    return fail("STATUS_CONFLICT", statusRef);
  }
  const receipt = readRecord<IdempotencyRecord>(engine.store, "downstream_receipts", key);
  if (receipt === undefined) {
    const uncertain = readRecord<UnknownOutcome>(engine.store, "uncertain_outcomes", key);
    return uncertain !== undefined && isNotExecuted(uncertain)
      ? fail("TOOL_ERROR")
      : fail("OUTCOME_UNKNOWN", statusRef);
  }
  if (!recordMatches(receipt, call, spec, digest) || receipt.status_ref !== statusRef)
    return fail("STATUS_CONFLICT", statusRef);
  engine.store.put("idempotency_records", key, receipt);
  engine.store.delete("uncertain_outcomes", key);
  return successPackage(principal, call, spec, receipt, "receipt_reconciled", hash);
}

/**
 * Records the downstream's confirmation that the unknown write `statusRef` never executed and
 * never will (it fenced the key). Later status queries and replays of the key answer
 * `TOOL_ERROR` with outcome `not_started`. Answers whether a matching unknown write was settled.
 */
export function settleNotExecuted(engine: ToolResultEngine, scope: readonly string[], statusRef: string): boolean {
  const key = storeKey(scope);
  const uncertain = readRecord<UnknownOutcome>(engine.store, "uncertain_outcomes", key);
  if (
    uncertain === undefined ||
    uncertain.status_ref !== statusRef ||
    readRecord(engine.store, "downstream_receipts", key) !== undefined
  )
    return false;
  engine.store.put("uncertain_outcomes", key, { ...uncertain, not_executed: true });
  return true;
}

/** One write recovered from the in-flight table. */
export interface RecoveredWrite {
  readonly status_ref: string;
  readonly scope: string[];
  /** The OUTCOME_UNKNOWN package its caller should have received. */
  readonly package: ResultPackage;
  /** The write's principal and call, as recorded in flight. */
  readonly principal: Principal;
  readonly call: ToolCall;
}

/**
 * After a restart, every write still marked in flight becomes an unknown outcome with its status
 * reference: it may have committed, so it is never executed a second time.
 */
export function recoverInFlight(
  engine: ToolResultEngine,
  now: number,
  options: { readonly hash?: HashFn } = {},
): RecoveredWrite[] {
  const hash = memoizeHash(options.hash ?? engine.hash);
  const recovered: RecoveredWrite[] = [];
  for (const [key, value] of engine.store.entries("in_flight")) {
    const record = value as InFlightRecord;
    rememberUnknown(engine.store, record);
    engine.store.delete("in_flight", key);
    const principal = principalFromJson(record.principal);
    const call = callFromJson(record.call);
    const spec = engine.registry.get(call.name);
    const pkg = errorPackage(
      principal,
      call,
      spec,
      "OUTCOME_UNKNOWN",
      record.request_sha256,
      now,
      hash,
      record.status_ref,
    );
    recovered.push({ status_ref: record.status_ref, scope: [...record.scope], package: pkg, principal, call });
  }
  return recovered;
}

/** What the one who executed a write (an HTTP service) says happened to it. */
export type DownstreamEvidence =
  | { readonly kind: "committed"; readonly result: HandlerResult }
  /** It never executed and never will (failed, or fenced at the gate's request). */
  | { readonly kind: "not_executed" }
  /** No definite answer: the outcome stays unknown. */
  | { readonly kind: "unknown" };

/**
 * Whether a status query names this caller's own unknown write of this exact request: only
 * then may the host ask the downstream about it (and fence its key).
 */
export function isOwnUnknownWrite(
  engine: ToolResultEngine,
  principal: Principal,
  call: ToolCall,
  statusRef: string,
  requestSha256: string,
): boolean {
  const spec = engine.registry.get(call.name);
  if (spec === undefined || spec.risk !== "write" || call.idempotency_key === null) return false;
  const unknown = readRecord<UnknownOutcome>(engine.store, "status_refs", statusRef);
  const key = storeKey(idempotencyScope(principal, call));
  return (
    unknown !== undefined &&
    storeKey(unknown.scope) === key &&
    unknown.request_sha256 === requestSha256 &&
    engine.store.get("uncertain_outcomes", key) !== undefined
  );
}

/**
 * Records the downstream's evidence about an unknown write before {@link queryStatus} reads
 * it: a committed result that meets the output contract becomes the receipt (the first one
 * stays); a definite "never executed" settles the write as not started.
 */
export function recordEvidence(
  engine: ToolResultEngine,
  principal: Principal,
  call: ToolCall,
  statusRef: string,
  requestSha256: string,
  evidence: DownstreamEvidence,
): void {
  const spec = engine.registry.get(call.name);
  if (spec === undefined || call.idempotency_key === null) return;
  const scope = idempotencyScope(principal, call);
  if (evidence.kind === "committed" && validateHandlerResult(spec, call, evidence.result).length === 0) {
    const key = storeKey(scope);
    if (engine.store.get("downstream_receipts", key) === undefined) {
      engine.store.put(
        "downstream_receipts",
        key,
        recordFromHandler(spec, call, evidence.result, requestSha256, statusRef),
      );
    }
  }
  if (evidence.kind === "not_executed") settleNotExecuted(engine, scope, statusRef);
}
