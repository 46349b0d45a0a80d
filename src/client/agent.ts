import { call, type ClientResult, type GateOptions } from "./transport";
import type { CapabilityDecision, CapabilityRequestInput, CompletionBatch, U64 } from "./types";

/** The answer to a tool call: the model result and the provider-native result item. */
export interface ToolCallAnswer {
  model_result: Record<string, unknown>;
  provider_output: Record<string, unknown>;
  approval_id?: string;
}

/** An agent host's client: tool calls and their status, capability requests and completions. */
export class AgentClient {
  constructor(readonly options: GateOptions) {}

  /** `POST …/tool-calls` (Tool Result v2; see the HTTP API for the body). */
  toolCall(body: Record<string, unknown>): Promise<ClientResult<ToolCallAnswer>> {
    return call(this.options, "POST", "/tool-calls", body);
  }

  /** `POST …/tool-calls/status`: the status of an unknown outcome. */
  toolCallStatus(body: Record<string, unknown>): Promise<ClientResult<ToolCallAnswer>> {
    return call(this.options, "POST", "/tool-calls/status", body);
  }

  /** `POST …/capability/requests`: the policy decision (a denial is a successful answer). */
  requestCapability(actorId: string, request: CapabilityRequestInput, providerBindingId?: U64 | null): Promise<ClientResult<CapabilityDecision>> {
    const body = providerBindingId === undefined ? { actor_id: actorId, request } : { actor_id: actorId, request, provider_binding_id: providerBindingId };
    return call(this.options, "POST", "/capability/requests", body);
  }

  /** `GET …/capability/requests/{actor}/{local_id}`: the request's public record. */
  capabilityStatus(actorId: string, localId: U64): Promise<ClientResult<{ request: Record<string, unknown> }>> {
    return call(this.options, "GET", `/capability/requests/${encodeURIComponent(actorId)}/${localId.toString()}`);
  }

  /** `POST …/capability/completions/drain`: takes every queued completion. */
  drainCompletions(): Promise<ClientResult<CompletionBatch>> {
    return call(this.options, "POST", "/capability/completions/drain");
  }
}
