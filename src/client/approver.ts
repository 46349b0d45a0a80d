import { call, type ClientResult, type GateOptions } from "./transport";
import type { RequestKey, U64 } from "./types";

/** A pending tool-call approval as an approver sees it. */
export interface ToolApproval {
  approval_id: string;
  state: string;
  tool: string;
  arguments: Record<string, unknown>;
  subject_id: string;
  approval_digest: string;
  requested_at: number;
  expires_at: number;
}

/** A capability authority command (`set-grant`, `revoke-grant`, `resolve-approval`, `close-client`). */
export type AuthorityCommand = Record<string, unknown>;

/** An approver's client: tool-call approvals and the capability authority lane. */
export class ApproverClient {
  constructor(readonly options: GateOptions) {}

  /** `GET …/approvals`: pending tool-call approvals. */
  listApprovals(): Promise<ClientResult<{ approvals: ToolApproval[] }>> {
    return call(this.options, "GET", "/approvals");
  }

  /** `POST …/approvals/{id}`: a decision bound to the digest the approver saw. */
  decideApproval(approvalId: string, decision: "approve" | "deny", approvalDigest: string): Promise<ClientResult<Record<string, unknown>>> {
    return call(this.options, "POST", `/approvals/${encodeURIComponent(approvalId)}`, { decision, approval_digest: approvalDigest });
  }

  /** `GET …/capability/approvals`: capability requests awaiting approval. */
  capabilityApprovals(): Promise<ClientResult<{ approvals: Record<string, unknown>[]; last_authority_sequence: U64; tick: U64 }>> {
    return call(this.options, "GET", "/capability/approvals");
  }

  /** `POST …/capability/authority`: one command; without `sequence` the gate takes the next one. */
  authority(command: AuthorityCommand, sequence?: U64): Promise<ClientResult<{ sequence: U64; outcome: unknown }>> {
    return call(this.options, "POST", "/capability/authority", sequence === undefined ? { command } : { sequence, command });
  }

  /** Approves (once) or denies a capability request awaiting approval. */
  resolveCapability(key: RequestKey, acceptedSequence: U64, instanceId: U64, generation: U64, decision: "approve-once" | "deny"): Promise<ClientResult<{ sequence: U64; outcome: unknown }>> {
    return this.authority({ "resolve-approval": { resolution: { request_key: key, accepted_sequence: acceptedSequence, instance_id: instanceId, generation, decision } } });
  }
}
