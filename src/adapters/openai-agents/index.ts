/**
 * `toolgate/openai-agents`: a consumer's gated tools as OpenAI Agents SDK function tools.
 *
 * The schemas are the gate's own (`GET …/tools?format=openai`); every call goes through the
 * gate (`POST …/tool-calls`) with an idempotency key derived from the SDK's call id, so a
 * retried turn replays a write instead of running it twice; the model reads only the gate's
 * model-visible result. A call the gate's approvers must decide becomes an SDK interruption
 * (`needsApproval` asks the gate), resolved with {@link GatedTools.awaitDecisions} (or
 * `state.approve`) and resumed with `run(agent, state)`, also from a serialized `RunState`.
 * Uses `fetch` only: Node, browsers, Workers. docs/sdk.md, "OpenAI Agents SDK".
 * @module
 */
import { tool, type FunctionTool, type RunToolApprovalItem, type ToolErrorFormatterArgs } from "@openai/agents-core";
import { AgentClient, type ApprovalStatus, type ToolCallInput } from "../../client/agent";
import type { ClientResult, GateOptions } from "../../client/transport";
import {
  argumentsOf,
  callBody,
  modelOutput,
  refusalOutput,
  sendCall,
  type CallIdentity,
  type GateOutcome,
} from "./calls";
import { gateDeclarations, type GateDeclaration, type StrictParameters } from "./declarations";
import { confirmInGate, endUserApproval, type EndUserApproval } from "./end-user";

export { idempotencyKeyOf, type CallIdentity } from "./calls";
export type { StrictParameters } from "./declarations";

/** Options of {@link gatedTools}: where the gate is, the agent credential, and whom the calls act for. */
export interface GatedToolsOptions extends GateOptions, CallIdentity {
  /**
   * Seconds a resumed call waits for the gate's approvers when it is still pending (0–900,
   * default 300): the SDK approved it, so it waits for the gate's decision, then sends the same
   * call again. Past it the model reads that the call is pending and did not run.
   */
  readonly approvalWaitSeconds?: number;
}

/** The gate's approval behind an interruption. */
export interface GateApproval {
  readonly callId: string;
  readonly tool: string;
  /** Null when the state is `answered`. */
  readonly approvalId: string | null;
  /**
   * The gate's state, or `answered` when the same call, sent again by another process, already
   * has the gate's answer (it ran once approved, or was refused after a denial).
   */
  readonly state: ApprovalStatus["state"] | "answered";
  /**
   * Who decides: the consumer's approvers, or (`confirmedBy: "end_user"`) the end user in this
   * chat, whose answer is `state.approve(item)` or `state.reject(item)`.
   */
  readonly decidedBy: string;
  /** `end_user`: the requesting end user confirms it in chat; `approvers`: the consumer's approvers decide. */
  readonly confirmedBy: "end_user" | "approvers";
  /** The approval's page in the gate's approver console (null when the state is `answered`). */
  readonly consoleUrl: string | null;
}

/** What {@link GatedTools.awaitDecisions} needs of the SDK's `RunState`. */
export interface InterruptedRun {
  getInterruptions(): RunToolApprovalItem[];
  approve(item: RunToolApprovalItem): void;
}

/** Calls remembered between the SDK asking `needsApproval` and running the tool (a turn's worth). */
const MAX_HELD = 256;
/** Seconds one status request waits at most (the gate's bound). */
const MAX_WAIT_SECONDS = 60;
/** Seconds a pending approval lives at the gate: a longer wait could only end in its expiry. */
const PENDING_SECONDS = 900;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Keeps at most {@link MAX_HELD} entries: the oldest goes first (a turn the SDK abandoned). */
function hold<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  const oldest = map.keys().next();
  if (map.size > MAX_HELD && oldest.done !== true) map.delete(oldest.value);
}

function take<V>(map: Map<string, V>, key: string): V | undefined {
  const value = map.get(key);
  map.delete(key);
  return value;
}

/** A consumer's gated tools for the OpenAI Agents SDK (made by {@link gatedTools}). */
export class GatedTools {
  /** The function tools, one per tool the credential may call, for `new Agent({ tools })`. */
  readonly tools: Array<FunctionTool<unknown, StrictParameters, string>>;
  readonly #agent: AgentClient;
  readonly #options: GatedToolsOptions;
  readonly #waitSeconds: number;
  /** Gate answers to calls the SDK asked about and has not run yet, by call id. */
  readonly #settled = new Map<string, GateOutcome>();
  /** Approvals the gate opened, by call id. */
  readonly #opened = new Map<string, string>();
  /** Of those, the ones the end user confirms in chat, with the call to send again. */
  readonly #endUser = new Map<string, EndUserApproval & { readonly body: ToolCallInput }>();

  constructor(options: GatedToolsOptions, declarations: readonly GateDeclaration[]) {
    this.#options = options;
    this.#agent = new AgentClient(options);
    this.#waitSeconds = Math.max(0, Math.min(PENDING_SECONDS, options.approvalWaitSeconds ?? 300));
    this.tools = declarations.map((d) => this.#tool(d));
  }

  #tool(declaration: GateDeclaration): FunctionTool<unknown, StrictParameters, string> {
    const { name } = declaration;
    return tool({
      name,
      description: declaration.description,
      parameters: declaration.parameters,
      strict: true,
      // The gate decides whether a call needs its approvers: it is asked with the call itself.
      // A call that needs none is answered (run or refused) here, and the answer is kept for
      // `execute`, so it is sent once.
      needsApproval: async (_context, input, callId) => {
        if (callId === undefined || !isRecord(input)) return false;
        const body = callBody(this.#options, name, input, callId);
        const outcome = await sendCall(this.#agent, body);
        if (outcome.kind === "pending") {
          hold(this.#opened, callId, outcome.approvalId);
          const endUser = await endUserApproval(this.#agent, this.#options, outcome.approvalId);
          if (endUser !== null) hold(this.#endUser, callId, { ...endUser, body });
          return true;
        }
        hold(this.#settled, callId, outcome);
        return false;
      },
      execute: async (input, _context, details) => {
        const callId = details?.toolCall?.callId;
        if (callId === undefined) throw new Error(`the SDK ran ${name} without a call id`);
        if (!isRecord(input)) return "The arguments are not a JSON object; the call did not run.";
        const body = callBody(this.#options, name, input, callId);
        let outcome = take(this.#settled, callId) ?? (await sendCall(this.#agent, body));
        // The SDK runs a call it asked about only once approved: an end user's approval reaches the gate here.
        if (outcome.kind === "pending") outcome = await this.#confirmed(callId, outcome, body);
        if (outcome.kind === "pending") outcome = await this.#untilDecided(outcome, body, this.#waitSeconds);
        return this.#output(name, outcome);
      },
    });
  }

  /** A pending call the end user confirms: its approval posted (with the end user's token), the same call sent again. */
  async #confirmed(
    callId: string,
    outcome: GateOutcome & { kind: "pending" },
    body: ToolCallInput,
  ): Promise<GateOutcome> {
    const approval =
      take(this.#endUser, callId) ?? (await endUserApproval(this.#agent, this.#options, outcome.approvalId));
    if (approval === null || approval.approvalId !== outcome.approvalId) return outcome;
    const refused = await confirmInGate(this.#agent, this.#options, approval, true);
    return refused === null ? sendCall(this.#agent, body) : { kind: "refused", problem: refused };
  }

  /**
   * The run's `toolErrorFormatter` (`run(agent, state, { toolErrorFormatter: gated.toolErrorFormatter })`):
   * a rejected interruption of a call the end user confirms is its denial, posted to the gate
   * with its token; the same call sent again answers the gate's refusal, which the model reads.
   * Anything else keeps the SDK's own message. (A rejection with its own message,
   * `state.reject(item, { message })`, never reaches a formatter: the gate's approval then lapses
   * undecided, which refuses the call as well.)
   */
  readonly toolErrorFormatter = async (args: ToolErrorFormatterArgs): Promise<string | undefined> => {
    if (args.kind !== "approval_rejected") return undefined;
    const approval = take(this.#endUser, args.callId);
    if (approval === undefined) return undefined;
    const refused = await confirmInGate(this.#agent, this.#options, approval, false);
    if (refused !== null) return refusalOutput(refused);
    return this.#output(args.toolName, await sendCall(this.#agent, approval.body));
  };

  /** Waits up to `seconds` for the approvers' decision, then sends the same call again. */
  async #untilDecided(
    outcome: GateOutcome & { kind: "pending" },
    body: ToolCallInput,
    seconds: number,
  ): Promise<GateOutcome> {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const left = Math.ceil((deadline - Date.now()) / 1000);
      if (left <= 0) return outcome;
      const status = await this.#agent.approval(outcome.approvalId, Math.min(MAX_WAIT_SECONDS, left));
      if (!status.ok) return outcome;
      if (status.value.state !== "pending") return sendCall(this.#agent, body);
    }
  }

  #consoleUrl(approvalId: string): string {
    return `${this.#options.baseUrl.replace(/\/+$/, "")}/console/approvals/${encodeURIComponent(approvalId)}`;
  }

  #decidedBy(): string {
    return `an approver of the consumer ${this.#options.consumer}`;
  }

  /** What the model reads: the gate's model result; for a call still pending, who decides it and where first. */
  #output(name: string, outcome: GateOutcome): string {
    if (outcome.kind === "refused") return refusalOutput(outcome.problem);
    if (outcome.kind === "answer") return modelOutput(outcome.answer);
    return (
      `This call is pending and did not run: it waits for a person's approval (approval ${outcome.approvalId}), ` +
      `which ${this.#decidedBy()} decides in the toolgate console at ${this.#consoleUrl(outcome.approvalId)}. ` +
      `The same ${name} call runs once it is approved.\n${modelOutput(outcome.answer)}`
    );
  }

  /**
   * The gate's approval behind an interruption of one of these tools (null for another
   * interruption), after waiting up to `waitSeconds` for a decision. A process that did not
   * run the turn (a `RunState` read back) sends the same call again: the gate answers the
   * same approval, or, once it was decided, its answer, which the resumed run then gives the model.
   */
  async approval(item: RunToolApprovalItem, waitSeconds = 0): Promise<ClientResult<GateApproval | null>> {
    const raw = item.rawItem;
    if (raw.type !== "function_call" || !this.tools.some((t) => t.name === raw.name)) return { ok: true, value: null };
    const callId = raw.callId;
    const gate = (approvalId: string | null, state: GateApproval["state"]): GateApproval => {
      const endUser = this.#endUser.has(callId);
      return {
        callId,
        tool: raw.name,
        approvalId,
        state,
        decidedBy: endUser ? "the end user, in this chat" : this.#decidedBy(),
        confirmedBy: endUser ? "end_user" : "approvers",
        consoleUrl: approvalId === null || endUser ? null : this.#consoleUrl(approvalId),
      };
    };
    let approvalId = this.#opened.get(callId);
    if (approvalId === undefined) {
      const args = argumentsOf(raw.arguments);
      if (args === null) return { ok: true, value: null };
      const outcome = await sendCall(this.#agent, callBody(this.#options, raw.name, args, callId));
      if (outcome.kind === "refused") return { ok: false, problem: outcome.problem };
      if (outcome.kind === "answer") {
        hold(this.#settled, callId, outcome);
        return { ok: true, value: gate(null, "answered") };
      }
      approvalId = outcome.approvalId;
      hold(this.#opened, callId, approvalId);
    }
    const status = await this.#agent.approval(approvalId, waitSeconds);
    return status.ok ? { ok: true, value: gate(approvalId, status.value.state) } : status;
  }

  /**
   * Waits up to `waitSeconds` in all for the gate's approvers to decide the run's interruptions
   * of these tools, and approves in `state` each one they decided (approved or denied): the
   * resumed run then sends the same call, which runs once, or answers the gate's refusal to the
   * model. Answers the approvals still pending (their interruptions stay, for a later resume).
   */
  async awaitDecisions(state: InterruptedRun, waitSeconds: number): Promise<ClientResult<GateApproval[]>> {
    const deadline = Date.now() + Math.max(0, Math.min(PENDING_SECONDS, waitSeconds)) * 1000;
    const pending: GateApproval[] = [];
    for (const item of state.getInterruptions()) {
      let approval = await this.approval(item, 0);
      for (;;) {
        if (!approval.ok) return approval;
        const left = Math.ceil((deadline - Date.now()) / 1000);
        // The end user's own answer is the host's to ask in chat: nothing to wait for here.
        if (approval.value === null || approval.value.state !== "pending" || left <= 0) break;
        if (approval.value.confirmedBy === "end_user") break;
        approval = await this.approval(item, Math.min(MAX_WAIT_SECONDS, left));
      }
      if (approval.value === null) continue;
      if (approval.value.state === "pending") pending.push(approval.value);
      else state.approve(item);
    }
    return { ok: true, value: pending };
  }
}

/**
 * The consumer's tools the agent credential may call, as OpenAI Agents SDK function tools
 * (`new Agent({ tools: gated.tools })`). Answers the gate's problem when the list is refused.
 */
export async function gatedTools(options: GatedToolsOptions): Promise<ClientResult<GatedTools>> {
  const declarations = await gateDeclarations(new AgentClient(options));
  return declarations.ok ? { ok: true, value: new GatedTools(options, declarations.value) } : declarations;
}
