/**
 * An `approvals` row read back as the core's `ApprovalRecord` (the table's migrations are the
 * service's, store.ts; the book that writes it is approval-store.ts).
 * @module
 */
import type { JsonObject } from "../../../core/json";
import type { ApprovalRecord, ApprovalState } from "../../../core/tool-result/approval-book";
import { callFromJson } from "../../../core/tool-result/dispatcher-state";
import { int, intOrNull, storedJson, text, textOrNull, type SqlRow } from "../../kernel/sql";

const STATES: readonly ApprovalState[] = ["pending", "approved", "denied", "edited", "withdrawn"];

/** An `approvals` row as the core's record; a row no version of the gate wrote is a bug (it throws). */
export function recordOf(row: SqlRow): ApprovalRecord {
  const state = text(row, "state") as ApprovalState;
  if (!STATES.includes(state)) throw new Error("stored approval state is unknown");
  const bound = storedJson(text(row, "call"), "approval call") as JsonObject;
  const requestSha256 = bound["request_sha256"];
  if (typeof requestSha256 !== "string") throw new Error("stored approval digest is not text");
  return {
    approval_id: text(row, "approval_id"),
    state,
    subject_id: text(row, "subject_id"),
    call: callFromJson(bound["call"] as JsonObject),
    request_sha256: requestSha256,
    requested_at: int(row, "requested_at"),
    expires_at: int(row, "expires_at"),
    approver_id: textOrNull(row, "approver_id"),
    decision_digest: textOrNull(row, "decision_digest"),
    decided_at: intOrNull(row, "decided_at"),
    valid_until: intOrNull(row, "valid_until"),
    reason: textOrNull(row, "reason"),
    rationale: textOrNull(row, "rationale"),
    edited_request_sha256: textOrNull(row, "edited_request_sha256"),
    edited_arguments: editedArguments(textOrNull(row, "edited_arguments")),
    confirmed_by: endUserOrNull(row, "confirmed_by"),
    decided_by: endUserOrNull(row, "decided_by"),
  };
}

function endUserOrNull(row: SqlRow, column: string): "end_user" | null {
  const value = textOrNull(row, column);
  if (value !== null && value !== "end_user") throw new Error(`stored approval ${column} is unknown`);
  return value;
}

function editedArguments(stored: string | null): JsonObject | null {
  return stored === null ? null : (storedJson(stored, "edited arguments") as JsonObject);
}
