/**
 * Dispatcher state records and the comparisons on them: call-identity bindings, idempotency
 * records, unknown outcomes and in-flight marks, all plain JSON in the store.
 * @module
 */
import type { Json, JsonObject } from "../json";
import type { IdempotencyRecord } from "./packages";
import { claimByGetPut, storeKey, type ToolResultStore } from "./store";
import type { ToolSpec } from "./tool-spec";
import type { HandlerResult, Principal, ToolCall } from "./types";

/** A write whose outcome the dispatcher cannot know: it may have committed downstream. */
export interface UnknownOutcome {
  readonly [key: string]: Json;
  readonly scope: string[];
  readonly request_sha256: string;
  readonly provider: string;
  readonly api_family: string;
  readonly adapter_revision: string;
  readonly effect_revision: string;
  readonly producer_revision: string;
  readonly status_ref: string;
}

/**
 * Whether the downstream has confirmed that this unknown write never executed and never will
 * (it fenced the key; stored as `not_executed: true`): the key then answers `TOOL_ERROR`, not
 * started, instead of `OUTCOME_UNKNOWN`.
 */
export function isNotExecuted(outcome: UnknownOutcome): boolean {
  return outcome["not_executed"] === true;
}

/** A write whose handler has been handed out but not completed; enough to recover it. */
export interface InFlightRecord extends UnknownOutcome {
  readonly principal: JsonObject;
  readonly call: JsonObject;
}

/** Idempotency scope of a write: tenant, subject, tool and idempotency key. */
export function idempotencyScope(principal: Principal, call: ToolCall): string[] {
  if (call.idempotency_key === null) throw new Error("write action is missing an idempotency key");
  return [principal.tenant_id, principal.subject_id, call.name, call.idempotency_key];
}

/** A copy of a principal (a ticket must not share the caller's arrays). */
export function principalCopy(principal: Principal): Principal & { readonly roles: string[] } {
  return { tenant_id: principal.tenant_id, subject_id: principal.subject_id, roles: [...principal.roles] };
}

/** Plain-JSON copy of a principal, for records. */
export function principalJson(principal: Principal): JsonObject {
  return { tenant_id: principal.tenant_id, subject_id: principal.subject_id, roles: [...principal.roles] };
}

/** A copy of a call's fields (nothing else rides along into a ticket). */
export function callCopy(call: ToolCall): ToolCall {
  return {
    call_id: call.call_id,
    operation_id: call.operation_id,
    name: call.name,
    arguments: call.arguments,
    idempotency_key: call.idempotency_key,
    provider: call.provider,
    api_family: call.api_family,
    response_id: call.response_id,
    adapter_revision: call.adapter_revision,
  };
}

function text(record: JsonObject, key: string): string {
  const value = record[key];
  if (typeof value !== "string") throw new Error(`stored record field ${key} is not text`);
  return value;
}

/** The principal of a record this engine stored with {@link principalJson}; a corrupt one is a bug. */
export function principalFromJson(record: JsonObject): Principal {
  const roles = record["roles"];
  if (!Array.isArray(roles) || !roles.every((role): role is string => typeof role === "string"))
    throw new Error("stored principal roles are not text");
  return { tenant_id: text(record, "tenant_id"), subject_id: text(record, "subject_id"), roles };
}

/** The call of a record this engine stored with {@link callJson}; a corrupt one is a bug. */
export function callFromJson(record: JsonObject): ToolCall {
  const args = record["arguments"];
  const key = record["idempotency_key"];
  if (typeof args !== "object" || args === null || Array.isArray(args))
    throw new Error("stored call arguments are not an object");
  if (key !== null && typeof key !== "string") throw new Error("stored idempotency key is not text");
  return {
    call_id: text(record, "call_id"),
    operation_id: text(record, "operation_id"),
    name: text(record, "name"),
    arguments: args as JsonObject,
    idempotency_key: key,
    provider: text(record, "provider"),
    api_family: text(record, "api_family"),
    response_id: text(record, "response_id"),
    adapter_revision: text(record, "adapter_revision"),
  };
}

/** Plain-JSON copy of a call, for records. */
export function callJson(call: ToolCall): JsonObject {
  const copy: JsonObject = { ...callCopy(call) };
  return copy;
}

/**
 * Binds a provider call identity (per tenant, subject, provider, response and call id) to the
 * first fingerprint seen. Answers false when the identity already maps to another request or purpose.
 */
export function bindCallIdentity(
  store: ToolResultStore,
  principal: Principal,
  call: ToolCall,
  fingerprint: string,
): boolean {
  const key = storeKey([
    principal.tenant_id,
    principal.subject_id,
    call.provider,
    call.api_family,
    call.response_id,
    call.call_id,
  ]);
  // A new identity is stored; a repeated one is stored again (its retention restarts).
  const other =
    store.claim === undefined
      ? claimByGetPut(store, "call_fingerprints", key, fingerprint)
      : store.claim("call_fingerprints", key, fingerprint);
  return other === undefined;
}

/** A committed record built from a validated handler result. */
export function recordFromHandler(
  spec: ToolSpec,
  call: ToolCall,
  raw: HandlerResult,
  requestSha256: string,
  statusRef: string | null,
): IdempotencyRecord {
  return {
    request_sha256: requestSha256,
    provider: call.provider,
    api_family: call.api_family,
    adapter_revision: call.adapter_revision,
    data: raw.data,
    source_label: spec.producerLabel,
    producer_revision: raw.producer_revision,
    resource_revision: raw.resource_revision,
    observed_at: raw.observed_at,
    output_schema_revision: spec.outputSchemaRevision,
    effect_revision: spec.effectRevision,
    handler_revision: spec.handlerRevision,
    downstream_request_id: raw.downstream_request_id ?? null,
    receipt_id: raw.receipt_id ?? null,
    status_ref: statusRef,
  };
}

/** A committed record answers this call only for the same request, provider profile and revisions. */
export function recordMatches(
  record: IdempotencyRecord,
  call: ToolCall,
  spec: ToolSpec,
  requestSha256: string,
): boolean {
  return (
    record.request_sha256 === requestSha256 &&
    record.provider === call.provider &&
    record.api_family === call.api_family &&
    record.adapter_revision === call.adapter_revision &&
    record.output_schema_revision === spec.outputSchemaRevision &&
    record.effect_revision === spec.effectRevision &&
    record.handler_revision === spec.handlerRevision &&
    record.producer_revision === spec.producerRevision
  );
}

/** An unknown outcome (or in-flight mark) belongs to this call only for the same request and revisions. */
export function unknownMatches(
  unknown: UnknownOutcome,
  call: ToolCall,
  spec: ToolSpec,
  requestSha256: string,
): boolean {
  return (
    unknown.request_sha256 === requestSha256 &&
    unknown.provider === call.provider &&
    unknown.api_family === call.api_family &&
    unknown.adapter_revision === call.adapter_revision &&
    unknown.effect_revision === spec.effectRevision &&
    unknown.producer_revision === spec.producerRevision
  );
}

/** The unknown-outcome record of a write. */
export function unknownOutcome(
  scope: string[],
  call: ToolCall,
  spec: ToolSpec,
  requestSha256: string,
  statusRef: string,
): UnknownOutcome {
  return {
    scope: [...scope],
    request_sha256: requestSha256,
    provider: call.provider,
    api_family: call.api_family,
    adapter_revision: call.adapter_revision,
    effect_revision: spec.effectRevision,
    producer_revision: spec.producerRevision,
    status_ref: statusRef,
  };
}

/** The in-flight mark of a write: its unknown-outcome record plus the principal and call to recover it (same key order as a spread). */
export function inFlightRecord(unknown: UnknownOutcome, principal: JsonObject, call: JsonObject): InFlightRecord {
  return {
    scope: unknown.scope,
    request_sha256: unknown.request_sha256,
    provider: unknown.provider,
    api_family: unknown.api_family,
    adapter_revision: unknown.adapter_revision,
    effect_revision: unknown.effect_revision,
    producer_revision: unknown.producer_revision,
    status_ref: unknown.status_ref,
    principal,
    call,
  };
}

/** Remembers a write as unknown under its scope and its status reference (in-flight extras dropped). */
export function rememberUnknown(store: ToolResultStore, unknown: UnknownOutcome): void {
  const record: UnknownOutcome = {
    scope: [...unknown.scope],
    request_sha256: unknown.request_sha256,
    provider: unknown.provider,
    api_family: unknown.api_family,
    adapter_revision: unknown.adapter_revision,
    effect_revision: unknown.effect_revision,
    producer_revision: unknown.producer_revision,
    status_ref: unknown.status_ref,
  };
  store.put("uncertain_outcomes", storeKey(record.scope), record);
  store.put("status_refs", record.status_ref, record);
}

/** Reads a record this engine wrote (the store holds only the engine's own JSON). */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the record type it wrote under `table`
export function readRecord<T>(
  store: ToolResultStore,
  table: Parameters<ToolResultStore["get"]>[0],
  key: string,
): T | undefined {
  return store.get(table, key) as T | undefined;
}
