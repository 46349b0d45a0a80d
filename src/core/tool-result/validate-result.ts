/**
 * Re-validation of a package before it reaches a provider adapter: every field against the
 * contracts, every binding recomputed from the current principal, call and registry.
 * @module
 */
import { JsonDomainError, sha256Hex, type Json } from "../json";
import {
  AUDIT_SCHEMA_VERSION,
  DISPATCHER_REVISION,
  DISPATCHER_SOURCE_LABEL,
  isOneOf,
  isRegisteredProfile,
  MODEL_RESULT_SCHEMA_VERSION,
  VALID_DELIVERIES,
  VALID_OUTCOMES,
  VALID_STATUSES,
  VALID_TRUST,
} from "./constants";
import { callBindingDigest, principalRef, requestDigest } from "./digests";
import { argumentDetails } from "./argument-problem";
import { ERROR_CATALOG, isErrorCode, type ErrorCode } from "./error-catalog";
import { exactFields } from "./exact-fields";
import { validateHandlerResult } from "./output-contract";
import { APPROVER_EDITED, APPROVER_SAID, canonicalOfResult, trustedBindings, type BuiltBindings } from "./packages";
import { isNonemptyString, isPlainObject } from "./text-rules";
import type { ToolSpec } from "./tool-spec";
import type { Downstream, HashFn, Principal, ToolCall } from "./types";
import { isRfc3339UtcSecond } from "./utc-time";

const PACKAGE_FIELDS = ["model_result", "protected_audit"];
const MODEL_RESULT_FIELDS = ["schema_version", "status", "data", "error", "execution", "provenance"];
const MODEL_ERROR_FIELDS = ["code", "category", "safe_message", "recovery", "retry_after_ms"];
const EXPLAINED_ERROR_FIELDS = [...MODEL_ERROR_FIELDS, "details"];
const DETAILS_FIELDS = ["pointer", "expected"];
const EXECUTION_FIELDS = ["outcome", "delivery", "complete", "truncated"];
const PROVENANCE_FIELDS = ["source_label", "producer_revision", "resource_revision", "observed_at", "trust"];
const AUDIT_FIELDS = [
  "schema_version",
  "visibility",
  "operation_id",
  "principal_ref",
  "provider_context",
  "tool_contract",
  "binding",
  "downstream",
  "redactions",
];
const PROVIDER_CONTEXT_FIELDS = ["provider", "api_family", "response_id", "call_id", "adapter_revision"];
const TOOL_CONTRACT_FIELDS = [
  "name",
  "input_schema_revision",
  "output_schema_revision",
  "effect_revision",
  "handler_revision",
  "producer_revision",
  "policy_revision",
];
const BINDING_FIELDS = ["request_sha256", "result_sha256", "call_binding_sha256"];
const DOWNSTREAM_FIELDS = ["request_id", "receipt_id", "status_ref"];
const STATUS_REF_PATTERN = /^status_[0-9a-f]{32}$/;

/** `^[0-9a-f]{64}$` without a regular expression (three per package, on every call). */
function isHex64(value: unknown): boolean {
  if (typeof value !== "string" || value.length !== 64) return false;
  for (let i = 0; i < 64; i++) {
    const c = value.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** The audit's `tool_contract` fields equal the registry's (Python `dict ==` on the exact field set). */
function sameContract(contract: Record<string, unknown>, spec: ToolSpec | undefined, name: string): boolean {
  if (contract["name"] !== name) return false;
  if (spec === undefined) {
    for (let i = 1; i < TOOL_CONTRACT_FIELDS.length; i++)
      if (contract[TOOL_CONTRACT_FIELDS[i] as string] !== "unregistered") return false;
    return true;
  }
  return (
    contract["input_schema_revision"] === spec.inputSchemaRevision &&
    contract["output_schema_revision"] === spec.outputSchemaRevision &&
    contract["effect_revision"] === spec.effectRevision &&
    contract["handler_revision"] === spec.handlerRevision &&
    contract["producer_revision"] === spec.producerRevision &&
    contract["policy_revision"] === spec.policyRevision
  );
}

/**
 * A denial's message: the catalog's, then the approver's quoted words (packages.ts `approverSaid`);
 * or an edit's: the catalog's, the arguments to call again with, then the words if any (`approverEdited`).
 */
function isDenialNote(code: ErrorCode, message: unknown): boolean {
  if (code !== "APPROVAL_INVALID" || typeof message !== "string") return false;
  const said = (text: string) =>
    text.length > APPROVER_SAID.length + 1 && text.startsWith(`${APPROVER_SAID}"`) && text.endsWith('"');
  const catalog = `${ERROR_CATALOG[code].safe_message} `;
  if (!message.startsWith(catalog)) return false;
  const note = message.slice(catalog.length);
  if (said(note)) return true;
  if (!note.startsWith(`${APPROVER_EDITED}{`)) return false;
  if (note.endsWith("}")) return true;
  const words = note.indexOf(`} ${APPROVER_SAID}"`, APPROVER_EDITED.length);
  return words > 0 && said(note.slice(words + 2));
}

/**
 * `error.details`: present exactly when the dispatcher writes it (`INVALID_ARGUMENTS` of a tool
 * that explains it), and equal to what it computes from the current call and registry.
 */
function validateDetails(error: Record<string, unknown>, spec: ToolSpec | undefined, call: ToolCall, errors: string[]) {
  const expected = error["code"] === "INVALID_ARGUMENTS" ? argumentDetails(spec, call.arguments) : undefined;
  if (expected === undefined) return;
  const details = error["details"];
  if (
    !exactFields(details, DETAILS_FIELDS, "model_result.error.details", errors) ||
    details["pointer"] !== expected.pointer ||
    details["expected"] !== expected.expected
  )
    errors.push("model_result.error.details does not match the arguments and the registry");
}

function validateErrorModel(
  model: Record<string, unknown>,
  spec: ToolSpec | undefined,
  call: ToolCall,
  errors: string[],
): void {
  const error = model["error"];
  const explained = isPlainObject(error) && error["code"] === "INVALID_ARGUMENTS" && spec?.explainsArguments === true;
  if (!exactFields(error, explained ? EXPLAINED_ERROR_FIELDS : MODEL_ERROR_FIELDS, "model_result.error", errors))
    return;
  if (explained) validateDetails(error, spec, call, errors);
  const code = error["code"];
  if (!isErrorCode(code)) {
    errors.push("model_result.error.code is invalid");
    return;
  }
  const policy = ERROR_CATALOG[code];
  const expected: Record<string, unknown> = {
    category: policy.category,
    safe_message: policy.safe_message,
    recovery: policy.recovery,
    retry_after_ms: policy.retry_after_ms,
  };
  for (const field of Object.keys(expected)) {
    if (error[field] !== expected[field] && !(field === "safe_message" && isDenialNote(code, error[field])))
      errors.push(`model_result.error.${field} does not use a fixed error-catalog value`);
  }
  if (model["status"] !== (policy.outcome === "unknown" ? "unknown" : "failed")) {
    errors.push("model_result.status anderror outcome is inconsistent");
  }
  const execution = model["execution"];
  if (isPlainObject(execution) && execution["outcome"] !== policy.outcome) {
    errors.push("model_result.execution.outcome anderrorcatalogis inconsistent");
  }
}

function validateModel(
  model: Record<string, unknown>,
  call: ToolCall,
  spec: ToolSpec | undefined,
  errors: string[],
): void {
  if (model["schema_version"] !== MODEL_RESULT_SCHEMA_VERSION)
    errors.push("model_result.schema_version does not match");
  if (!isOneOf(VALID_STATUSES, model["status"])) errors.push("model_result.status is invalid");
  const execution = model["execution"];
  if (exactFields(execution, EXECUTION_FIELDS, "model_result.execution", errors)) {
    if (!isOneOf(VALID_OUTCOMES, execution["outcome"])) errors.push("model_result.execution.outcome is invalid");
    if (!isOneOf(VALID_DELIVERIES, execution["delivery"])) errors.push("model_result.execution.delivery is invalid");
    if (execution["complete"] !== true || execution["truncated"] !== false) {
      errors.push("the example contract accepts only complete=true and truncated=false");
    }
  }
  const provenance = model["provenance"];
  const provenanceValid = exactFields(provenance, PROVENANCE_FIELDS, "model_result.provenance", errors);
  if (provenanceValid) {
    for (const field of ["source_label", "producer_revision"]) {
      if (!isNonemptyString(provenance[field])) errors.push(`model_result.provenance.${field} must be non-emptystring`);
    }
    if (provenance["resource_revision"] !== null && !isNonemptyString(provenance["resource_revision"])) {
      errors.push("model_result.provenance.resource_revision is invalid");
    }
    if (!isRfc3339UtcSecond(provenance["observed_at"])) errors.push("model_result.provenance.observed_at is invalid");
    if (!isOneOf(VALID_TRUST, provenance["trust"])) errors.push("model_result.provenance.trust is invalid");
  }
  const prov = isPlainObject(provenance) ? provenance : undefined;
  if (model["status"] === "succeeded") {
    if (model["error"] !== null || !isPlainObject(model["data"]))
      errors.push("a successful result must have data=object and error=null");
    if (!isPlainObject(execution) || execution["outcome"] !== "committed")
      errors.push("a successful result must have outcome=committed");
    if (prov?.["trust"] !== "untrusted_data") errors.push("business results must be marked untrusted_data");
    if (spec === undefined) {
      errors.push("an unregistered tool cannot produce a successful result");
    } else if (isPlainObject(model["data"]) && provenanceValid) {
      const raw = {
        data: model["data"] as Json,
        producer_revision: provenance["producer_revision"],
        resource_revision: provenance["resource_revision"],
        observed_at: provenance["observed_at"],
      };
      errors.push(...validateHandlerResult(spec, call, raw));
      if (provenance["source_label"] !== spec.producerLabel) errors.push("source_label andregistryis inconsistent");
    }
  } else {
    if (model["data"] !== null) errors.push("a failed or unknown result must have data=null");
    validateErrorModel(model, spec, call, errors);
    if (prov?.["trust"] !== "trusted_control")
      errors.push("error-catalog control fields must be marked trusted_control");
    if (prov?.["source_label"] !== DISPATCHER_SOURCE_LABEL) errors.push("the dispatcher must fix the error origin");
    if (prov?.["producer_revision"] !== DISPATCHER_REVISION)
      errors.push("the dispatcher must fix the error producer_revision");
  }
}

/** True when `downstream` is exactly the three-field record `bound` (same values, no extras). */
function sameDownstream(bound: Downstream, downstream: Json | null): boolean {
  if (typeof downstream !== "object" || downstream === null || Array.isArray(downstream)) return false;
  const record = downstream as Record<string, Json>;
  return (
    Object.keys(record).length === 3 &&
    record["request_id"] === bound.request_id &&
    record["receipt_id"] === bound.receipt_id &&
    record["status_ref"] === bound.status_ref
  );
}

function validateBinding(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  model: Record<string, unknown>,
  audit: Record<string, unknown>,
  downstreamValid: boolean,
  hash: HashFn,
  errors: string[],
  trusted: BuiltBindings | undefined,
): void {
  const binding = audit["binding"];
  if (!exactFields(binding, BINDING_FIELDS, "protected_audit.binding", errors)) return;
  for (const field of BINDING_FIELDS) {
    const value = binding[field];
    if (!isHex64(value)) {
      errors.push(`protected_audit.binding.${field} must be full 64-character hexadecimal digest`);
    }
  }
  let expectedRequest: string;
  let expectedResult: string;
  let expectedCallBinding: string;
  try {
    // Always recomputed: the arguments are not frozen. With the call's memo it costs the text only.
    expectedRequest = requestDigest(principal, call, spec, hash);
    expectedResult = hash(canonicalOfResult(model as Json));
    const downstream = downstreamValid ? (audit["downstream"] as Json) : null;
    // Every other input of the call binding was compared by trustedBindings; equal inputs, equal digest.
    expectedCallBinding =
      trusted !== undefined &&
      trusted.requestSha256 === expectedRequest &&
      trusted.resultSha256 === expectedResult &&
      sameDownstream(trusted.downstream, downstream)
        ? trusted.callBindingSha256
        : callBindingDigest(principal, call, spec, expectedRequest, expectedResult, downstream, hash);
  } catch (error) {
    if (!(error instanceof JsonDomainError)) throw error;
    errors.push(`cannot recompute bindings: ${error.message}`);
    return;
  }
  if (binding["request_sha256"] !== expectedRequest) {
    errors.push("request_sha256 is inconsistent with the current principal/arguments/contract");
  }
  if (binding["result_sha256"] !== expectedResult)
    errors.push("result_sha256 is inconsistent with the model-visible result");
  if (binding["call_binding_sha256"] !== expectedCallBinding) {
    errors.push("call_binding_sha256 is inconsistent with the current provider turn/result");
  }
}

/**
 * The reference's `validate_result`: every problem with `pkg` for this principal, call and
 * registry entry; empty means the package may be projected. Pass the memoized hash the call
 * was dispatched with to avoid hashing the same documents twice.
 */
export function validateResult(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  pkg: unknown,
  hash: HashFn = sha256Hex,
): string[] {
  const errors: string[] = [];
  if (!isRegisteredProfile(call.provider, call.api_family, call.adapter_revision)) {
    errors.push("current call   provider profile/adapter revision is not registered");
  }
  if (!exactFields(pkg, PACKAGE_FIELDS, "package", errors)) return errors;
  const model = pkg["model_result"];
  const audit = pkg["protected_audit"];
  if (!exactFields(model, MODEL_RESULT_FIELDS, "model_result", errors)) return errors;
  if (!exactFields(audit, AUDIT_FIELDS, "protected_audit", errors)) return errors;
  validateModel(model, call, spec, errors);
  if (audit["schema_version"] !== AUDIT_SCHEMA_VERSION) errors.push("protected_audit.schema_version does not match");
  if (audit["visibility"] !== "protected_audit") errors.push("protected_audit.visibility is invalid");
  if (audit["operation_id"] !== call.operation_id)
    errors.push("protected_audit.operation_id is not bound to the current operation");
  const trusted = trustedBindings(audit, principal, call, spec);
  if (audit["principal_ref"] !== (trusted?.principalRef ?? principalRef(principal, hash))) {
    errors.push("protected_audit.principal_ref is not bound to the current principal");
  }
  const providerContext = audit["provider_context"];
  if (exactFields(providerContext, PROVIDER_CONTEXT_FIELDS, "protected_audit.provider_context", errors)) {
    const same =
      providerContext["provider"] === call.provider &&
      providerContext["api_family"] === call.api_family &&
      providerContext["response_id"] === call.response_id &&
      providerContext["call_id"] === call.call_id &&
      providerContext["adapter_revision"] === call.adapter_revision;
    if (!same) errors.push("provider_context is not bound to the current provider response/call");
  }
  const contract = audit["tool_contract"];
  if (exactFields(contract, TOOL_CONTRACT_FIELDS, "protected_audit.tool_contract", errors)) {
    if (!sameContract(contract, spec, call.name))
      errors.push("tool_contract is inconsistent with the trusted registry");
  }
  const downstream = audit["downstream"];
  const downstreamValid = exactFields(downstream, DOWNSTREAM_FIELDS, "protected_audit.downstream", errors);
  if (downstreamValid) {
    for (const field of DOWNSTREAM_FIELDS) {
      if (downstream[field] !== null && !isNonemptyString(downstream[field]))
        errors.push(`protected_audit.downstream.${field} is invalid`);
    }
    const ref = downstream["status_ref"];
    if (ref !== null && (typeof ref !== "string" || !STATUS_REF_PATTERN.test(ref))) {
      errors.push("protected_audit.downstream.status_ref format is invalid");
    }
  }
  validateBinding(principal, call, spec, model, audit, downstreamValid, hash, errors, trusted);
  const redactions = audit["redactions"];
  const redactionsOk = Array.isArray(redactions) && redactions.every((item) => isNonemptyString(item));
  if (!redactionsOk && !(Array.isArray(redactions) && redactions.length === 0)) {
    errors.push("protected_audit.redactions must be a list of strings");
  }
  return errors;
}
