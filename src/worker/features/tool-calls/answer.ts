import type { CallEcho } from "../../../core/adapters/native-calls";
import { adapterFor } from "../../../core/adapters/provider-results";
import type { JsonObject } from "../../../core/json";
import type { ToolRegistry } from "../../../core/tool-result/tool-spec";
import type { Principal, ToolCall } from "../../../core/tool-result/types";
import type { ToolCallOutcome } from "./outcome";

/**
 * The HTTP answer body (as a value: the route writes it once, MCP and the batch build on it): the model projection, the provider-native result item, the approval to
 * wait for, and (for the host, never the model) the status reference of an unknown outcome and
 * the audit entry that recorded the call (its sequence and Merkle leaf hash: the host's receipt).
 * The adapter is the call's adapter revision's; `echo` is what the model's item asks repeated.
 */
export function toolCallAnswer(
  registry: ToolRegistry,
  principal: Principal,
  call: ToolCall,
  outcome: ToolCallOutcome,
  echo?: CallEcho,
): JsonObject {
  const adapter = adapterFor(call.provider, call.api_family, call.adapter_revision);
  if (adapter === undefined) throw new Error("validated host context names an unregistered provider profile");
  const projected = adapter.adapter(principal, call, registry.get(call.name), outcome.package, outcome.hash, echo);
  if (!projected.ok) throw new Error(`the engine produced a package its adapter refuses: ${projected.error.message}`);
  const body: JsonObject = { model_result: outcome.package.model_result, provider_output: projected.value };
  if (outcome.approvalId !== null) body.approval_id = outcome.approvalId;
  if (outcome.statusRef !== null) body.status_ref = outcome.statusRef;
  body.audit = { seq: outcome.audit.seq, leaf_hash: outcome.audit.leaf_hash };
  return body;
}
