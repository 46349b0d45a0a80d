/**
 * Wire contracts for the engine's public records: request statuses and snapshots,
 * observation dispositions, audit events and the engine snapshot.
 * @module
 */
import * as z from "../zod";
import {
  approvalDecision,
  capabilityOwner,
  capabilityProviderDescriptor,
  capabilityRequestKey,
  policyDecision,
  policyDenial,
  policyGrant,
  policyKey,
} from "./wire-policy";
import {
  cancellationDisposition,
  capabilityResultMetadata,
  completionDropReason,
  toolFailure,
  toolFailureKind,
  toolInstanceState,
} from "./wire-invocation";
import {
  consumerId,
  optional,
  resourceScopeId,
  toolActorId,
  toolCapabilityId,
  toolProviderId,
  u64,
  usize,
  variant,
} from "./wire-scalars";

const closure = z.deferred(() => z.object({ operation_id: optional(u64), cancellation: cancellationDisposition }));

/** `CapabilityRequestStatus` variants in declaration order. */
export const CAPABILITY_REQUEST_STATUS_VARIANTS = [
  "denied",
  "awaiting-approval",
  "dispatched",
  "succeeded",
  "failed",
  "approval-denied",
  "grant-revoked",
  "timed-out",
  "superseded",
  "instance-closed",
  "client-closed",
  "provider-detached",
] as const;

/** `CapabilityRequestStatus`. */
export const capabilityRequestStatus = z.deferred(() =>
  z.union([
    z.enum(["awaiting-approval", "approval-denied"]),
    variant("denied", z.object({ reason: policyDenial })),
    variant("dispatched", z.object({ operation_id: u64 })),
    variant("succeeded", z.object({ operation_id: u64, result: capabilityResultMetadata })),
    variant("failed", z.object({ operation_id: u64, failure: toolFailure })),
    variant("grant-revoked", closure),
    variant("timed-out", closure),
    variant(
      "superseded",
      z.object({ operation_id: optional(u64), cancellation: cancellationDisposition, current_generation: u64 }),
    ),
    variant("instance-closed", closure),
    variant("client-closed", closure),
    variant("provider-detached", closure),
  ]),
);
export type CapabilityRequestStatus = z.output<typeof capabilityRequestStatus>;

/** `CapabilityRequestStatus::is_terminal`: all but awaiting-approval and dispatched. */
export function isTerminalStatus(status: CapabilityRequestStatus): boolean {
  return status !== "awaiting-approval" && !(typeof status === "object" && "dispatched" in status);
}

/** `CapabilityRequestSnapshot`: the public record; never holds the payload. */
export const capabilityRequestSnapshot = z.deferred(() =>
  z.object({
    key: capabilityRequestKey,
    accepted_sequence: u64,
    accepted_at_tick: u64,
    instance_id: u64,
    generation: u64,
    provider_id: toolProviderId,
    capability_id: toolCapabilityId,
    resource_scope_id: resourceScopeId,
    approval_summary: z.string(),
    approval_summary_bytes: usize,
    deadline_tick: u64,
    payload_bytes: usize,
    policy_decision: policyDecision,
    status: capabilityRequestStatus,
  }),
);
export type CapabilityRequestSnapshot = z.output<typeof capabilityRequestSnapshot>;

/** `ToolAuditSubject`. */
export const toolAuditSubject = z.deferred(() =>
  z.object({
    request_key: capabilityRequestKey,
    accepted_sequence: u64,
    instance_id: u64,
    generation: u64,
    provider_id: toolProviderId,
    capability_id: toolCapabilityId,
    resource_scope_id: resourceScopeId,
  }),
);
export type ToolAuditSubject = z.output<typeof toolAuditSubject>;

/** `ObservationIgnoredReason`, in the order the engine checks them. */
export const observationIgnoredReason = z.deferred(() =>
  z.enum([
    "unknown-request",
    "stale-generation",
    "instance-mismatch",
    "provider-mismatch",
    "request-not-dispatched",
    "operation-mismatch",
    "deadline-elapsed",
  ]),
);
export type ObservationIgnoredReason = z.output<typeof observationIgnoredReason>;

/** `CapabilityObservationDisposition`. */
export const capabilityObservationDisposition = z.deferred(() =>
  z.union([z.literal("applied"), variant("ignored", z.object({ reason: observationIgnoredReason }))]),
);
export type CapabilityObservationDisposition = z.output<typeof capabilityObservationDisposition>;

/** `ToolAuditEventKind`. */
export const toolAuditEventKind = z.deferred(() =>
  z.union([
    variant(
      "provider-registered",
      z.object({ provider_id: toolProviderId, owner: capabilityOwner, capability_count: usize }),
    ),
    variant("grant-set", z.object({ grant: policyGrant })),
    variant("grant-revoked", z.object({ key: policyKey })),
    variant(
      "generation-advanced",
      z.object({ instance_id: u64, previous: optional(u64), current: u64, purged_grant_count: usize }),
    ),
    variant(
      "instance-state-changed",
      z.object({ instance_id: u64, generation: u64, state: toolInstanceState, purged_grant_count: usize }),
    ),
    variant("instance-removed", z.object({ instance_id: u64, previous_generation: u64, purged_grant_count: usize })),
    variant(
      "client-closed",
      z.object({
        consumer_id: consumerId,
        actor_id: toolActorId,
        purged_grant_count: usize,
        closed_request_count: usize,
      }),
    ),
    variant("request-evaluated", z.object({ decision: policyDecision, payload_bytes: usize })),
    variant("approval-resolved", z.object({ decision: approvalDecision })),
    variant("request-grant-revoked", closure),
    variant("invocation-dispatched", z.object({ operation_id: u64 })),
    variant("invocation-succeeded", z.object({ operation_id: u64, result_bytes: u64, truncated: z.boolean() })),
    variant("invocation-failed", z.object({ operation_id: u64, failure_kind: toolFailureKind })),
    variant("request-timed-out", closure),
    variant(
      "request-superseded",
      z.object({ operation_id: optional(u64), cancellation: cancellationDisposition, current_generation: u64 }),
    ),
    variant("request-instance-closed", closure),
    variant("request-client-closed", closure),
    variant("request-provider-detached", closure),
    variant("completion-dropped", z.object({ completion_sequence: optional(u64), reason: completionDropReason })),
    variant("observation-ignored", z.object({ operation_id: u64, reason: observationIgnoredReason })),
  ]),
);
export type ToolAuditEventKind = z.output<typeof toolAuditEventKind>;

/** `ToolAuditEvent`. */
export const toolAuditEvent = z.deferred(() =>
  z.object({
    sequence: u64,
    tick: u64,
    subject: optional(toolAuditSubject),
    event: toolAuditEventKind,
  }),
);
export type ToolAuditEvent = z.output<typeof toolAuditEvent>;

/** `ToolEngineSnapshot`: a projection of the engine (no payloads, no queues). */
export const toolEngineSnapshot = z.deferred(() =>
  z.object({
    revision: u64,
    current_tick: u64,
    generations: z.array(z.tuple([u64, u64])),
    instance_states: z.array(z.tuple([u64, toolInstanceState])),
    providers: z.array(capabilityProviderDescriptor),
    grants: z.array(policyGrant),
    requests: z.array(capabilityRequestSnapshot),
    audit_events: z.array(toolAuditEvent),
    dropped_audit_events: u64,
    revision_overflow_count: u64,
    next_completion_sequence: u64,
    dropped_completions: u64,
    effect_sequence_exhausted: z.boolean(),
    completion_sequence_exhausted: z.boolean(),
    audit_sequence_exhausted: z.boolean(),
  }),
);
export type ToolEngineSnapshot = z.output<typeof toolEngineSnapshot>;
