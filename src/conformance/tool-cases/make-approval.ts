/**
 * The approvals a `tool-cases-v2` fixture step asks for, granted by the reference's demo approver.
 * @module
 */
import { sha256Hex } from "../../core/json";
import { grantApproval } from "../../core/tool-result/approvals";
import { ToolResultUsageError, validateHostContext } from "../../core/tool-result/host-context";
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { Approval, HashFn, Principal, ToolCall } from "../../core/tool-result/types";
import { DEFAULT_APPROVER_ID, type ApprovalMode } from "./constants";

/**
 * The reference's `make_approval` for fixture modes: none → no approval; valid → a bound one;
 * expired → expiring one second ago; mismatched → a zero digest. An unknown tool with a mode
 * other than none is a usage error, as in the reference.
 */
export function makeApproval(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  mode: ApprovalMode,
  now: number,
  hash: HashFn = sha256Hex,
): Approval[] {
  validateHostContext(principal, call, now);
  if (mode === "none") return [];
  if (spec === undefined)
    throw new ToolResultUsageError("APPROVAL_UNAVAILABLE", "an unknown tool cannot create approval");
  const approval = grantApproval(principal, call, spec, { approverId: DEFAULT_APPROVER_ID, now }, hash);
  if (mode === "expired") return [{ ...approval, expires_at: now - 1 }];
  if (mode === "mismatched") return [{ ...approval, approval_digest: "0".repeat(64) }];
  return [approval];
}
