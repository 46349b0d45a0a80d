import { canonicalJsonReusing, type JsonObject } from "../../../core/json";
import { builtResultText } from "../../../core/tool-result/packages";
import { ToolCallRequest, ToolCallStatusRequest } from "../../../contracts/tool-call";
import { ToolCallBatchRequest } from "../../../contracts/tool-call-batch";
import type { AgentAdmission } from "../identity/admission";
import type { Operation } from "../../../contracts/access";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import type { ObjectKernel } from "../../kernel/kernel";
import type { McpNotifySink } from "../../targets/mcp/notify";
import type { Authenticated } from "../sockets/upgrade";
import { ok, type Outcome } from "../../result";
import { received, type Carried } from "../../kernel/rpc";
import { toolCallAnswer } from "./answer";
import { withToolForm, type BoundCall, type ToolCallInput } from "./bind";
import { toolCallBatch } from "./batch-call";
import type { ToolCallServices } from "./services";
import { receivedTrace, type TraceParent } from "../../trace/context";
import { describeToolCall, endToolSpan, startToolSpan, type CallTrace } from "../../trace/tool-call";
import type { Tracer } from "../../trace/span";
import type { CapabilityTools } from "../capability/tool-call";

/** The agent's tool-call path of the consumer object, shared by the HTTP routes and MCP `tools/call`. */
export class AgentCalls {
  constructor(
    private readonly kernel: Pick<ObjectKernel, "limits" | "now">,
    private readonly gate: Gatekeeper,
    private readonly admission: AgentAdmission,
    private readonly toolCalls: ToolCallServices,
    /** Traces of dispatched calls (../../trace); absent or the no-op tracer: none. */
    private readonly tracer?: Tracer,
    /** The capabilities a provider offers, as tools (../capability/tool-call.ts); absent: none. */
    private readonly capabilities?: CapabilityTools,
  ) {}

  /**
   * One tool call of the HTTP route (`request`: the body the Worker read and validated, as RPC
   * carries it: ../rpc.ts; `trace`: the caller's trace context from its headers, checked again).
   */
  async toolCall(
    consumer: string,
    token: string,
    request: Carried<ToolCallRequest>,
    trace: TraceParent | null = null,
  ): Promise<Outcome<string>> {
    const input = received(request, ToolCallRequest);
    const parent = receivedTrace(trace);
    return answerText(await this.call(consumer, token, "toolCall", input, null, undefined, undefined, { parent }));
  }

  /** The status of an unknown outcome (`request` as for {@link toolCall}). */
  async toolCallStatus(
    consumer: string,
    token: string,
    request: Carried<ToolCallStatusRequest>,
  ): Promise<Outcome<string>> {
    const input = received(request, ToolCallStatusRequest);
    return answerText(await this.call(consumer, token, "toolCallStatus", input, input.status_ref));
  }

  /**
   * The tool calls of one model turn (./batch-call.ts): the batch authenticates once, then each
   * call takes {@link run} as the credential already authenticated; each call's trace continues
   * the caller's (`trace`), as siblings.
   */
  async toolCallBatch(
    consumer: string,
    token: string,
    request: Carried<ToolCallBatchRequest>,
    trace: TraceParent | null = null,
  ): Promise<Outcome<string>> {
    const auth = this.gate.authenticate(consumer, token, "toolCallBatch");
    const parent = receivedTrace(trace);
    return auth.ok
      ? toolCallBatch(received(request, ToolCallBatchRequest), (input, bound) =>
          this.call(consumer, auth.value, "toolCallBatch", input, null, undefined, bound, { parent }),
        )
      : auth;
  }

  /** Every agent tool call (HTTP and MCP): authenticate (`who`: a token, or a caller already authenticated), then {@link run}. */
  async call(
    consumer: string,
    who: string | Authenticated,
    operation: Operation,
    input: ToolCallInput,
    statusRef: string | null,
    notify?: McpNotifySink,
    bound?: BoundCall,
    trace?: CallTrace,
  ): Promise<Outcome<JsonObject>> {
    const auth = typeof who === "string" ? this.gate.authenticate(consumer, who, operation) : ok(who);
    if (!auth.ok) return auth;
    return this.run(consumer, auth.value, input, statusRef, notify, bound, trace);
  }

  /**
   * One agent tool call after authentication, whatever carried it (the HTTP route or an MCP
   * `tools/call`): admission (rate, principal, tool scope), the call bound in the tool's own form,
   * the dispatch (or, with `statusRef`, the status query of an unknown outcome), and the answer
   * projected for the call's provider profile. `notify` (an MCP `tools/call` that relays) takes the
   * call's downstream progress and log messages. A dispatch is traced when the tracer records
   * (docs/traces.md), continuing `trace`'s parent when there is one; a status query is not. The
   * answer is a value: the HTTP route writes it once, MCP and the batch build on it without
   * reading text back; `bound` is the input already bound.
   */
  async run(
    consumer: string,
    auth: Authenticated,
    input: ToolCallInput,
    statusRef: string | null,
    notify?: McpNotifySink,
    bound?: BoundCall,
    trace?: CallTrace,
  ): Promise<Outcome<JsonObject>> {
    const { caller, config } = auth;
    const plane = this.toolCalls.for(config);
    const span = statusRef === null ? startToolSpan(this.tracer, consumer, trace) : undefined;
    const registry = plane.engine.registry;
    const capabilities = statusRef === null ? this.capabilities : undefined;
    const capabilityOf = (name: string) => capabilities?.capabilityOf(name, registry) ?? null;
    const limits = this.kernel.limits();
    const admitted = await this.admission.admit(consumer, caller, config, limits, input, bound, capabilityOf);
    if (!admitted.ok) {
      endToolSpan(span, admitted, trace);
      return admitted;
    }
    const principal = admitted.value.principal;
    const call = withToolForm(admitted.value.call, plane.engine.registry);
    const now = this.kernel.now();
    const claims = admitted.value.claims;
    const credentialId = caller.credentialId;
    describeToolCall(span, call, trace);
    const capability = capabilityOf(call.name);
    if (capabilities !== undefined && capability !== null) {
      const answered = await capabilities.call(consumer, principal, call, capability, admitted.value.echo);
      // A capability the actor holds no grant for is unknown to it: the engine answers it as any unknown tool.
      if (answered !== null) {
        endToolSpan(span, ok({ package: answered.package, approvalId: null, audit: answered.audit }), trace);
        return ok(answered.answer);
      }
    }
    const outcome =
      statusRef === null
        ? await plane.dispatch(principal, call, now, {
            claims,
            notify,
            credentialId,
            span,
            rationale: input.rationale ?? null,
            endUser: caller.principal === "token",
          })
        : await plane.status(principal, call, statusRef, now, claims, credentialId);
    endToolSpan(span, outcome, trace);
    return outcome.ok
      ? ok(toolCallAnswer(plane.engine.registry, principal, call, outcome.value, admitted.value.echo))
      : outcome;
  }
}

/**
 * The HTTP route's answer: the call's answer written once, as Tool Result v2 canonical JSON (its
 * model result as the package's text already holds it).
 */
export function answerText(outcome: Outcome<JsonObject>): Outcome<string> {
  return outcome.ok ? ok(canonicalJsonReusing(outcome.value, builtResultText)) : outcome;
}
