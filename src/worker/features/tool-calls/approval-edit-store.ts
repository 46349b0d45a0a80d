/**
 * The SQL of an approver's edit over the `approvals` table (the book's `edit` and `claim`,
 * approval-store.ts): the original request marked `edited`, the edited call stored beside it as
 * an approval found by its request digest until a call claims it.
 * @module
 */
import { canonicalJson, type JsonObject } from "../../../core/json";
import type { ApprovalEditRecord } from "../../../core/tool-result/approval-edit";
import { callJson } from "../../../core/tool-result/dispatcher-state";
import type { ToolCall } from "../../../core/tool-result/types";
import { one, run, storedJson, text, textOrNull } from "../../kernel/sql";

/** The stored binding key of an edited approval not yet claimed: found by its request digest (core approval-edit.ts). */
export function editKey(requestSha256: string): string {
  return `edit:${requestSha256}`;
}

/** Binds an edited approval to the call that claims it (`storedKey`: that call's binding on its path) and its digest. */
export function claimEdited(
  sql: SqlStorage,
  approvalId: string,
  storedKey: string,
  call: ToolCall,
  digest: string,
): void {
  const row = one(sql, "SELECT call FROM approvals WHERE approval_id = ?", approvalId);
  if (row === undefined) throw new Error("a claimed approval is missing");
  const bound = storedJson(text(row, "call"), "approval call") as JsonObject;
  run(
    sql,
    "UPDATE approvals SET binding_key = ?, call = ?, decision_digest = ? WHERE approval_id = ? AND state = 'approved'",
    storedKey,
    canonicalJson({ call: callJson(call), request_sha256: bound["request_sha256"] ?? null }),
    digest,
    approvalId,
  );
}

/**
 * Records an edit: the pending request becomes `edited` (never approved), and the edited call
 * is stored beside it as approval `id`, granted for its own request digest, on the original's
 * path (agent or facade), seen by the original's opener. `seqCounter`: the approvals' positions.
 */
export function recordEdit(
  sql: SqlStorage,
  edit: ApprovalEditRecord,
  submittedDigest: string,
  id: string,
  seqCounter: string,
): void {
  const decision = edit.decision;
  const original = one(
    sql,
    "SELECT binding_key, subject_id, opened_by FROM approvals WHERE approval_id = ? AND state = 'pending'",
    decision.approval_id,
  );
  if (original === undefined) throw new Error("an edited approval is no longer pending");
  const path = text(original, "binding_key").startsWith("facade:") ? "facade:" : "";
  const args = canonicalJson(edit.call.arguments);
  run(
    sql,
    "UPDATE approvals SET state = 'edited', approver_id = ?, decision_digest = ?, decided_at = ?, valid_until = ?, reason = ?, edited_request_sha256 = ?, edited_arguments = ? WHERE approval_id = ?",
    decision.approver_id,
    submittedDigest,
    decision.decided_at,
    decision.valid_until,
    decision.reason ?? null,
    edit.request_sha256,
    args,
    decision.approval_id,
  );
  run(
    sql,
    "INSERT INTO counters (name, value) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM approvals)) ON CONFLICT (name) DO UPDATE SET value = value + 1",
    seqCounter,
  );
  run(
    sql,
    `INSERT INTO approvals (approval_id, binding_key, state, subject_id, tool, arguments, call, requested_at, expires_at, approver_id, decision_digest, decided_at, valid_until, reason, opened_by, seq)
     VALUES (?, ?, 'approved', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT value FROM counters WHERE name = ?))`,
    id,
    `${path}${editKey(edit.request_sha256)}`,
    text(original, "subject_id"),
    edit.call.name,
    args,
    canonicalJson({ call: callJson(edit.call), request_sha256: edit.request_sha256 }),
    decision.decided_at,
    decision.decided_at,
    decision.approver_id,
    edit.approval_digest,
    decision.decided_at,
    decision.valid_until,
    decision.reason ?? null,
    textOrNull(original, "opened_by"),
    seqCounter,
  );
}
