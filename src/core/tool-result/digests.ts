/**
 * The digests that bind a result to its request, its call and its approval. Each is SHA-256
 * over the reference's canonical JSON, so the values equal the reference's byte for byte.
 * @module
 */
import { sha256Hex, type Json, type JsonObject } from "../json";
import { documentTemplate, m, templated } from "./document-template";
import { digestWith, memoizeHash } from "./hash-memo";
import type { ToolSpec } from "./tool-spec";

export { digestWith, memoizeHash };
import type { Downstream, HashFn, Principal, ToolCall } from "./types";

/** The members of `request_sha256`, each a field of an approval's view (docs/approvals.md). */
export const REQUEST_DIGEST_FIELDS = ["tenant_id", "subject_id", "tool", "arguments", "input_schema_revision", "output_schema_revision", "effect_revision"] as const;
/** The members of `approval_digest`, each a field of an approval's view (docs/approvals.md). */
export const APPROVAL_DIGEST_FIELDS = [
  "provider",
  "api_family",
  "adapter_revision",
  "operation_id",
  "call_id",
  "response_id",
  "idempotency_key",
  "request_sha256",
  "input_schema_revision",
  "output_schema_revision",
  "effect_revision",
  "approval_revision",
  "approver_id",
] as const;
const REQUEST = documentTemplate(REQUEST_DIGEST_FIELDS);
const TOOL_CONTRACT = documentTemplate([
  "name",
  "input_schema_revision",
  "output_schema_revision",
  "effect_revision",
  "handler_revision",
  "producer_revision",
  "policy_revision",
]);
const DOWNSTREAM = documentTemplate(["request_id", "receipt_id", "status_ref"]);
const CALL_BINDING = documentTemplate([
  "tenant_id",
  "subject_id",
  "provider",
  "api_family",
  "response_id",
  "call_id",
  "operation_id",
  "idempotency_key",
  "adapter_revision",
  "tool_contract",
  "request_sha256",
  "result_sha256",
  "downstream",
]);
const FINGERPRINT = documentTemplate([
  "provider",
  "api_family",
  "response_id",
  "call_id",
  "operation_id",
  "idempotency_key",
  "adapter_revision",
  "purpose",
  "request_sha256",
]);
const APPROVAL = documentTemplate(APPROVAL_DIGEST_FIELDS);
const PRINCIPAL = documentTemplate(["tenant_id", "subject_id"]);

// Registry entries never change, so each tool contract's canonical text is written once.
const toolContractTexts = new WeakMap<ToolSpec, string>();

function toolContractText(spec: ToolSpec | undefined, name: string): string {
  const cached = spec === undefined ? undefined : toolContractTexts.get(spec);
  if (cached !== undefined) return cached;
  const contract = toolContract(spec, name);
  const text = TOOL_CONTRACT({
    name: m(contract["name"], 2),
    input_schema_revision: m(contract["input_schema_revision"], 2),
    output_schema_revision: m(contract["output_schema_revision"], 2),
    effect_revision: m(contract["effect_revision"], 2),
    handler_revision: m(contract["handler_revision"], 2),
    producer_revision: m(contract["producer_revision"], 2),
    policy_revision: m(contract["policy_revision"], 2),
  });
  if (spec !== undefined) toolContractTexts.set(spec, text);
  return text;
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
  const document = (): JsonObject => ({
    tenant_id: principal.tenant_id,
    subject_id: principal.subject_id,
    tool: call.name,
    arguments: call.arguments,
    input_schema_revision: spec?.inputSchemaRevision ?? "unregistered",
    output_schema_revision: spec?.outputSchemaRevision ?? "unregistered",
    effect_revision: spec?.effectRevision ?? "unregistered",
  });
  return hash(
    templated(
      () =>
        REQUEST({
          tenant_id: m(principal.tenant_id),
          subject_id: m(principal.subject_id),
          tool: m(call.name),
          arguments: m(call.arguments),
          input_schema_revision: m(spec?.inputSchemaRevision ?? "unregistered"),
          output_schema_revision: m(spec?.outputSchemaRevision ?? "unregistered"),
          effect_revision: m(spec?.effectRevision ?? "unregistered"),
        }),
      document,
    ),
  );
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
  const bound = downstream ?? { request_id: null, receipt_id: null, status_ref: null };
  const document = (): JsonObject => ({
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
    downstream: bound,
  });
  const fast = (): string => {
    const d = bound as Record<string, unknown>;
    // Only the exact three-field shape takes the template; anything else is encoded generically.
    const downstreamText =
      typeof bound === "object" && bound !== null && !Array.isArray(bound) && Object.keys(bound).length === 3 &&
      Object.hasOwn(bound, "request_id") && Object.hasOwn(bound, "receipt_id") && Object.hasOwn(bound, "status_ref")
        ? DOWNSTREAM({ request_id: m(d["request_id"], 2), receipt_id: m(d["receipt_id"], 2), status_ref: m(d["status_ref"], 2) })
        : m(bound);
    return CALL_BINDING({
      tenant_id: m(principal.tenant_id),
      subject_id: m(principal.subject_id),
      provider: m(call.provider),
      api_family: m(call.api_family),
      response_id: m(call.response_id),
      call_id: m(call.call_id),
      operation_id: m(call.operation_id),
      idempotency_key: m(call.idempotency_key),
      adapter_revision: m(call.adapter_revision),
      tool_contract: toolContractText(spec, call.name),
      request_sha256: m(requestSha256),
      result_sha256: m(resultSha256),
      downstream: downstreamText,
    });
  };
  return hash(templated(fast, document));
}

/** Binds a provider call identity to one proposed action and one purpose, before execution. */
export function callFingerprint(
  call: ToolCall,
  requestSha256: string,
  purpose: "dispatch" | "query_status",
  hash: HashFn = sha256Hex,
): string {
  const document = (): JsonObject => ({
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
  const fast = (): string =>
    FINGERPRINT({
      provider: m(call.provider),
      api_family: m(call.api_family),
      response_id: m(call.response_id),
      call_id: m(call.call_id),
      operation_id: m(call.operation_id),
      idempotency_key: m(call.idempotency_key),
      adapter_revision: m(call.adapter_revision),
      purpose: m(purpose),
      request_sha256: m(requestSha256),
    });
  return hash(templated(fast, document));
}

/** Every input of an approval digest, by the name it is hashed under (an approver's view shows them). */
export function approvalDigestInputs(call: ToolCall, spec: ToolSpec, requestSha256: string, approverId: string) {
  return {
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
  };
}

/** Binds an approval to intent, correlation, effects, policy and the approver. */
export function approvalDigest(
  call: ToolCall,
  spec: ToolSpec,
  requestSha256: string,
  approverId: string,
  hash: HashFn = sha256Hex,
): string {
  const document = (): JsonObject => approvalDigestInputs(call, spec, requestSha256, approverId);
  const fast = (): string =>
    APPROVAL({
      provider: m(call.provider),
      api_family: m(call.api_family),
      adapter_revision: m(call.adapter_revision),
      operation_id: m(call.operation_id),
      call_id: m(call.call_id),
      response_id: m(call.response_id),
      idempotency_key: m(call.idempotency_key),
      request_sha256: m(requestSha256),
      input_schema_revision: m(spec.inputSchemaRevision),
      output_schema_revision: m(spec.outputSchemaRevision),
      effect_revision: m(spec.effectRevision),
      approval_revision: m(spec.policyRevision),
      approver_id: m(approverId),
    });
  return hash(templated(fast, document));
}

/** `principal_ref`: the audit names the principal only by digest. */
export function principalRef(principal: Principal, hash: HashFn = sha256Hex): string {
  const document = (): JsonObject => ({ tenant_id: principal.tenant_id, subject_id: principal.subject_id });
  const fast = (): string => PRINCIPAL({ tenant_id: m(principal.tenant_id), subject_id: m(principal.subject_id) });
  return `sha256:${hash(templated(fast, document))}`;
}

/** The status reference of a write: derived from its idempotency scope and request digest. */
export function statusRef(scope: readonly string[], requestSha256: string, hash: HashFn = sha256Hex): string {
  return "status_" + digestWith(hash, { scope: [...scope], request_sha256: requestSha256 }).slice(0, 32);
}

/** The unused `Downstream` default, exported for callers building packages by hand. */
export const NO_DOWNSTREAM: Downstream = Object.freeze({ request_id: null, receipt_id: null, status_ref: null });
