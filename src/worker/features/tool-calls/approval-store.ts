/**
 * The approval book (the core's `ApprovalBook` port) over the `approvals` table, whose
 * migrations are the service's (store.ts).
 * @module
 */
import { canonicalJson } from "../../../core/json";
import { err, ok, type Result } from "../../../core/result";
import type {
  ApprovalBook,
  ApprovalDecisionRecord,
  ApprovalQuotaExceeded,
  ApprovalRecord,
  ApprovalRequest,
} from "../../../core/tool-result/approval-book";
import type { ApprovalEditRecord } from "../../../core/tool-result/approval-edit";
import { callJson } from "../../../core/tool-result/dispatcher-state";
import { claimEdited, editKey, recordEdit } from "./approval-edit-store";
import type { ToolCall } from "../../../core/tool-result/types";
import type { Limits } from "../../kernel/limits";
import { all, int, intOrNull, one, run, textOrNull, type SqlRow } from "../../kernel/sql";
import { recordOf } from "./approval-rows";

/** An approval's age: its decision (it is valid at most 3600 s after), or the lapse of a request never decided. */
export const APPROVAL_END = "COALESCE(decided_at, expires_at)";
/** The counter of the approvals' positions (`seq`): never reused, even once the rows before expired (v14 seeds it). */
export const APPROVAL_SEQ = "toolgate.approvals.seq";

function randomId(): string {
  return `apr_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** One page of pending approvals, in insertion order. */
export interface PendingPage {
  readonly records: readonly ApprovalRecord[];
  /** The position after the page's last row, or `null` when no row follows it. */
  readonly next: number | null;
}

/** The path a call came by: `null` for agent calls (`/tool-calls`, MCP), `"facade"` for the App Facade. */
export type ApprovalOrigin = "facade" | null;

/** The pending approvals one subject, and one opening credential, may hold. */
export type PendingQuota = Pick<Limits, "pending_approvals_per_subject" | "pending_approvals_per_credential">;

/** When `held` pending approvals fill `quota`: the seconds until the first of them lapses (its `Retry-After`); else null. */
function full(held: SqlRow | undefined, quota: number, now: number): number | null {
  if (held === undefined) throw new Error("an aggregate query returned no row");
  return int(held, "n") >= quota ? Math.max(1, (intOrNull(held, "first") ?? now + 1) - now) : null;
}

/**
 * The approval book (the core's port) over the `approvals` table. `pendingQuota` answers how
 * many pending, unexpired approvals one subject, and one opening credential (whatever subjects
 * it names: a host credential names any), may hold; read at each open, so a changed
 * configuration applies at once.
 */
export class SqlApprovalBook implements ApprovalBook {
  /** The agent credential of the call being dispatched (set for one transaction), stored with what it opens. */
  opener: string | null = null;
  /**
   * The path of the call being dispatched (set for one transaction): `null` for agent calls
   * (`/tool-calls`, MCP), `"facade"` for the App Facade. Approvals are kept apart by it (the
   * stored binding key carries it), so an approval the facade opened is found only by the
   * facade's own dispatch, and an agent's only by agent calls.
   */
  origin: ApprovalOrigin = null;
  /** The agent's words with the call being dispatched (set for one transaction), stored with what it opens. */
  rationale: string | null = null;
  /** Who confirms what the call being dispatched opens (set for one transaction): `"end_user"`, or null (the approvers). */
  confirmedBy: "end_user" | null = null;

  constructor(
    private readonly sql: SqlStorage,
    private readonly pendingQuota: () => PendingQuota,
    private readonly opened: (record: ApprovalRecord, openedBy: string | null) => void = () => {},
  ) {}

  /** byBinding's answers within {@link remembering}, by stored key; forgotten at any write to the book. */
  #memo: Map<string, readonly ApprovalRecord[]> | null = null;

  /**
   * Runs `step` (one dispatch's synchronous work inside its transaction) remembering byBinding's
   * answers: the engine's approval step and the audit entry after the run read the same rows.
   * Any write through the book forgets them, and nothing is remembered after `step`.
   */
  remembering<T>(step: () => T): T {
    this.#memo = new Map();
    try {
      return step();
    } finally {
      this.#memo = null;
    }
  }

  /** Called by every write to the `approvals` table through the book. */
  #changed(): void {
    this.#memo?.clear();
  }

  /** The stored binding key of a call's approvals on a path (the current one by default: see `origin`). */
  #stored(bindingKey: string, origin: ApprovalOrigin = this.origin): string {
    return origin === null ? bindingKey : `${origin}:${bindingKey}`;
  }

  /** A call's approvals on the current path, or on `origin` (an audit record written after the dispatch's step). */
  byBinding(bindingKey: string, origin: ApprovalOrigin = this.origin): ApprovalRecord[] {
    const stored = this.#stored(bindingKey, origin);
    const remembered = this.#memo?.get(stored);
    if (remembered !== undefined) return [...remembered];
    const records = all(this.sql, "SELECT * FROM approvals WHERE binding_key = ? ORDER BY requested_at", stored).map(
      recordOf,
    );
    this.#memo?.set(stored, records);
    return [...records];
  }

  open(request: ApprovalRequest): Result<string, ApprovalQuotaExceeded> {
    const quota = this.pendingQuota();
    const pending = "COUNT(*) AS n, MIN(expires_at) AS first FROM approvals WHERE state = 'pending' AND expires_at > ?";
    const bySubject = full(
      one(this.sql, `SELECT ${pending} AND subject_id = ?`, request.requested_at, request.subject_id),
      quota.pending_approvals_per_subject,
      request.requested_at,
    );
    const byCredential =
      this.opener === null
        ? null
        : full(
            one(this.sql, `SELECT ${pending} AND opened_by = ?`, request.requested_at, this.opener),
            quota.pending_approvals_per_credential,
            request.requested_at,
          );
    if (bySubject !== null || byCredential !== null) {
      return err({ code: "QUOTA_EXCEEDED", retry_after_seconds: Math.max(bySubject ?? 1, byCredential ?? 1) });
    }
    const id = randomId();
    this.#changed();
    run(
      this.sql,
      "INSERT INTO counters (name, value) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM approvals)) ON CONFLICT (name) DO UPDATE SET value = value + 1",
      APPROVAL_SEQ,
    );
    run(
      this.sql,
      `INSERT INTO approvals (approval_id, binding_key, state, subject_id, tool, arguments, call, requested_at, expires_at, opened_by, rationale, confirmed_by, seq)
       VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT value FROM counters WHERE name = '${APPROVAL_SEQ}'))`,
      id,
      this.#stored(request.binding_key),
      request.subject_id,
      request.call.name,
      canonicalJson(request.call.arguments),
      canonicalJson({ call: callJson(request.call), request_sha256: request.request_sha256 }),
      request.requested_at,
      request.expires_at,
      this.opener,
      this.rationale,
      this.confirmedBy,
    );
    const record = this.get(id);
    if (record === undefined) throw new Error("an approval just opened is missing");
    this.opened(record, this.opener);
    return ok(id);
  }

  get(approvalId: string): ApprovalRecord | undefined {
    const row = one(this.sql, "SELECT * FROM approvals WHERE approval_id = ?", approvalId);
    return row === undefined ? undefined : recordOf(row);
  }

  /** The agent credential that opened an approval (`null`: none recorded, `undefined`: no such approval). */
  openedBy(approvalId: string): string | null | undefined {
    const row = one(this.sql, "SELECT opened_by FROM approvals WHERE approval_id = ?", approvalId);
    return row === undefined ? undefined : textOrNull(row, "opened_by");
  }

  /** The pending, unexpired approvals a credential opened (`null`: all), oldest first, at most `limit`. */
  pendingOf(openedBy: string | null, now: number, limit: number): ApprovalRecord[] {
    const rows =
      openedBy === null
        ? all(
            this.sql,
            "SELECT * FROM approvals WHERE state = 'pending' AND expires_at > ? ORDER BY seq LIMIT ?",
            now,
            limit,
          )
        : all(
            this.sql,
            "SELECT * FROM approvals WHERE opened_by = ? AND state = 'pending' AND expires_at > ? ORDER BY seq LIMIT ?",
            openedBy,
            now,
            limit,
          );
    return rows.map(recordOf);
  }

  /** Decided (or withdrawn) approvals, newest decision first, after position `before` (a `decided_at`/`seq` pair), at most `limit`. */
  decidedPage(
    before: { decidedAt: number; seq: number } | null,
    limit: number,
  ): { records: ApprovalRecord[]; next: { decidedAt: number; seq: number } | null } {
    const rows =
      before === null
        ? all(
            this.sql,
            "SELECT * FROM approvals WHERE decided_at IS NOT NULL ORDER BY decided_at DESC, seq DESC LIMIT ?",
            limit + 1,
          )
        : all(
            this.sql,
            "SELECT * FROM approvals WHERE decided_at IS NOT NULL AND (decided_at < ? OR (decided_at = ? AND seq < ?)) ORDER BY decided_at DESC, seq DESC LIMIT ?",
            before.decidedAt,
            before.decidedAt,
            before.seq,
            limit + 1,
          );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      records: page.map(recordOf),
      next:
        rows.length > limit && last !== undefined
          ? { decidedAt: int(last, "decided_at"), seq: int(last, "seq") }
          : null,
    };
  }

  /**
   * Pending, unexpired requests after position `after` (0: from the start), oldest first, at
   * most `limit`. Positions follow insertion, so a request opened while an approver pages
   * always comes after the pages already read.
   */
  pendingPage(now: number, after: number, limit: number): PendingPage {
    const rows = all(
      this.sql,
      "SELECT * FROM approvals WHERE state = 'pending' AND seq > ? AND expires_at > ? ORDER BY seq LIMIT ?",
      after,
      now,
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { records: page.map(recordOf), next: rows.length > limit && last !== undefined ? int(last, "seq") : null };
  }

  /** Records a decision on a request that is still pending. */
  decide(decision: ApprovalDecisionRecord, submittedDigest: string): void {
    this.#changed();
    run(
      this.sql,
      "UPDATE approvals SET state = ?, approver_id = ?, decision_digest = ?, decided_at = ?, valid_until = ?, reason = ?, decided_by = ? WHERE approval_id = ? AND state = 'pending'",
      decision.state,
      decision.approver_id,
      submittedDigest,
      decision.decided_at,
      decision.valid_until,
      decision.reason ?? null,
      decision.decided_by ?? null,
      decision.approval_id,
    );
  }

  editsFor(requestSha256: string): ApprovalRecord[] {
    return this.byBinding(editKey(requestSha256));
  }

  claim(approvalId: string, bindingKey: string, call: ToolCall, approvalDigest: string): void {
    this.#changed();
    claimEdited(this.sql, approvalId, this.#stored(bindingKey), call, approvalDigest);
  }

  /** Records an edit (approval-edit-store.ts); answers the edited call's own approval id. */
  edit(edit: ApprovalEditRecord, submittedDigest: string): string {
    const id = randomId();
    this.#changed();
    recordEdit(this.sql, edit, submittedDigest, id, APPROVAL_SEQ);
    return id;
  }

  /** Withdraws a pending request: it leaves the approvers' list and can no longer be decided. */
  withdraw(approvalId: string, now: number): void {
    this.#changed();
    run(
      this.sql,
      "UPDATE approvals SET state = 'withdrawn', decided_at = ? WHERE approval_id = ? AND state = 'pending'",
      now,
      approvalId,
    );
  }
}
