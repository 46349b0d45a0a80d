/**
 * The end user's confirmation in chat for the OpenAI Agents SDK (docs/approvals.md, "Who
 * decides"): a call the gate holds for its requesting end user (a tool whose `confirmed_by` is
 * `end_user`, called with the end user's token) is the run's interruption; `state.approve(item)`
 * or `state.reject(item)` is the end user's answer, which the resumed run posts to the gate with
 * the same token before it sends the call again (approved: it runs once) or reads the gate's refusal.
 * @module
 */
import type { AgentClient } from "../../client/agent";
import type { ClientProblem } from "../../client/transport";
import type { CallIdentity } from "./calls";

/** A pending approval the requesting end user confirms: its id and the request digest it binds. */
export interface EndUserApproval {
  readonly approvalId: string;
  readonly requestSha256: string;
}

/**
 * The approval as the end user's to confirm, or null when the gate's approvers decide it (the
 * tool's default, a call without the end user's token) or it is no longer pending.
 */
export async function endUserApproval(
  agent: AgentClient,
  identity: CallIdentity,
  approvalId: string,
): Promise<EndUserApproval | null> {
  if (identity.principalToken === undefined) return null;
  const status = await agent.approval(approvalId, 0);
  if (!status.ok) return null;
  const { state, confirmed_by: confirmedBy, request_sha256: requestSha256 } = status.value;
  return state === "pending" && confirmedBy === "end_user" ? { approvalId, requestSha256 } : null;
}

/** Posts the end user's decision with its token: null once recorded, else the gate's problem. */
export async function confirmInGate(
  agent: AgentClient,
  identity: CallIdentity,
  approval: EndUserApproval,
  approved: boolean,
): Promise<ClientProblem | null> {
  const token = identity.principalToken;
  if (token === undefined) throw new TypeError("an end user's confirmation needs its principal token");
  const decided = await agent.confirmApproval(approval.approvalId, {
    decision: approved ? "approve" : "deny",
    principal_token: token,
    request_sha256: approval.requestSha256,
  });
  return decided.ok ? null : decided.problem;
}
