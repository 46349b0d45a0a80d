import {
  DEFAULT_APPROVAL_VALID_SECONDS,
  type ConsumerConfig,
  type StandingApprovalsSetting,
} from "../../../contracts/consumer";
import type { AuditChain } from "../audit/service";
import { DEFAULT_LIMITS, type Limits } from "../../kernel/limits";
import { loadConsumer, saveConsumer, type ConsumerRecord } from "./store";

export type { ConsumerRecord };

/** Seconds an approval admits the repeated call for a tool without its own window: the consumer's, or the default. */
export function approvalWindowOf(record: ConsumerRecord | undefined): number {
  return record?.approvalValidSeconds ?? DEFAULT_APPROVAL_VALID_SECONDS;
}

/** The standing approvals setting as a configuration member: present only when the consumer allows any. */
export function standingOf(record: ConsumerRecord): { standing_approvals?: StandingApprovalsSetting } {
  return record.standingApprovals === null ? {} : { standing_approvals: { ...record.standingApprovals } };
}

/** A consumer's limits: its overrides over the documented defaults. */
export function limitsOf(record: ConsumerRecord | undefined): Limits {
  return record === undefined ? DEFAULT_LIMITS : { ...DEFAULT_LIMITS, ...record.limits };
}

/** The consumer's configuration: its enabled tools, approvers, token issuer and limits, cached between calls. */
export class ConsumerService {
  #current: ConsumerRecord | undefined;

  constructor(
    private readonly sql: SqlStorage,
    private readonly audit: AuditChain,
  ) {}

  /** Reads the stored configuration (on start; `undefined` until an admin creates the consumer). */
  load(): ConsumerRecord | undefined {
    this.#current = loadConsumer(this.sql);
    return this.#current;
  }

  /** The configuration as last loaded or saved. */
  current(): ConsumerRecord | undefined {
    return this.#current;
  }

  /** Creates or updates the consumer and audits it; inside the caller's transaction. Answers the stored view. */
  configure(consumer: string, config: ConsumerConfig, now: number): string {
    const created = saveConsumer(
      this.sql,
      {
        name: consumer,
        tools: config.tools,
        approverSubjects: config.approver_subjects,
        principalTokens: config.principal_tokens ?? null,
        limits: config.limits ?? {},
        corsOrigins: config.cors_origins ?? [],
        auditArguments: config.audit_arguments ?? "digest",
        approvalValidSeconds: config.approval_valid_seconds ?? null,
        standingApprovals: config.standing_approvals ?? null,
      },
      now,
    );
    const stored = this.load();
    if (stored === undefined) throw new Error("consumer row missing right after it was saved");
    const limits = limitsOf(stored);
    const issuer =
      stored.principalTokens === null
        ? null
        : { issuer: stored.principalTokens.issuer, audience: stored.principalTokens.audience };
    // The CORS allow-list is listed (audited and answered) only when the consumer allows an origin.
    const cors = stored.corsOrigins.length === 0 ? {} : { cors_origins: stored.corsOrigins };
    // Likewise the arguments setting, only when it departs from the default (digests).
    const kept = stored.auditArguments === "digest" ? {} : { audit_arguments: stored.auditArguments };
    // Likewise the approval window, only when the consumer set one (absent: the default).
    const window = stored.approvalValidSeconds === null ? {} : { approval_valid_seconds: stored.approvalValidSeconds };
    // Likewise the standing approvals setting, only when the consumer allows any.
    const standing = standingOf(stored);
    this.audit.append("consumer.configured", now, {
      consumer,
      tools: stored.tools,
      approver_subjects: stored.approverSubjects,
      principal_tokens: issuer,
      limits: { ...limits },
      ...cors,
      ...kept,
      ...window,
      ...standing,
    });
    return JSON.stringify({
      consumer,
      tools: stored.tools,
      approver_subjects: stored.approverSubjects,
      principal_tokens: stored.principalTokens,
      limits,
      ...cors,
      ...kept,
      ...window,
      ...standing,
      created,
    });
  }
}
