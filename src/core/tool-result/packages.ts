/**
 * Building the dual projection: the model-visible `model_result` and the protected audit that
 * binds it, by digest, to the request, the call and the downstream evidence.
 * @module
 */
import { canonicalJson, type Json, type JsonObject } from "../json";
import {
  AUDIT_SCHEMA_VERSION,
  DISPATCHER_REVISION,
  DISPATCHER_SOURCE_LABEL,
  MODEL_RESULT_SCHEMA_VERSION,
  type Delivery,
} from "./constants";
import { callBindingDigest, principalRef, toolContract } from "./digests";
import { ERROR_CATALOG, type ErrorCode } from "./error-catalog";
import type { ToolSpec } from "./tool-spec";
import type { Downstream, HashFn, ModelResult, Principal, ProtectedAudit, ResultPackage, ToolCall } from "./types";
import { formatUtcSecond } from "./utc-time";

/** A committed result as the idempotency table keeps it (plain JSON). */
export interface IdempotencyRecord {
  readonly [key: string]: Json;
  readonly request_sha256: string;
  readonly provider: string;
  readonly api_family: string;
  readonly adapter_revision: string;
  readonly data: Json;
  readonly source_label: string;
  readonly producer_revision: string;
  readonly resource_revision: string | null;
  readonly observed_at: string;
  readonly output_schema_revision: string;
  readonly effect_revision: string;
  readonly handler_revision: string;
  readonly downstream_request_id: string | null;
  readonly receipt_id: string | null;
  readonly status_ref: string | null;
}

// Canonical texts of model results this module built and deep-froze. A frozen value cannot
// change, so re-validation may reuse its text instead of encoding it again; anything else
// (a copy, a package from outside) is encoded afresh.
const frozenCanonical = new WeakMap<object, string>();

function deepFreeze(value: Json): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  if (Array.isArray(value)) value.forEach(deepFreeze);
  else for (const key of Object.keys(value)) deepFreeze((value as JsonObject)[key] as Json);
}

/** Canonical JSON of a value, reusing the text of a model result this module built and froze. */
export function canonicalOfResult(value: Json): string {
  const cached = typeof value === "object" && value !== null ? frozenCanonical.get(value) : undefined;
  return cached ?? canonicalJson(value);
}

/** The bindings a package was built with, and the exact inputs they were computed from. */
export interface BuiltBindings {
  readonly principal: Principal;
  readonly call: ToolCall;
  readonly spec: ToolSpec | undefined;
  readonly principalRef: string;
  readonly requestSha256: string;
  readonly resultSha256: string;
  readonly callBindingSha256: string;
  readonly downstream: Downstream;
}

// Keyed by the audit object: lets re-validation inside the same trusted call compare against the
// bindings computed once instead of recomputing them, while any change to the package's fields
// is still caught by the comparisons themselves.
const builtBindings = new WeakMap<object, BuiltBindings>();

/** The bindings `audit` was built with, if it was built here for these very principal, call and spec. */
export function trustedBindings(
  audit: object,
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
): BuiltBindings | undefined {
  const built = builtBindings.get(audit);
  return built !== undefined && built.principal === principal && built.call === call && built.spec === spec ? built : undefined;
}

/** Wraps a model result with its audit record. `result_sha256` is taken over the model result. */
export function buildPackage(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  modelResult: ModelResult,
  requestSha256: string,
  downstream: Downstream,
  hash: HashFn,
): ResultPackage {
  deepFreeze(modelResult);
  const modelText = canonicalJson(modelResult);
  frozenCanonical.set(modelResult, modelText);
  const resultSha256 = hash(modelText);
  const bound = { request_id: downstream.request_id, receipt_id: downstream.receipt_id, status_ref: downstream.status_ref };
  const ref = principalRef(principal, hash);
  const callBindingSha256 = callBindingDigest(principal, call, spec, requestSha256, resultSha256, bound, hash);
  const audit: ProtectedAudit = {
    schema_version: AUDIT_SCHEMA_VERSION,
    visibility: "protected_audit",
    operation_id: call.operation_id,
    principal_ref: ref,
    provider_context: {
      provider: call.provider,
      api_family: call.api_family,
      response_id: call.response_id,
      call_id: call.call_id,
      adapter_revision: call.adapter_revision,
    },
    // The contract's seven revision fields, built by the digest module that also hashes them.
    tool_contract: toolContract(spec, call.name) as ProtectedAudit["tool_contract"],
    binding: {
      request_sha256: requestSha256,
      result_sha256: resultSha256,
      call_binding_sha256: callBindingSha256,
    },
    downstream: bound,
    redactions: [],
  };
  builtBindings.set(audit, {
    principal,
    call,
    spec,
    principalRef: ref,
    requestSha256,
    resultSha256,
    callBindingSha256,
    downstream: { ...bound },
  });
  return { model_result: modelResult, protected_audit: audit };
}

/** A succeeded package from a committed record; the data is marked untrusted. */
export function successPackage(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec,
  record: IdempotencyRecord,
  delivery: Delivery,
  hash: HashFn,
): ResultPackage {
  const modelResult: ModelResult = {
    schema_version: MODEL_RESULT_SCHEMA_VERSION,
    status: "succeeded",
    // Records are never mutated in place, so sharing `data` with the store is safe; a record
    // holds only data that passed the output contract, which requires an object.
    data: record.data as JsonObject,
    error: null,
    execution: { outcome: "committed", delivery, complete: true, truncated: false },
    provenance: {
      source_label: record.source_label,
      producer_revision: record.producer_revision,
      resource_revision: record.resource_revision,
      observed_at: record.observed_at,
      trust: "untrusted_data",
    },
  };
  const downstream = { request_id: record.downstream_request_id, receipt_id: record.receipt_id, status_ref: record.status_ref };
  return buildPackage(principal, call, spec, modelResult, record.request_sha256, downstream, hash);
}

/** A failed or unknown package carrying one catalog entry; the dispatcher is its trusted source. */
export function errorPackage(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  code: ErrorCode,
  requestSha256: string,
  now: number,
  hash: HashFn,
  statusRef: string | null = null,
): ResultPackage {
  const policy = ERROR_CATALOG[code];
  const modelResult: ModelResult = {
    schema_version: MODEL_RESULT_SCHEMA_VERSION,
    status: policy.outcome === "unknown" ? "unknown" : "failed",
    data: null,
    error: {
      code,
      category: policy.category,
      safe_message: policy.safe_message,
      recovery: policy.recovery,
      retry_after_ms: policy.retry_after_ms,
    },
    execution: { outcome: policy.outcome, delivery: "fresh", complete: true, truncated: false },
    provenance: {
      source_label: DISPATCHER_SOURCE_LABEL,
      producer_revision: DISPATCHER_REVISION,
      resource_revision: null,
      observed_at: formatUtcSecond(now),
      trust: "trusted_control",
    },
  };
  const downstream = { request_id: null, receipt_id: null, status_ref: statusRef };
  return buildPackage(principal, call, spec, modelResult, requestSha256, downstream, hash);
}
