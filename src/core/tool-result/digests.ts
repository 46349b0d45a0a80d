/**
 * The digests that bind a result to its request, its call and its approval. Each is SHA-256
 * over the reference's canonical JSON, so the values equal the reference's byte for byte.
 *
 * Every document has a fixed shape, so its text is written directly: the keys in code-point
 * order (as `canonicalJson` sorts them), each member encoded on its own. A member outside the
 * JSON domain falls back to `canonicalJson` of the whole document, whose error is the generic one.
 * @module
 */
import { canonicalJson, JsonDomainError, sha256Hex, type Json, type JsonObject } from "../json";
import { m } from "./document-template";
import { digestWith, hashRecurring, memoizeHash } from "./hash-memo";
import type { ToolSpec } from "./tool-spec";
import type { Downstream, HashFn, Principal, ToolCall } from "./types";

export { digestWith, memoizeHash };

/** The members of `request_sha256`, each a field of an approval's view (docs/approvals.md). */
export const REQUEST_DIGEST_FIELDS = [
  "tenant_id",
  "subject_id",
  "tool",
  "arguments",
  "input_schema_revision",
  "output_schema_revision",
  "effect_revision",
] as const;
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

/** The generic encoder's text of `document`, for a member the direct writer refused. */
function generic(error: unknown, document: () => Json): string {
  if (!(error instanceof JsonDomainError)) throw error;
  return canonicalJson(document());
}

/** A registered tool's revisions as written inside the documents: they never change, so written once. */
interface SpecTexts {
  /** `tool_contract`'s text (a member one level down). */
  readonly toolContract: string;
  /** The three adjacent revision members of `request_sha256`, in order. */
  readonly requestRevisions: string;
  readonly effect: string;
  readonly input: string;
  readonly output: string;
  readonly policy: string;
}

const specTexts = new WeakMap<ToolSpec, SpecTexts>();
const UNREGISTERED = '"unregistered"';
const UNREGISTERED_REVISIONS = `"effect_revision":${UNREGISTERED},"input_schema_revision":${UNREGISTERED},"output_schema_revision":${UNREGISTERED}`;

/** Throws JsonDomainError (not cached) when a revision is outside the domain. */
function textsOf(spec: ToolSpec): SpecTexts {
  const cached = specTexts.get(spec);
  if (cached !== undefined) return cached;
  const effect = m(spec.effectRevision);
  const input = m(spec.inputSchemaRevision);
  const output = m(spec.outputSchemaRevision);
  const texts: SpecTexts = {
    toolContract: toolContractText(spec.name, spec),
    requestRevisions: `"effect_revision":${effect},"input_schema_revision":${input},"output_schema_revision":${output}`,
    effect,
    input,
    output,
    policy: m(spec.policyRevision),
  };
  specTexts.set(spec, texts);
  return texts;
}

function toolContractText(name: string, spec: ToolSpec | undefined): string {
  const revision = (value: string | undefined): string => (value === undefined ? UNREGISTERED : m(value, 2));
  return (
    `{"effect_revision":${revision(spec?.effectRevision)},"handler_revision":${revision(spec?.handlerRevision)},` +
    `"input_schema_revision":${revision(spec?.inputSchemaRevision)},"name":${m(name, 2)},` +
    `"output_schema_revision":${revision(spec?.outputSchemaRevision)},"policy_revision":${revision(spec?.policyRevision)},` +
    `"producer_revision":${revision(spec?.producerRevision)}}`
  );
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
export function requestDigest(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  hash: HashFn = sha256Hex,
): string {
  let text: string;
  try {
    const revisions = spec === undefined ? UNREGISTERED_REVISIONS : textsOf(spec).requestRevisions;
    text = `{"arguments":${m(call.arguments)},${revisions},"subject_id":${m(principal.subject_id)},"tenant_id":${m(principal.tenant_id)},"tool":${m(call.name)}}`;
  } catch (error) {
    text = generic(error, () => ({
      tenant_id: principal.tenant_id,
      subject_id: principal.subject_id,
      tool: call.name,
      arguments: call.arguments,
      input_schema_revision: spec?.inputSchemaRevision ?? "unregistered",
      output_schema_revision: spec?.outputSchemaRevision ?? "unregistered",
      effect_revision: spec?.effectRevision ?? "unregistered",
    }));
  }
  return hash(text);
}

/** The `downstream` member of a call binding: the three-field record directly, any other value generically. */
function downstreamText(bound: Json): string {
  if (typeof bound !== "object" || bound === null || Array.isArray(bound)) return m(bound);
  const d = bound as JsonObject;
  // Only the exact three-field shape takes the direct writer; anything else is encoded generically.
  if (
    Object.keys(d).length !== 3 ||
    !Object.hasOwn(d, "request_id") ||
    !Object.hasOwn(d, "receipt_id") ||
    !Object.hasOwn(d, "status_ref")
  ) {
    return m(bound);
  }
  return `{"receipt_id":${m(d["receipt_id"], 2)},"request_id":${m(d["request_id"], 2)},"status_ref":${m(d["status_ref"], 2)}}`;
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
  let text: string;
  try {
    const contract =
      spec === undefined || spec.name !== call.name ? toolContractText(call.name, spec) : textsOf(spec).toolContract;
    text =
      `{"adapter_revision":${m(call.adapter_revision)},"api_family":${m(call.api_family)},"call_id":${m(call.call_id)},` +
      `"downstream":${downstreamText(bound)},"idempotency_key":${m(call.idempotency_key)},"operation_id":${m(call.operation_id)},` +
      `"provider":${m(call.provider)},"request_sha256":${m(requestSha256)},"response_id":${m(call.response_id)},` +
      `"result_sha256":${m(resultSha256)},"subject_id":${m(principal.subject_id)},"tenant_id":${m(principal.tenant_id)},` +
      `"tool_contract":${contract}}`;
  } catch (error) {
    text = generic(error, () => ({
      tenant_id: principal.tenant_id,
      subject_id: principal.subject_id,
      ...callIdentity(call),
      tool_contract: toolContract(spec, call.name),
      request_sha256: requestSha256,
      result_sha256: resultSha256,
      downstream: bound,
    }));
  }
  return hash(text);
}

/** The provider call identity's members (the generic encoder's input when a fast path refuses). */
function callIdentity(call: ToolCall) {
  return {
    provider: call.provider,
    api_family: call.api_family,
    response_id: call.response_id,
    call_id: call.call_id,
    operation_id: call.operation_id,
    idempotency_key: call.idempotency_key,
    adapter_revision: call.adapter_revision,
  };
}

/** Binds a provider call identity to one proposed action and one purpose, before execution. */
export function callFingerprint(
  call: ToolCall,
  requestSha256: string,
  purpose: "dispatch" | "query_status",
  hash: HashFn = sha256Hex,
): string {
  let text: string;
  try {
    text =
      `{"adapter_revision":${m(call.adapter_revision)},"api_family":${m(call.api_family)},"call_id":${m(call.call_id)},` +
      `"idempotency_key":${m(call.idempotency_key)},"operation_id":${m(call.operation_id)},"provider":${m(call.provider)},` +
      `"purpose":${m(purpose)},"request_sha256":${m(requestSha256)},"response_id":${m(call.response_id)}}`;
  } catch (error) {
    text = generic(error, () => ({
      ...callIdentity(call),
      purpose,
      request_sha256: requestSha256,
    }));
  }
  return hash(text);
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
  let text: string;
  try {
    const s = textsOf(spec);
    text =
      `{"adapter_revision":${m(call.adapter_revision)},"api_family":${m(call.api_family)},"approval_revision":${s.policy},` +
      `"approver_id":${m(approverId)},"call_id":${m(call.call_id)},"effect_revision":${s.effect},` +
      `"idempotency_key":${m(call.idempotency_key)},"input_schema_revision":${s.input},"operation_id":${m(call.operation_id)},` +
      `"output_schema_revision":${s.output},"provider":${m(call.provider)},"request_sha256":${m(requestSha256)},` +
      `"response_id":${m(call.response_id)}}`;
  } catch (error) {
    text = generic(error, () => approvalDigestInputs(call, spec, requestSha256, approverId));
  }
  return hash(text);
}

/** `principal_ref`: the audit names the principal only by digest. */
export function principalRef(principal: Principal, hash: HashFn = sha256Hex): string {
  let text: string;
  try {
    text = `{"subject_id":${m(principal.subject_id)},"tenant_id":${m(principal.tenant_id)}}`;
  } catch (error) {
    text = generic(error, () => ({ tenant_id: principal.tenant_id, subject_id: principal.subject_id }));
  }
  // A principal makes call after call: its reference is hashed once, not on every call.
  return `sha256:${hashRecurring(hash, text)}`;
}

/** The status reference of a write: derived from its idempotency scope and request digest. */
export function statusRef(scope: readonly string[], requestSha256: string, hash: HashFn = sha256Hex): string {
  let text: string;
  try {
    text = `{"request_sha256":${m(requestSha256)},"scope":${m(scope)}}`;
  } catch (error) {
    text = generic(error, () => ({ scope: [...scope], request_sha256: requestSha256 }));
  }
  return "status_" + hash(text).slice(0, 32);
}

/** The unused `Downstream` default, exported for callers building packages by hand. */
export const NO_DOWNSTREAM: Downstream = Object.freeze({ request_id: null, receipt_id: null, status_ref: null });
