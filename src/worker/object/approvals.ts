import { canonicalJson, readJson, sha256Hex, type JsonObject } from "../../core/json";
import { APPROVAL_TTL_SECONDS } from "../../core/tool-result/constants";
import { approvalDigest } from "../../core/tool-result/digests";
import { boundApproval } from "../../core/tool-result/approvals";
import { callJson } from "../../core/tool-result/dispatcher-state";
import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { Approval, Principal, ToolCall } from "../../core/tool-result/types";
import type { ApprovalView } from "../contracts/approval";
import { problem } from "../problem";
import { fail, ok, type Outcome } from "../result";
import { secretsEqual } from "../timing-safe";
import { all, int, one, run, STORED_JSON, text, textOrNull, type SqlRow } from "./sql";

/** How long a pending approval request waits for a decision; silence after that is denial. */
export const PENDING_APPROVAL_SECONDS = 900;

/** The decision as stored and answered. */
export interface DecisionRecord {
  approval_id: string;
  state: "approved" | "denied";
  approver_id: string;
  decided_at: number;
  valid_until: number | null;
  bound_to_request: boolean;
}

/** What is needed to show and decide an approval. */
export interface PendingRow {
  approvalId: string;
  state: string;
  subjectId: string;
  tool: string;
  call: ToolCall;
  requestSha256: string;
  requestedAt: number;
  expiresAt: number;
}

/** The lookup key of a call's approvals: the exact call (arguments included) and its request digest. */
export function approvalBindingKey(call: ToolCall, requestSha256: string): string {
  return sha256Hex(canonicalJson({ call: callJson(call), request_sha256: requestSha256 }));
}

function parseCall(json: string): { call: ToolCall; requestSha256: string } {
  const parsed = readJson(json, STORED_JSON);
  if (!parsed.ok) throw new Error("stored approval call is not strict JSON");
  const value = parsed.value as JsonObject;
  return { call: value.call as unknown as ToolCall, requestSha256: value.request_sha256 as string };
}

function pendingRow(row: SqlRow): PendingRow {
  const { call, requestSha256 } = parseCall(text(row, "call"));
  return {
    approvalId: text(row, "approval_id"),
    state: text(row, "state"),
    subjectId: text(row, "subject_id"),
    tool: text(row, "tool"),
    call,
    requestSha256,
    requestedAt: int(row, "requested_at"),
    expiresAt: int(row, "expires_at"),
  };
}

function randomId(): string {
  return `apr_${crypto.randomUUID().replaceAll("-", "")}`;
}

/**
 * Approvals as resources: a pending request per exact call, decided once by an allowed approver
 * who is not the requesting subject, bound to the digest that approver saw.
 */
export class ApprovalBook {
  constructor(private readonly sql: SqlStorage) {}

  /**
   * The approvals the engine should weigh for this call. An approval counts only while valid;
   * a denial, and a request left pending past its window, are handed over as already expired,
   * so the engine answers APPROVAL_INVALID (silence is denial).
   */
  decidedFor(call: ToolCall, principal: Principal, spec: ToolSpec, bindingKey: string, now: number): { approvals: Approval[]; pendingId: string | null } {
    const approvals: Approval[] = [];
    let pendingId: string | null = null;
    for (const row of all(this.sql, "SELECT * FROM approvals WHERE binding_key = ? ORDER BY requested_at", bindingKey)) {
      const state = text(row, "state");
      const expiresAt = int(row, "expires_at");
      if (state === "pending" && expiresAt > now) {
        pendingId = text(row, "approval_id");
        continue;
      }
      const approvalId = text(row, "approval_id");
      if (state === "approved") {
        approvals.push(
          boundApproval(principal, call, spec, {
            approval_id: approvalId,
            approval_digest: text(row, "decision_digest"),
            expires_at: int(row, "valid_until"),
            approver_id: text(row, "approver_id"),
          }),
        );
      } else {
        const at = state === "denied" ? int(row, "decided_at") : expiresAt;
        approvals.push(
          boundApproval(principal, call, spec, {
            approval_id: approvalId,
            approval_digest: "0".repeat(64),
            expires_at: Math.min(at, now),
            approver_id: textOrNull(row, "approver_id") ?? "-",
          }),
        );
      }
    }
    return { approvals, pendingId };
  }

  /** Opens a pending approval request for a call; answers its id. */
  request(principal: Principal, call: ToolCall, requestSha256: string, bindingKey: string, now: number): string {
    const id = randomId();
    run(
      this.sql,
      `INSERT INTO approvals (approval_id, binding_key, state, subject_id, tool, arguments, call, requested_at, expires_at)
       VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?)`,
      id,
      bindingKey,
      principal.subject_id,
      call.name,
      canonicalJson(call.arguments),
      canonicalJson({ call: callJson(call), request_sha256: requestSha256 }),
      now,
      now + PENDING_APPROVAL_SECONDS,
    );
    return id;
  }

  /** Pending, unexpired requests, each with the digest computed for this approver. */
  listPending(approverId: string, now: number, specOf: (tool: string) => ToolSpec | undefined): ApprovalView[] {
    const views: ApprovalView[] = [];
    for (const row of all(this.sql, "SELECT * FROM approvals WHERE state = 'pending' AND expires_at > ? ORDER BY requested_at, approval_id LIMIT 500", now)) {
      const p = pendingRow(row);
      const spec = specOf(p.tool);
      if (spec === undefined) continue;
      const args = readJson(text(row, "arguments"), STORED_JSON);
      if (!args.ok) throw new Error("stored approval arguments are not strict JSON");
      views.push({
        approval_id: p.approvalId,
        state: "pending",
        tool: p.tool,
        arguments: args.value as Record<string, unknown>,
        subject_id: p.subjectId,
        approval_digest: approvalDigest(p.call, spec, p.requestSha256, approverId),
        requested_at: p.requestedAt,
        expires_at: p.expiresAt,
      });
    }
    return views;
  }

  /**
   * Records one decision. The decision binds the digest the approver submitted; whether it is
   * the digest of the pending call is answered (`bound_to_request`) and checked again, by the
   * engine, when the agent repeats the call.
   */
  decide(
    approvalId: string,
    approverId: string,
    decision: "approve" | "deny",
    submittedDigest: string,
    now: number,
    specOf: (tool: string) => ToolSpec | undefined,
  ): Outcome<{ record: DecisionRecord; pending: PendingRow }> {
    const row = one(this.sql, "SELECT * FROM approvals WHERE approval_id = ?", approvalId);
    if (row === undefined) return fail(problem("NOT_FOUND", "No such approval."));
    const p = pendingRow(row);
    const spec = specOf(p.tool);
    if (spec === undefined) return fail(problem("NOT_FOUND", "No such approval."));
    if (p.state !== "pending") return fail(problem("APPROVAL_ALREADY_DECIDED", "This approval has already been decided."));
    if (p.subjectId === approverId) {
      return fail(problem("SELF_APPROVAL_FORBIDDEN", "The subject that requested the call may not decide it."));
    }
    if (p.expiresAt <= now) return fail(problem("APPROVAL_EXPIRED", "The approval request expired without a decision."));
    const expected = approvalDigest(p.call, spec, p.requestSha256, approverId);
    const bound = secretsEqual(submittedDigest, expected);
    const state = decision === "approve" ? "approved" : "denied";
    const validUntil = decision === "approve" ? now + APPROVAL_TTL_SECONDS : null;
    run(
      this.sql,
      "UPDATE approvals SET state = ?, approver_id = ?, decision_digest = ?, decided_at = ?, valid_until = ? WHERE approval_id = ? AND state = 'pending'",
      state,
      approverId,
      submittedDigest,
      now,
      validUntil,
      approvalId,
    );
    return ok({
      record: { approval_id: approvalId, state, approver_id: approverId, decided_at: now, valid_until: validUntil, bound_to_request: bound },
      pending: p,
    });
  }
}
