import type * as z from "../core/zod";
import type { ApprovalDecisionRequest, ApprovalDecisionView, ApprovalList, ApprovalView } from "../contracts/approval";
import type { CapabilityAuthorityRequest } from "../contracts/capability";
import type { StandingApprovalGrant, StandingApprovalList, StandingApprovalView } from "../contracts/standing-approval";
import type { approvalDecision, toolAuthorityCommand } from "../core/capability";
import { approvalStatus, type ApprovalStatus } from "./agent";
import { call, type ClientResult, type GateOptions } from "./transport";
import type { AuthorityAnswer, CapabilityRequestSnapshot, RequestKey, U64 } from "./types";

/** A pending tool-call approval as an approver sees it (`ApprovalView`). */
export type ToolApproval = z.output<typeof ApprovalView>;

/** A standing approval as the gate answers it (`StandingApprovalView`). */
export type StandingApproval = z.output<typeof StandingApprovalView>;

/** What an approver grants (`StandingApprovalGrant`): tool, subject, seconds, max_calls, an optional CEL constraint. */
export type StandingGrant = z.input<typeof StandingApprovalGrant>;

/** A capability authority command (`ToolAuthorityCommand`: `set-grant`, `revoke-grant`, `resolve-approval`, `close-client`). */
export type AuthorityCommand = z.input<typeof toolAuthorityCommand>;

/** An approver's client: tool-call approvals and the capability authority lane. */
export class ApproverClient {
  constructor(readonly options: GateOptions) {}

  /** `GET …/approvals`: pending tool-call approvals. */
  listApprovals(cursor?: string): Promise<ClientResult<z.output<typeof ApprovalList>>> {
    return call(
      this.options,
      "GET",
      cursor === undefined ? "/approvals" : `/approvals?cursor=${encodeURIComponent(cursor)}`,
    );
  }

  /** `GET …/approvals/{id}?wait=`: an approval's status; with `waitSeconds` (at most 60) a pending one's answer waits for the decision. */
  approval(approvalId: string, waitSeconds = 0): Promise<ClientResult<ApprovalStatus>> {
    return approvalStatus(this.options, approvalId, waitSeconds);
  }

  /**
   * `POST …/approvals/{id}`: a decision bound to the digest the approver saw; answers the
   * recorded decision. `reason` (1..500 characters): the approver's words; a denial's reach the
   * agent's model with the denied call's result.
   */
  decideApproval(
    approvalId: string,
    decision: "approve" | "deny",
    approvalDigest: string,
    reason?: string,
  ): Promise<ClientResult<z.output<typeof ApprovalDecisionView>>> {
    const body: z.input<typeof ApprovalDecisionRequest> = {
      decision,
      approval_digest: approvalDigest,
      ...(reason === undefined ? {} : { reason }),
    };
    return call(this.options, "POST", `/approvals/${encodeURIComponent(approvalId)}`, body);
  }

  /**
   * `POST …/approvals/{id}` with `edit`: approves `args` instead of the proposed arguments,
   * bound to the digest the approver saw (docs/approvals.md, "Edit"). The proposed call never
   * runs; the agent is told to call again with exactly `args`, and `reason` as the approver's words.
   */
  edit(
    approvalId: string,
    approvalDigest: string,
    args: Record<string, unknown>,
    reason?: string,
  ): Promise<ClientResult<z.output<typeof ApprovalDecisionView>>> {
    const body: z.input<typeof ApprovalDecisionRequest> = {
      decision: "edit",
      approval_digest: approvalDigest,
      arguments: args,
      ...(reason === undefined ? {} : { reason }),
    };
    return call(this.options, "POST", `/approvals/${encodeURIComponent(approvalId)}`, body);
  }

  /**
   * `POST …/standing-approvals`: lets `grant.subject_id`'s calls of `grant.tool` run without a
   * per-call decision for `seconds` and at most `max_calls` calls, each only when the CEL
   * `constraint` admits its arguments (docs/approvals.md, "Standing approvals").
   */
  grantStanding(grant: StandingGrant): Promise<ClientResult<StandingApproval>> {
    return call(this.options, "POST", "/standing-approvals", grant);
  }

  /** `GET …/standing-approvals`: the consumer's standing approvals, newest first. */
  listStanding(): Promise<ClientResult<z.output<typeof StandingApprovalList>>> {
    return call(this.options, "GET", "/standing-approvals");
  }

  /** `DELETE …/standing-approvals/{id}`: revokes one; the next call it would have covered needs its own approval. */
  revokeStanding(standingApprovalId: string): Promise<ClientResult<StandingApproval>> {
    return call(this.options, "DELETE", `/standing-approvals/${encodeURIComponent(standingApprovalId)}`);
  }

  /** `GET …/capability/approvals`: capability requests awaiting approval. */
  capabilityApprovals(): Promise<
    ClientResult<{ approvals: CapabilityRequestSnapshot[]; last_authority_sequence: U64; tick: U64 }>
  > {
    return call(this.options, "GET", "/capability/approvals");
  }

  /** `POST …/capability/authority`: one command; without `sequence` the gate takes the next one. */
  authority(command: AuthorityCommand, sequence?: U64): Promise<ClientResult<AuthorityAnswer>> {
    const body: z.input<typeof CapabilityAuthorityRequest> =
      sequence === undefined ? { command } : { sequence, command };
    return call(this.options, "POST", "/capability/authority", body);
  }

  /** Approves (once) or denies a capability request awaiting approval. */
  resolveCapability(
    key: RequestKey,
    acceptedSequence: U64,
    instanceId: U64,
    generation: U64,
    decision: z.input<typeof approvalDecision>,
  ): Promise<ClientResult<AuthorityAnswer>> {
    return this.authority({
      "resolve-approval": {
        resolution: {
          request_key: key,
          accepted_sequence: acceptedSequence,
          instance_id: instanceId,
          generation,
          decision,
        },
      },
    });
  }
}
