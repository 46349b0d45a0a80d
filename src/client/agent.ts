import type * as z from "zod";
import type { CapabilityRequestBody } from "../contracts/capability";
import type { ToolCallRequest, ToolCallResponse, ToolCallStatusRequest } from "../contracts/tool-call";
import { call, type ClientResult, type GateOptions } from "./transport";
import type { CapabilityDecision, CapabilityRequestInput, CapabilityRequestSnapshot, CompletionBatch, U64 } from "./types";

/**
 * The answer to a tool call (`ToolCallResponse`): the model result and the provider-native
 * result item, with `approval_id` when an approval is pending and `status_ref` when the
 * outcome is unknown.
 */
export type ToolCallAnswer = z.output<typeof ToolCallResponse>;

/** An agent host's client: tool calls and their status, capability requests and completions. */
export class AgentClient {
  constructor(readonly options: GateOptions) {}

  /** `POST …/tool-calls` (Tool Result v2; the body is a `ToolCallRequest`). */
  toolCall(body: z.input<typeof ToolCallRequest>): Promise<ClientResult<ToolCallAnswer>> {
    return call(this.options, "POST", "/tool-calls", body);
  }

  /** `POST …/tool-calls/status`: the status of an unknown outcome (the call again, plus its `status_ref`). */
  toolCallStatus(body: z.input<typeof ToolCallStatusRequest>): Promise<ClientResult<ToolCallAnswer>> {
    return call(this.options, "POST", "/tool-calls/status", body);
  }

  /** `POST …/capability/requests`: the policy decision (a denial is a successful answer). */
  requestCapability(actorId: string, request: CapabilityRequestInput, providerBindingId?: U64 | null): Promise<ClientResult<CapabilityDecision>> {
    const body: z.input<typeof CapabilityRequestBody> =
      providerBindingId === undefined ? { actor_id: actorId, request } : { actor_id: actorId, request, provider_binding_id: providerBindingId };
    return call(this.options, "POST", "/capability/requests", body);
  }

  /** `GET …/capability/requests/{actor}/{local_id}`: the request's public record. */
  capabilityStatus(actorId: string, localId: U64): Promise<ClientResult<{ request: CapabilityRequestSnapshot }>> {
    return call(this.options, "GET", `/capability/requests/${encodeURIComponent(actorId)}/${localId.toString()}`);
  }

  /**
   * `POST …/capability/completions/drain`: takes the queued completions of one actor — the
   * credential's own subject, or (host credentials, which must name it) `actorId`.
   */
  drainCompletions(actorId?: string): Promise<ClientResult<CompletionBatch>> {
    const query = actorId === undefined ? "" : `?actor_id=${encodeURIComponent(actorId)}`;
    return call(this.options, "POST", `/capability/completions/drain${query}`);
  }
}
