/**
 * The console's section of standing approvals (docs/console.md): its page's data, a grant (with
 * "Approve and allow for …", the pending approval it came from approved first, in the same
 * call) and a revocation, each for the approver of a live console session, the state-changing
 * ones only with the session's CSRF token.
 * @module
 */
import { digestForApprover } from "../../../core/tool-result/approval-book";
import type { StandingApprovalsSetting } from "../../../contracts/consumer";
import type { StandingApprovalGrant, StandingApprovalView } from "../../../contracts/standing-approval";
import { ok, type Outcome } from "../../result";
import type { ConsumerRecord } from "../consumers/service";
import type { ConsoleIdentity } from "../console/view";
import type { Services } from "../../kernel/feature";
import { STANDING_LIST_ITEMS } from "./service";
import { viewOf } from "./store";

/** A pending approval the page offers to approve and allow: its tool, its subject and the digest for this approver. */
export interface PendingOffer {
  readonly approvalId: string;
  readonly tool: string;
  readonly subjectId: string;
  readonly digest: string;
}

/** One call of the console's standing section. */
export type StandingConsoleCall =
  | { readonly kind: "page"; readonly approvalId: string | null }
  | {
      readonly kind: "grant";
      readonly csrf: string;
      readonly grant: StandingApprovalGrant;
      /** "Approve and allow": the pending approval approved with it, by the digest the page showed. */
      readonly approve: { readonly approvalId: string; readonly digest: string } | null;
    }
  | { readonly kind: "revoke"; readonly csrf: string; readonly standingId: string };

/** The section's page data. */
export interface StandingConsolePage {
  readonly identity: ConsoleIdentity;
  readonly setting: StandingApprovalsSetting | null;
  readonly offer: PendingOffer | null;
  readonly standing: readonly StandingApprovalView[];
}

/** The answer of a {@link StandingConsoleCall}. */
export type StandingConsoleReply =
  | { readonly kind: "page"; readonly page: StandingConsolePage }
  | { readonly kind: "done"; readonly standingId: string };

/** What the section uses: the console's sessions, the standing approvals, the tools, the approval book and the clock. */
export type StandingConsoleServices = Pick<Services, "console" | "standing" | "tools" | "toolCalls" | "kernel">;

/** The pending approval of this id as this approver would approve it; `null` when none is pending. */
function pendingOffer(
  s: StandingConsoleServices,
  config: ConsumerRecord,
  approvalId: string,
  approverId: string,
): PendingOffer | null {
  const plane = s.toolCalls.for(config);
  const record = plane.book.get(approvalId);
  const spec = record === undefined ? undefined : plane.engine.registry.get(record.call.name);
  if (record === undefined || spec === undefined || record.state !== "pending" || record.expires_at <= s.kernel.now())
    return null;
  return {
    approvalId,
    tool: record.call.name,
    subjectId: record.subject_id,
    digest: digestForApprover(record, spec, approverId),
  };
}

/** Runs one call of the section. */
export function standingConsole(
  s: StandingConsoleServices,
  consumer: string,
  sessionId: string,
  call: StandingConsoleCall,
): Outcome<StandingConsoleReply> {
  const who = s.console.sessionFor(consumer, sessionId, call.kind === "page" ? null : call.csrf);
  if (!who.ok) return who;
  const { config, identity } = who.value;
  const approverId = identity.approverId;
  switch (call.kind) {
    case "page": {
      const offer = call.approvalId === null ? null : pendingOffer(s, config, call.approvalId, approverId);
      const now = s.kernel.now();
      const standing = s.standing.store.newest(STANDING_LIST_ITEMS).map((row) => viewOf(row, now));
      return ok({ kind: "page", page: { identity, setting: config.standingApprovals, offer, standing } });
    }
    case "grant": {
      if (call.approve !== null) {
        // The pending call itself is decided as any decision is; the grant covers the calls after it.
        const decided = s.toolCalls
          .for(config)
          .decide(
            call.approve.approvalId,
            approverId,
            { verdict: "approve", digest: call.approve.digest },
            s.kernel.now(),
          );
        if (!decided.ok) return decided;
      }
      const granted = s.standing.grant(config, s.tools.registry(config.tools), approverId, call.grant);
      return granted.ok ? ok({ kind: "done", standingId: granted.value.standing_approval_id }) : granted;
    }
    case "revoke": {
      const revoked = s.standing.revoke(call.standingId, approverId);
      return revoked.ok ? ok({ kind: "done", standingId: call.standingId }) : revoked;
    }
  }
}
