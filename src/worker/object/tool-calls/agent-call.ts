import { canonicalJson, type JsonObject } from "../../../core/json";
import type { AgentAdmission } from "../identity/admission";
import type { Limits } from "../limits";
import type { McpNotifySink } from "../../tools/mcp-notify";
import type { Authenticated } from "../socket-upgrade";
import { ok, type Outcome } from "../../result";
import { toolCallAnswer } from "./answer";
import { withToolForm, type BoundCall, type ToolCallInput } from "./bind";
import type { ToolCallPlane } from "./plane";
import { describeToolCall, endToolSpan, startToolSpan } from "../../trace/tool-call";
import type { Tracer } from "../../trace/span";

/** What an agent's tool call uses of its object. */
export interface AgentCallDeps {
  readonly admission: AgentAdmission;
  readonly limits: Limits;
  readonly plane: ToolCallPlane;
  /** Unix seconds, read once the call is admitted. */
  now(): number;
  /** Traces of dispatched calls (../../trace); absent or the no-op tracer: none. */
  readonly tracer?: Tracer;
}

/**
 * One agent tool call after authentication, whatever carried it (the HTTP route or an MCP
 * `tools/call`): admission (rate, principal, tool scope), the call bound in the tool's own form,
 * the dispatch (or, with `statusRef`, the status query of an unknown outcome), and the answer
 * projected for the call's provider profile. `notify` (an MCP `tools/call` that relays) takes the
 * call's downstream progress and log messages. A dispatch is traced when `deps.tracer` records
 * (docs/traces.md); a status query is not. The answer is a value: the HTTP route writes it once,
 * MCP and the batch build on it without reading text back; `bound` is the input already bound.
 */
export async function agentCall(deps: AgentCallDeps, consumer: string, auth: Authenticated, input: ToolCallInput, statusRef: string | null, notify?: McpNotifySink, bound?: BoundCall): Promise<Outcome<JsonObject>> {
  const { caller, config } = auth;
  const span = statusRef === null ? startToolSpan(deps.tracer, consumer) : undefined;
  const admitted = await deps.admission.admit(consumer, caller, config, deps.limits, input, bound);
  if (!admitted.ok) {
    endToolSpan(span, admitted);
    return admitted;
  }
  const { plane } = deps;
  const principal = admitted.value.principal;
  const call = withToolForm(admitted.value.call, plane.engine.registry);
  const now = deps.now();
  const claims = admitted.value.claims;
  const credentialId = caller.credentialId;
  describeToolCall(span, call);
  const outcome = statusRef === null ? await plane.dispatch(principal, call, now, { claims, notify, credentialId, span }) : await plane.status(principal, call, statusRef, now, claims, credentialId);
  endToolSpan(span, outcome);
  return outcome.ok ? ok(toolCallAnswer(plane.engine.registry, principal, call, outcome.value, admitted.value.echo)) : outcome;
}

/** The HTTP route's answer: the call's answer written once, as Tool Result v2 canonical JSON. */
export function answerText(outcome: Outcome<JsonObject>): Outcome<string> {
  return outcome.ok ? ok(canonicalJson(outcome.value)) : outcome;
}
