/**
 * Plain-data shapes the engine passes around. Every one is a JSON value (snake_case, like the
 * wire), so a ticket or a store record can cross a Durable Object transaction unchanged.
 * @module
 */
import type * as z from "../zod";
import type { Json, JsonObject } from "../json";
import type { modelResultSchema, protectedAuditSchema } from "./package-contract";

/** The authenticated caller, as the trusted host established it. Roles are sorted by code point. */
export interface Principal {
  readonly tenant_id: string;
  readonly subject_id: string;
  readonly roles: readonly string[];
}

/** What the model proposed: a tool name and its arguments. Nothing else is taken from the model. */
export interface ModelProposal {
  readonly name: string;
  readonly arguments: JsonObject;
}

/** Correlation the trusted host adapter supplies for one provider call. */
export interface ExecutionContext {
  readonly call_id: string;
  readonly operation_id: string;
  readonly idempotency_key: string | null;
  readonly provider: string;
  readonly api_family: string;
  readonly response_id: string;
  readonly adapter_revision: string;
}

/** A proposal bound to its host context: the unit every check and digest is about. */
export interface ToolCall extends ExecutionContext {
  readonly name: string;
  readonly arguments: JsonObject;
}

/** An approval bound by digest to one call, one approver and one expiry. */
export interface Approval {
  readonly approval_id: string;
  readonly operation_id: string;
  readonly call_id: string;
  readonly provider: string;
  readonly api_family: string;
  readonly adapter_revision: string;
  readonly idempotency_key: string | null;
  readonly tool_name: string;
  readonly subject_id: string;
  readonly schema_version: string;
  readonly approval_revision: string;
  readonly approval_digest: string;
  readonly expires_at: number;
  readonly approver_id: string;
}

/** Raw handler output; the dispatcher checks every field against the trusted registry. */
export interface HandlerResult {
  readonly data: Json;
  readonly producer_revision: string;
  readonly resource_revision: string | null;
  readonly observed_at: string;
  readonly downstream_request_id?: string | null;
  readonly receipt_id?: string | null;
}

/** A SHA-256 (or counting stand-in) over UTF-8 text, answering lowercase hex. */
export type HashFn = (text: string) => string;

/** The model-visible result (`tool-model-result-v2`), typed from its contract. */
export type ModelResult = z.output<typeof modelResultSchema>;

/** The protected audit record (`tool-audit-v2`), typed from its contract. */
export type ProtectedAudit = z.output<typeof protectedAuditSchema>;

/** The package: the model-visible result and the protected audit record, side by side. */
export interface ResultPackage {
  readonly model_result: ModelResult;
  readonly protected_audit: ProtectedAudit;
}

/** Downstream evidence bound into `call_binding_sha256`. */
export interface Downstream {
  readonly request_id: string | null;
  readonly receipt_id: string | null;
  readonly status_ref: string | null;
}
