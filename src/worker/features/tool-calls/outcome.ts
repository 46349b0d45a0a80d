import type { AuditArguments } from "../../../contracts/consumer";
import type { JsonObject } from "../../../core/json";
import type { ToolRegistry } from "../../../core/tool-result/tool-spec";
import type { HashFn, ResultPackage } from "../../../core/tool-result/types";
import type { StandingLookup } from "../standing/cover";
import type { Problem } from "../../http/problem";
import type { ExternalExecutor } from "../../targets/executor";
import type { McpNotifySink } from "../../targets/mcp/notify";
import type { Span } from "../../trace/span";
import type { AuditRef } from "../audit/service";
import type { ShadowSeen } from "../tools/shadow";

/** Seconds a concurrent duplicate is told to wait (`Retry-After`). */
export const IN_PROGRESS_RETRY_SECONDS = 1;

/** What one tool call came to: the engine's package and what the host needs beside it. */
export interface ToolCallOutcome {
  readonly package: ResultPackage;
  /** The pending approval a write waits for (`APPROVAL_REQUIRED`). */
  readonly approvalId: string | null;
  /** The status reference of an unknown outcome (the host's, never the model's). */
  readonly statusRef: string | null;
  /** The call's hash memo: a projection re-validates the package without hashing again. */
  readonly hash: HashFn;
  /** The audit entry that recorded this outcome (the host's receipt: `audit` of the answer). */
  readonly audit: AuditRef;
}

/** The consumer's tools as configured: what the engine is built from (rebuilt when the configuration changes). */
export interface ToolCallSetup {
  readonly registry: ToolRegistry;
  readonly approvers: readonly string[];
  readonly executor: ExternalExecutor;
  /** What a call's audit record keeps of its arguments (the consumer's `audit_arguments`). */
  readonly auditArguments: AuditArguments;
  /** The consumer's approval window: seconds an approval admits the repeated call when its tool sets none. */
  readonly approvalWindow: number;
  /** Shadow rules beside the enforced ones (../tools/shadow.ts), shown each call's first step in its transaction. */
  readonly shadow?: (seen: ShadowSeen) => void;
  /** The standing approval that covers a write needing a human, its use counted (features/standing); absent: none. */
  readonly standing?: StandingLookup;
  /** The consumer: the tenant of every principal, an input of an edited call's request digest. */
  readonly tenantId: string;
}

/** What one dispatch carries besides the call. */
export interface DispatchOptions {
  /** Never execute (a prepared action opens its approval). */
  readonly prepareOnly?: boolean;
  /**
   * The App Facade's prepare and commit: the call's approvals are the facade's own (opened by
   * its prepare, consumed only by its commit); agent calls never see them, nor it theirs.
   */
  readonly facade?: boolean;
  readonly claims?: JsonObject;
  /** This one call's downstream notifications (an MCP tools/call that relays). */
  readonly notify?: McpNotifySink;
  /**
   * The call acts for an end user whose token the gate verified: an approval it opens for a
   * tool its end user confirms (`confirmedBy`) is the end user's to confirm; otherwise the approvers decide.
   */
  readonly endUser?: boolean;
  /** The agent credential making the call: stored with an approval it opens, named in its events. */
  readonly credentialId?: string | null;
  /** The call's trace span (../../trace): its approval and downstream spans become children. */
  readonly span?: Span;
  /** The agent's words with the call: stored with an approval it opens, shown to approvers, never hashed. */
  readonly rationale?: string | null;
}

/** A package and the audit entry that recorded it. */
export interface Recorded {
  readonly package: ResultPackage;
  readonly audit: AuditRef;
}

/** A recorded package as the host's outcome: the approval it waits for, the status reference of an unknown outcome. */
export function outcomeOf(recorded: Recorded, hash: HashFn, approvalId: string | null = null): ToolCallOutcome {
  const pkg = recorded.package;
  const statusRef = pkg.model_result.status === "unknown" ? pkg.protected_audit.downstream.status_ref : null;
  return { package: pkg, approvalId, statusRef, hash, audit: recorded.audit };
}

/**
 * An approver's decision as the service takes it: the verdict, the digest submitted, the
 * approver's words if any; an edit's arguments (given with `edit`, and only then).
 */
export interface Decision {
  readonly verdict: "approve" | "deny" | "edit";
  readonly digest: string;
  readonly reason?: string;
  readonly arguments?: JsonObject;
}

/** The words of a decision, as the core's decision options take them (absent: none). */
export function decisionWords(decision: Decision): { reason?: string } {
  return decision.reason === undefined ? {} : { reason: decision.reason };
}

/** The detail of each refused decision (its code is the core's `DecisionRefusal`). */
export const DECISION_REFUSALS = {
  APPROVAL_ALREADY_DECIDED: "This approval has already been decided.",
  SELF_APPROVAL_FORBIDDEN: "The subject that requested the call may not decide it.",
  APPROVAL_EXPIRED: "The approval request expired without a decision.",
  APPROVAL_DIGEST_MISMATCH:
    "The approval_digest is not the one computed for this call and this approver; the approval stays pending.",
  END_USER_CONFIRMS:
    "The requesting end user confirms this call in the agent's chat: an approver may deny it, not approve or edit it; the approval stays pending.",
  END_USER_CONFIRMATION_NOT_OFFERED:
    "The consumer's approvers decide this call (its tool is not confirmed by the end user, or the call carried no verified end-user token).",
  PRINCIPAL_MISMATCH: "Only the end user who requested the call may confirm it; the approval stays pending.",
} as const;

/** The problem of edited arguments outside the tool's contract: where (a pointer into the decision body) and what was expected. */
export function editedArgumentsProblem(pointer: string, expected: string): Problem {
  return {
    code: "INVALID_ARGUMENTS",
    detail: `The edited arguments do not fit the tool's contract at ${pointer === "" ? "/arguments" : `/arguments${pointer}`}: expected ${expected}; the approval stays pending.`,
    path: `/arguments${pointer}`,
  };
}
