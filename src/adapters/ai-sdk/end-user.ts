/**
 * The end user's confirmation in chat (docs/approvals.md, "Who decides"): for a tool its end user
 * confirms (`confirmed_by: "end_user"`), the gate's approval of a call is decided by the
 * requesting end user, whose answer to the AI SDK's `tool-approval-request` the adapter posts to
 * the gate with the end user's token (the same one the call carried). Approved, the SDK's
 * `execute` then sends the same call again (the same key), which runs once; denied, the gate
 * records the denial and the model reads its refusal.
 * @module
 */
import type { ToolApprovalResponse } from "ai";
import type { ApprovalRequestLike } from "./approvals";
import { callRequest, GateRefusal, isPending, jsonText, modelOutput, sendCall, type CallSettings } from "./gate-call";

/** A pending approval the requesting end user confirms: its id and the request digest it binds. */
export interface EndUserApproval {
  readonly approvalId: string;
  readonly requestSha256: string;
}

/**
 * The approval as the end user's to confirm, or null when the gate's approvers decide it (the
 * tool's default, or a call the gate could not tie to a verified end user) or it is no longer pending.
 */
export async function endUserApproval(settings: CallSettings, approvalId: string): Promise<EndUserApproval | null> {
  if (settings.principalToken === undefined) return null;
  const status = await settings.client.approval(approvalId, 0);
  if (!status.ok) throw new GateRefusal(status.problem);
  const { state, confirmed_by: confirmedBy, request_sha256: requestSha256 } = status.value;
  return state === "pending" && confirmedBy === "end_user" ? { approvalId, requestSha256 } : null;
}

/** Posts the end user's decision on its approval, with its token; a refusal throws {@link GateRefusal}. */
export async function confirmInGate(
  settings: CallSettings,
  approval: EndUserApproval,
  approved: boolean,
  reason?: string,
): Promise<void> {
  const token = settings.principalToken;
  if (token === undefined) throw new TypeError("an end user's confirmation needs its principal token");
  const decided = await settings.client.confirmApproval(approval.approvalId, {
    decision: approved ? "approve" : "deny",
    principal_token: token,
    request_sha256: approval.requestSha256,
    ...(reason === undefined ? {} : { reason }),
  });
  if (!decided.ok) throw new GateRefusal(decided.problem);
}

/** The end user's answer in chat to one approval request. */
export interface EndUserAnswer {
  readonly approved: boolean;
  /** The end user's words (1..500 characters, no control characters), kept in the gate's audit. */
  readonly reason?: string;
}

/**
 * The AI SDK's `tool-approval-response` to a request the end user answered in chat, after the
 * gate recorded that answer: approved, the SDK runs the call (the same key: it runs once);
 * denied, the call is sent again and the gate's refusal is the reason the model reads. A request
 * this process did not hold is sent to the gate first only when approved (a denied call is never
 * sent: nothing of it runs).
 */
export async function endUserResponse(
  settings: CallSettings,
  held: ReadonlyMap<string, string>,
  request: ApprovalRequestLike,
  answer: EndUserAnswer,
): Promise<ToolApprovalResponse> {
  const { toolCallId, toolName, input } = request.toolCall;
  const respond = (approved: boolean, reason?: string): ToolApprovalResponse => ({
    type: "tool-approval-response",
    approvalId: request.approvalId,
    approved,
    ...(reason === undefined ? {} : { reason }),
  });
  let approvalId = held.get(toolCallId);
  if (approvalId === undefined) {
    if (!answer.approved) return respond(false, "The end user denied the call in chat; it was not sent.");
    // Another process asked: the same call again answers the same pending approval (or its result).
    const output = modelOutput(
      settings,
      await sendCall(settings, await callRequest(settings, toolName, input, toolCallId)),
    );
    if (!isPending(output)) return respond(true);
    approvalId = output.approval.approval_id;
  }
  const approval = await endUserApproval(settings, approvalId);
  if (approval === null) throw new TypeError(`the gate's approvers decide ${approvalId}, not the end user`);
  await confirmInGate(settings, approval, answer.approved, answer.reason);
  if (answer.approved) return respond(true);
  const refused = modelOutput(
    settings,
    await sendCall(settings, await callRequest(settings, toolName, input, toolCallId)),
  );
  return respond(false, jsonText(refused));
}
