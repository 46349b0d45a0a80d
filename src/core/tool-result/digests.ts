/**
 * The digests that bind a result to its request, its call and its approval. Each is SHA-256
 * over the reference's canonical JSON, so the values equal the reference's byte for byte.
 * @module
 */
import { canonicalJson, sha256Hex, type Json, type JsonObject } from "../json";
import type { ToolSpec } from "./tool-spec";
import type { Downstream, HashFn, Principal, ToolCall } from "./types";

const MEMO = Symbol("memoized-hash");

/**
 * Wraps a hash so that one text is hashed once. A call computes each binding once; when a
 * package is re-validated, the recomputed canonical text hits the memo instead of SHA-256,
 * yet any change to the package still changes the text and therefore the answer.
 */
export function memoizeHash(hash: HashFn = sha256Hex): HashFn {
  if ((hash as { [MEMO]?: true })[MEMO] === true) return hash;
  const seen = new Map<string, string>();
  const memo = (text: string): string => {
    let hex = seen.get(text);
    if (hex === undefined) {
      hex = hash(text);
      seen.set(text, hex);
    }
    return hex;
  };
  return Object.assign(memo, { [MEMO]: true as const });
}

/** `hash(canonicalJson(value))`; throws JsonDomainError outside the supported JSON domain. */
export function digestWith(hash: HashFn, value: Json): string {
  return hash(canonicalJson(value));
}

/** The audit's `tool_contract`: the registry's revisions, or "unregistered" for an unknown tool. */
export function toolContract(spec: ToolSpec | undefined, name: string): JsonObject {
  if (spec === undefined) {
    return {
      name,
      input_schema_revision: "unregistered",
      output_schema_revision: "unregistered",
      effect_revision: "unregistered",
      handler_revision: "unregistered",
      producer_revision: "unregistered",
      policy_revision: "unregistered",
    };
  }
  return {
    name,
    input_schema_revision: spec.inputSchemaRevision,
    output_schema_revision: spec.outputSchemaRevision,
    effect_revision: spec.effectRevision,
    handler_revision: spec.handlerRevision,
    producer_revision: spec.producerRevision,
    policy_revision: spec.policyRevision,
  };
}

/** `request_sha256`: business intent bound to the subject and the semantic contract revisions. */
export function requestDigest(principal: Principal, call: ToolCall, spec: ToolSpec | undefined, hash: HashFn = sha256Hex): string {
  return digestWith(hash, {
    tenant_id: principal.tenant_id,
    subject_id: principal.subject_id,
    tool: call.name,
    arguments: call.arguments,
    input_schema_revision: spec?.inputSchemaRevision ?? "unregistered",
    output_schema_revision: spec?.outputSchemaRevision ?? "unregistered",
    effect_revision: spec?.effectRevision ?? "unregistered",
  });
}

/** `call_binding_sha256`: a result and its downstream evidence bound to one trusted call context. */
export function callBindingDigest(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  requestSha256: string,
  resultSha256: string,
  downstream: Json | null = null,
  hash: HashFn = sha256Hex,
): string {
  return digestWith(hash, {
    tenant_id: principal.tenant_id,
    subject_id: principal.subject_id,
    provider: call.provider,
    api_family: call.api_family,
    response_id: call.response_id,
    call_id: call.call_id,
    operation_id: call.operation_id,
    idempotency_key: call.idempotency_key,
    adapter_revision: call.adapter_revision,
    tool_contract: toolContract(spec, call.name),
    request_sha256: requestSha256,
    result_sha256: resultSha256,
    downstream: downstream ?? { request_id: null, receipt_id: null, status_ref: null },
  });
}

/** Binds a provider call identity to one proposed action and one purpose, before execution. */
export function callFingerprint(
  call: ToolCall,
  requestSha256: string,
  purpose: "dispatch" | "query_status",
  hash: HashFn = sha256Hex,
): string {
  return digestWith(hash, {
    provider: call.provider,
    api_family: call.api_family,
    response_id: call.response_id,
    call_id: call.call_id,
    operation_id: call.operation_id,
    idempotency_key: call.idempotency_key,
    adapter_revision: call.adapter_revision,
    purpose,
    request_sha256: requestSha256,
  });
}

/** Binds an approval to intent, correlation, effects, policy and the approver. */
export function approvalDigest(
  call: ToolCall,
  spec: ToolSpec,
  requestSha256: string,
  approverId: string,
  hash: HashFn = sha256Hex,
): string {
  return digestWith(hash, {
    provider: call.provider,
    api_family: call.api_family,
    adapter_revision: call.adapter_revision,
    operation_id: call.operation_id,
    call_id: call.call_id,
    response_id: call.response_id,
    idempotency_key: call.idempotency_key,
    request_sha256: requestSha256,
    input_schema_revision: spec.inputSchemaRevision,
    output_schema_revision: spec.outputSchemaRevision,
    effect_revision: spec.effectRevision,
    approval_revision: spec.policyRevision,
    approver_id: approverId,
  });
}

/** `principal_ref`: the audit names the principal only by digest. */
export function principalRef(principal: Principal, hash: HashFn = sha256Hex): string {
  return "sha256:" + digestWith(hash, { tenant_id: principal.tenant_id, subject_id: principal.subject_id });
}

/** The status reference of a write: derived from its idempotency scope and request digest. */
export function statusRef(scope: readonly string[], requestSha256: string, hash: HashFn = sha256Hex): string {
  return "status_" + digestWith(hash, { scope: [...scope], request_sha256: requestSha256 }).slice(0, 32);
}

/** The unused `Downstream` default, exported for callers building packages by hand. */
export const NO_DOWNSTREAM: Downstream = Object.freeze({ request_id: null, receipt_id: null, status_ref: null });
