/**
 * The host's side of a call held for the gate's approvers: waiting for the decision, answering
 * the AI SDK's `tool-approval-request` with it, and re-sending pending calls (the same request,
 * the same key) once decided, so the approved call runs exactly once.
 * @module
 */
import type { ModelMessage, ToolApprovalResponse, ToolResultPart } from "ai";
import type { ApprovalStatus } from "../../client/agent";
import {
  callRequest,
  decisionOf,
  GateRefusal,
  isPending,
  modelOutput,
  sendCall,
  toModelOutput,
  type CallSettings,
} from "./gate-call";

/** Seconds one status request waits at most (the gate's bound). */
const MAX_WAIT_SECONDS = 60;

/**
 * The approval's status once decided, long-polling the gate up to `maxWaitSeconds` in all
 * (default 300); still `pending` when nobody decided in time.
 */
export async function waitForApproval(
  settings: CallSettings,
  approvalId: string,
  maxWaitSeconds = 300,
): Promise<ApprovalStatus> {
  let left = Math.max(0, maxWaitSeconds);
  for (;;) {
    const wait = Math.min(MAX_WAIT_SECONDS, left);
    const started = Date.now();
    const status = await settings.client.approval(approvalId, wait);
    if (!status.ok) throw new GateRefusal(status.problem);
    left -= Math.max(1, Math.round((Date.now() - started) / 1000));
    if (status.value.state !== "pending" || left <= 0) return status.value;
  }
}

/** The part of a `tool-approval-request` the answer needs (`generateText`'s content part, or a UI part's fields). */
export interface ApprovalRequestLike {
  readonly approvalId: string;
  readonly toolCall: { readonly toolCallId: string; readonly toolName: string; readonly input: unknown };
}

/**
 * The AI SDK's `tool-approval-response` to a request for a call the gate holds: waits for the
 * gate's approver (up to `maxWaitSeconds`), then approves it, or denies it with the reason (a
 * denial, an expiry, or nobody deciding in time), which the model then reads.
 */
export async function approvalResponse(
  settings: CallSettings,
  held: ReadonlyMap<string, string>,
  request: ApprovalRequestLike,
  maxWaitSeconds = 300,
): Promise<ToolApprovalResponse> {
  const { toolCallId, toolName, input } = request.toolCall;
  let approvalId = held.get(toolCallId);
  if (approvalId === undefined) {
    // Another process asked: the same call again answers the same pending approval.
    const output = modelOutput(
      settings,
      await sendCall(settings, await callRequest(settings, toolName, input, toolCallId)),
    );
    if (!isPending(output)) return { type: "tool-approval-response", approvalId: request.approvalId, approved: true };
    approvalId = output.approval.approval_id;
  }
  const { approved, reason } = decisionOf(await waitForApproval(settings, approvalId, maxWaitSeconds));
  return { type: "tool-approval-response", approvalId: request.approvalId, approved, reason };
}

/** What {@link resumePending} did. */
export interface Resumed {
  /** The messages, each pending result replaced by the call's result once decided. */
  readonly messages: ModelMessage[];
  /** The tool call ids whose result changed. */
  readonly resumed: string[];
  /** The tool call ids still pending (nobody decided in time). */
  readonly pending: string[];
}

/** The tool calls of the assistant messages, by id. */
function toolCallsOf(messages: readonly ModelMessage[]): Map<string, { toolName: string; input: unknown }> {
  const calls = new Map<string, { toolName: string; input: unknown }>();
  for (const message of messages)
    if (message.role === "assistant" && typeof message.content !== "string")
      for (const part of message.content)
        if (part.type === "tool-call") calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
  return calls;
}

/** The approval id of a tool result that is a gate call still pending, else undefined. */
function pendingApproval(part: ToolResultPart): string | undefined {
  if (part.output.type !== "json") return undefined;
  const value: unknown = part.output.value;
  return isPending(value) ? value.approval.approval_id : undefined;
}

/**
 * Resumes the calls left pending in `messages` (a `generateText`/`streamText` result's
 * `response.messages`, or the whole conversation): waits for each decision (up to
 * `maxWaitSeconds` each) and sends the same call again, with the same key, so an approved call
 * runs once and a denied one answers the gate's refusal; the result replaces the pending one,
 * and the next model step reads it.
 */
export async function resumePending(
  settings: CallSettings,
  messages: readonly ModelMessage[],
  maxWaitSeconds = 300,
): Promise<Resumed> {
  const calls = toolCallsOf(messages);
  const resumed: string[] = [];
  const pending: string[] = [];
  const out: ModelMessage[] = [];
  for (const message of messages) {
    if (message.role !== "tool") {
      out.push(message);
      continue;
    }
    const content: typeof message.content = [];
    for (const part of message.content) {
      const approvalId = part.type === "tool-result" ? pendingApproval(part) : undefined;
      const call = part.type === "tool-result" ? calls.get(part.toolCallId) : undefined;
      if (part.type !== "tool-result" || approvalId === undefined || call === undefined) {
        content.push(part);
        continue;
      }
      const status = await waitForApproval(settings, approvalId, maxWaitSeconds);
      if (status.state === "pending") {
        pending.push(part.toolCallId);
        content.push(part);
        continue;
      }
      const body = await callRequest(settings, call.toolName, call.input, part.toolCallId);
      content.push({ ...part, output: toModelOutput(modelOutput(settings, await sendCall(settings, body))) });
      resumed.push(part.toolCallId);
    }
    out.push({ ...message, content });
  }
  return { messages: out, resumed, pending };
}
