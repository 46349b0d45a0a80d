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
import { m, templated } from "./document-template";
import { RecentByIdentity } from "./recent";
import type { ArgumentProblem } from "./argument-problem";
import { ERROR_CATALOG, type ErrorCode } from "./error-catalog";
import type { ToolSpec } from "./tool-spec";
import type { Downstream, HashFn, ModelResult, Principal, ProtectedAudit, ResultPackage, ToolCall } from "./types";
import { formatUtcSecond } from "./utc-time";
import { visibleText } from "../text";

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

// How many recently built packages re-validation can find: more than one call's worth (a batch
// of a model turn's calls is validated after all are built); older ones are simply recomputed.
const RECENT_PACKAGES = 32;

// Canonical texts of model results this module built and deep-froze. A frozen value cannot
// change, so re-validation may reuse its text instead of encoding it again; anything else
// (a copy, a package from outside) is encoded afresh.
const frozenCanonical = new RecentByIdentity<object, string>(RECENT_PACKAGES);

function deepFreeze(value: Json): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  if (Array.isArray(value)) value.forEach(deepFreeze);
  else for (const key of Object.keys(value)) deepFreeze((value as JsonObject)[key] as Json);
}

/**
 * The canonical text of a model result this module built: its fixed shape written in sorted key
 * order with each member encoded on its own (the bytes of `canonicalJson(result)`, which still
 * writes the text, error included, when a member is outside the JSON domain). `dataText` is the
 * data's canonical text when the caller has just written it from the same, unchanged data.
 */
export function modelResultText(result: ModelResult, dataText?: string): string {
  return templated(
    () => {
      const { error, execution: e, provenance: p } = result;
      const errorText =
        error === null
          ? "null"
          : `{"category":${m(error.category, 2)},"code":${m(error.code, 2)},` +
            (error.details === undefined
              ? ""
              : `"details":{"expected":${m(error.details.expected, 3)},"pointer":${m(error.details.pointer, 3)}},`) +
            `"recovery":${m(error.recovery, 2)},` +
            `"retry_after_ms":${m(error.retry_after_ms, 2)},"safe_message":${m(error.safe_message, 2)}}`;
      return (
        `{"data":${dataText ?? m(result.data)},"error":${errorText},` +
        `"execution":{"complete":${m(e.complete, 2)},"delivery":${m(e.delivery, 2)},"outcome":${m(e.outcome, 2)},"truncated":${m(e.truncated, 2)}},` +
        `"provenance":{"observed_at":${m(p.observed_at, 2)},"producer_revision":${m(p.producer_revision, 2)},` +
        `"resource_revision":${m(p.resource_revision, 2)},"source_label":${m(p.source_label, 2)},"trust":${m(p.trust, 2)}},` +
        `"schema_version":${m(result.schema_version)},"status":${m(result.status)}}`
      );
    },
    () => result,
  );
}

/** deepFreeze of a model result, knowing its shape: only `data` is walked. */
function freezeModelResult(result: ModelResult): void {
  if (Object.isFrozen(result)) return;
  Object.freeze(result);
  Object.freeze(result.execution);
  Object.freeze(result.provenance);
  if (result.error !== null) {
    Object.freeze(result.error);
    if (result.error.details !== undefined) Object.freeze(result.error.details);
  }
  deepFreeze(result.data);
}

/** The canonical text of a model result this module built and froze, or undefined for any other object. */
export function builtResultText(value: object): string | undefined {
  return frozenCanonical.get(value);
}

/** Canonical JSON of a value, reusing the text of a model result this module built and froze. */
export function canonicalOfResult(value: Json): string {
  return (typeof value === "object" && value !== null ? builtResultText(value) : undefined) ?? canonicalJson(value);
}

/** A call's text fields as a package was built with them (its arguments excluded: see validateResult). */
type CallFields = Omit<ToolCall, "arguments">;

/** The bindings a package was built with, and copies of the inputs they were computed from. */
export interface BuiltBindings {
  readonly tenantId: string;
  readonly subjectId: string;
  readonly call: CallFields;
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
const builtBindings = new RecentByIdentity<object, BuiltBindings>(RECENT_PACKAGES);

/**
 * The bindings `audit` was built with, if it was built here for this spec and a principal and
 * call with the same text fields (compared by value: a caller's copy is as good as the original).
 * The request digest also covers the arguments, which may have changed since (a handler may
 * have altered them): the caller still recomputes it and trusts the rest only when it matches.
 */
export function trustedBindings(
  audit: object,
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
): BuiltBindings | undefined {
  const built = builtBindings.get(audit);
  if (
    built === undefined ||
    built.spec !== spec ||
    built.tenantId !== principal.tenant_id ||
    built.subjectId !== principal.subject_id
  )
    return undefined;
  const c = built.call;
  const same =
    c.call_id === call.call_id &&
    c.operation_id === call.operation_id &&
    c.name === call.name &&
    c.idempotency_key === call.idempotency_key &&
    c.provider === call.provider &&
    c.api_family === call.api_family &&
    c.response_id === call.response_id &&
    c.adapter_revision === call.adapter_revision;
  return same ? built : undefined;
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
  dataText?: string,
): ResultPackage {
  freezeModelResult(modelResult);
  const modelText = modelResultText(modelResult, dataText);
  frozenCanonical.set(modelResult, modelText);
  const resultSha256 = hash(modelText);
  const bound = {
    request_id: downstream.request_id,
    receipt_id: downstream.receipt_id,
    status_ref: downstream.status_ref,
  };
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
    tenantId: principal.tenant_id,
    subjectId: principal.subject_id,
    call: {
      call_id: call.call_id,
      operation_id: call.operation_id,
      name: call.name,
      idempotency_key: call.idempotency_key,
      provider: call.provider,
      api_family: call.api_family,
      response_id: call.response_id,
      adapter_revision: call.adapter_revision,
    },
    spec,
    principalRef: ref,
    requestSha256,
    resultSha256,
    callBindingSha256,
    downstream: { request_id: bound.request_id, receipt_id: bound.receipt_id, status_ref: bound.status_ref },
  });
  return { model_result: modelResult, protected_audit: audit };
}

/**
 * A succeeded package from a committed record; the data is marked untrusted. `dataText`: the
 * record data's canonical text, when the output check has just written it (see checkHandlerOutput).
 */
export function successPackage(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec,
  record: IdempotencyRecord,
  delivery: Delivery,
  hash: HashFn,
  dataText?: string,
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
  const downstream = {
    request_id: record.downstream_request_id,
    receipt_id: record.receipt_id,
    status_ref: record.status_ref,
  };
  return buildPackage(principal, call, spec, modelResult, record.request_sha256, downstream, hash, dataText);
}

/** Where a person's words start in a `safe_message` ({@link approverSaid}). */
export const APPROVER_SAID = "The approver said: ";

/**
 * A denial's reason as the model reads it: marked as a person's words, quoted, with every
 * invisible, reordering or look-alike character escaped so it reads as it was stored.
 */
export function approverSaid(reason: string): string {
  return `${APPROVER_SAID}${JSON.stringify(visibleText(reason))}`;
}

/** Where an edit's instruction starts in a `safe_message` ({@link approverEdited}). */
export const APPROVER_EDITED = "The approver edited the arguments: call the tool again with exactly these arguments: ";

/**
 * An edited call's instruction as the model reads it: the arguments to call again with, as
 * canonical JSON (exactly what the edited approval admits), then the approver's words, if any,
 * marked as theirs ({@link approverSaid}).
 */
export function approverEdited(args: JsonObject, reason: string | null): string {
  return `${APPROVER_EDITED}${canonicalJson(args)}${reason === null ? "" : ` ${approverSaid(reason)}`}`;
}

/**
 * A failed or unknown package carrying one catalog entry; the dispatcher is its trusted source.
 * `details`: where the arguments fail, for `INVALID_ARGUMENTS` of a tool that explains it.
 * `note` (a denial's {@link approverSaid}, an edit's {@link approverEdited}) follows the catalog's message, only when given.
 */
export function errorPackage(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  code: ErrorCode,
  requestSha256: string,
  now: number,
  hash: HashFn,
  statusRef: string | null = null,
  details?: ArgumentProblem,
  note?: string,
): ResultPackage {
  const policy = ERROR_CATALOG[code];
  const modelResult: ModelResult = {
    schema_version: MODEL_RESULT_SCHEMA_VERSION,
    status: policy.outcome === "unknown" ? "unknown" : "failed",
    data: null,
    error: {
      code,
      category: policy.category,
      safe_message: note === undefined ? policy.safe_message : `${policy.safe_message} ${note}`,
      recovery: policy.recovery,
      retry_after_ms: policy.retry_after_ms,
      ...(details === undefined ? {} : { details: { pointer: details.pointer, expected: details.expected } }),
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
