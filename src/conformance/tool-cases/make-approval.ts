/**
 * The approvals a `tool-cases-v2` fixture step asks for, granted by the reference's demo approver.
 * @module
 */
import { sha256Hex } from "../../core/json";
import { grantApproval } from "../../core/tool-result/approvals";
import { refuse, validateHostContext, type ToolResultRefusal } from "../../core/tool-result/host-context";
import { ok, type Result } from "../../core/result";
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { Approval, HashFn, Principal, ToolCall } from "../../core/tool-result/types";
import { DEFAULT_APPROVER_ID, type ApprovalMode } from "./constants";

/**
 * The reference's `make_approval` for fixture modes: none → no approval; valid → a bound one;
 * expired → expiring one second ago; mismatched → a zero digest. An unknown tool with a mode
 * other than none is refused, as in the reference.
 */
export function makeApproval(
  principal: Principal,
  call: ToolCall,
  spec: ToolSpec | undefined,
  mode: ApprovalMode,
  now: number,
  hash: HashFn = sha256Hex,
): Result<Approval[], ToolResultRefusal> {
  const context = validateHostContext(principal, call, now);
  if (!context.ok) return context;
  if (mode === "none") return ok([]);
  if (spec === undefined) return refuse("APPROVAL_UNAVAILABLE", "an unknown tool cannot create approval");
  const granted = grantApproval(principal, call, spec, { approverId: DEFAULT_APPROVER_ID, now }, hash);
  if (!granted.ok) return granted;
  const approval = granted.value;
  if (mode === "expired") return ok([{ ...approval, expires_at: now - 1 }]);
  if (mode === "mismatched") return ok([{ ...approval, approval_digest: "0".repeat(64) }]);
  return ok([approval]);
}
