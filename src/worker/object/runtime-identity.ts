import { canonicalJson, sha256Hex } from "../../core/json";
import type { ToolCallRequest } from "../contracts/tool-call";
import type { InvocationContext } from "../../core/wire";

/**
 * The tool-call provider profile every App Facade call is bound to. The gate projects facade
 * results itself, so the profile only fixes the call identity; it never reaches a model.
 */
export const FACADE_PROVIDER_PROFILE = { provider: "openai", api_family: "responses", adapter_revision: "openai-responses-v1" } as const;

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
 * The tool-call request a facade operation is: the acting user is the subject (no roles), the
 * tool comes from the consumer's facade-target map, the arguments are the facade `input`.
 */
export function facadeToolCall(
  identity: FacadeIdentity,
  subjectId: string,
  tool: string,
  args: Record<string, unknown>,
  idempotencyKey: string | null,
): ToolCallRequest {
  return {
    principal: { subject_id: subjectId, roles: [] },
    proposal: { name: tool, arguments: args },
    context: {
      call_id: identity.callId,
      operation_id: identity.operationId,
      idempotency_key: idempotencyKey,
      provider: FACADE_PROVIDER_PROFILE.provider,
      api_family: FACADE_PROVIDER_PROFILE.api_family,
      response_id: identity.responseId,
      adapter_revision: FACADE_PROVIDER_PROFILE.adapter_revision,
    },
  };
}

/** A deterministic message id for the gate's answer to one incoming message. */
export function replyMessageId(consumer: string, requestMessageId: string, dispatchId: string): string {
  return derived("tg_", ["reply", consumer, dispatchId, requestMessageId]);
}
