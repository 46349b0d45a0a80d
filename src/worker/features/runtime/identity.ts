import { canonicalJson, sha256Hex, type JsonObject } from "../../../core/json";
import type { Principal, ToolCall } from "../../../core/tool-result/types";
import type { InvocationContext } from "../../../core/wire";

/**
 * The provider profile fields every App Facade call is bound with. They only fix the call's
 * identity for the engine's digests and idempotency records (stored actions, approvals and
 * records of deployed consumers depend on these exact values); the facade's results are never
 * projected for a model, so no provider adapter runs.
 */
export const FACADE_BINDING_PROFILE = {
  provider: "openai",
  api_family: "responses",
  adapter_revision: "openai-responses-v1",
} as const;

/** `prefix` + the first 32 hex digits of SHA-256 over a canonical JSON array of the parts. */
function derived(prefix: string, parts: readonly string[]): string {
  return `${prefix}${sha256Hex(canonicalJson([...parts])).slice(0, 32)}`;
}

/** The deterministic identity of one facade operation (see docs/runtime-transport.md). */
export interface FacadeIdentity {
  /** `rta_…` from (thread_id, run_id, facade operation_id): the `PreparedAction.action_id`. */
  actionId: string;
  /** `rtc_…` from (thread_id, run_id, facade operation_id): the tool call's `call_id`. */
  callId: string;
  /** `rtr_…` from (thread_id, run_id): the tool call's `response_id`. */
  responseId: string;
  /** The facade request's `operation_id`, verbatim: the tool call's `operation_id`. */
  operationId: string;
}

/**
 * Maps the envelope's identity fields onto the tool-call identity. The dispatch binding is not
 * part of it: a commit after an interaction arrives in a later dispatch and must bind the same call.
 */
export function facadeIdentity(context: InvocationContext, operationId: string): FacadeIdentity {
  const parts = ["toolgate.runtime.v1", context.thread_id, context.run_id, operationId];
  return {
    actionId: derived("rta_", ["action", ...parts]),
    callId: derived("rtc_", ["call", ...parts]),
    responseId: derived("rtr_", ["response", "toolgate.runtime.v1", context.thread_id, context.run_id]),
    operationId,
  };
}

/** `rtk_…` from (action_id, operation_id): the idempotency key of a write, so a commit executes once. */
export function facadeIdempotencyKey(actionId: string, operationId: string): string {
  return derived("rtk_", ["idempotency", "toolgate.runtime.v1", actionId, operationId]);
}

/**
 * The tool call a facade operation is: the principal is the acting user as the runtime
 * credential's rules resolved it (facade-admission.ts), the tool comes from the consumer's
 * facade-target map, the arguments are the facade `input`.
 */
export function facadeToolCall(
  principal: Principal,
  identity: FacadeIdentity,
  tool: string,
  args: JsonObject,
  idempotencyKey: string | null,
): { principal: Principal; call: ToolCall } {
  return {
    principal,
    call: {
      call_id: identity.callId,
      operation_id: identity.operationId,
      name: tool,
      arguments: args,
      idempotency_key: idempotencyKey,
      provider: FACADE_BINDING_PROFILE.provider,
      api_family: FACADE_BINDING_PROFILE.api_family,
      response_id: identity.responseId,
      adapter_revision: FACADE_BINDING_PROFILE.adapter_revision,
    },
  };
}

/**
 * The stored form of a facade call (the `request` column): canonical JSON in the shape of the
 * tool-call contract, as actions have always been stored, so a repeated prepare compares text.
 */
export function storedRequest(principal: Principal, call: ToolCall): string {
  return canonicalJson({
    principal: { subject_id: principal.subject_id, roles: [...principal.roles] },
    proposal: { name: call.name, arguments: call.arguments },
    context: {
      call_id: call.call_id,
      operation_id: call.operation_id,
      idempotency_key: call.idempotency_key,
      provider: call.provider,
      api_family: call.api_family,
      response_id: call.response_id,
      adapter_revision: call.adapter_revision,
    },
  });
}

/** A deterministic message id for the gate's answer to one incoming message. */
export function replyMessageId(consumer: string, requestMessageId: string, dispatchId: string): string {
  return derived("tg_", ["reply", consumer, dispatchId, requestMessageId]);
}
