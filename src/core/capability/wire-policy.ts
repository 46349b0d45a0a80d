/**
 * Wire contracts for providers, grants, requests and the authority lane
 * (serde: externally tagged kebab-case variants, snake_case fields).
 * @module
 */
import * as z from "../zod";
import {
  bytes,
  consumerId,
  resourceScopeId,
  toolActorId,
  toolCapabilityId,
  toolProviderId,
  u64,
  usize,
  variant,
  optional,
} from "./wire-scalars";

/** `CapabilityOwner`: `"gate"` or `{"consumer": id}`. */
export const capabilityOwner = z.deferred(() => z.union([z.literal("gate"), variant("consumer", consumerId)]));
export type CapabilityOwner = z.output<typeof capabilityOwner>;

/** `CapabilityClass`. */
export const capabilityClass = z.deferred(() => z.enum(["browser", "consumer-state"]));
export type CapabilityClass = z.output<typeof capabilityClass>;

/** `CapabilityDescriptor` (decoded shape; admission is checked by `validateProviderDescriptor`). */
export const capabilityDescriptor = z.deferred(() =>
  z.object({ id: toolCapabilityId, class: capabilityClass, description: z.string() }),
);
export type CapabilityDescriptor = z.output<typeof capabilityDescriptor>;

/** `CapabilityProviderDescriptor`. */
export const capabilityProviderDescriptor = z.deferred(() =>
  z.object({
    id: toolProviderId,
    owner: capabilityOwner,
    capabilities: z.array(capabilityDescriptor),
  }),
);
export type CapabilityProviderDescriptor = z.output<typeof capabilityProviderDescriptor>;

/** `PolicyKey`: the exact 7-tuple a grant is stored under. */
export const policyKey = z.deferred(() =>
  z.object({
    consumer_id: consumerId,
    actor_id: toolActorId,
    instance_id: u64,
    generation: u64,
    provider_id: toolProviderId,
    capability_id: toolCapabilityId,
    resource_scope_id: resourceScopeId,
  }),
);
export type PolicyKey = z.output<typeof policyKey>;

/** `GrantMode`. */
export const grantMode = z.deferred(() => z.enum(["allow", "require-approval"]));
export type GrantMode = z.output<typeof grantMode>;

/** `PolicyGrant`. */
export const policyGrant = z.deferred(() => z.object({ key: policyKey, mode: grantMode }));
export type PolicyGrant = z.output<typeof policyGrant>;

/** `CapabilityRequestKey`: (consumer, actor, local id). */
export const capabilityRequestKey = z.deferred(() =>
  z.object({ consumer_id: consumerId, actor_id: toolActorId, local_id: u64 }),
);
export type CapabilityRequestKey = z.output<typeof capabilityRequestKey>;

/** `CapabilityRequestInput`. */
export const capabilityRequestInput = z.deferred(() =>
  z.object({
    local_id: u64,
    instance_id: u64,
    generation: u64,
    provider_id: toolProviderId,
    capability_id: toolCapabilityId,
    resource_scope_id: resourceScopeId,
    approval_summary: z.string(),
    deadline_tick: u64,
    payload: bytes,
  }),
);
export type CapabilityRequestInput = z.output<typeof capabilityRequestInput>;

/** `ConsumerBoundCapabilityRequest` (alias `CapabilityRequest`). */
export const consumerBoundCapabilityRequest = z.deferred(() =>
  z.object({
    consumer_id: consumerId,
    actor_id: toolActorId,
    request: capabilityRequestInput,
  }),
);
export type ConsumerBoundCapabilityRequest = z.output<typeof consumerBoundCapabilityRequest>;

/** `ProviderBoundCapabilityRequest`: a request pinned to a provider runtime binding. */
export const providerBoundCapabilityRequest = z.deferred(() =>
  z.object({
    provider_binding_id: optional(u64),
    request: consumerBoundCapabilityRequest,
  }),
);
export type ProviderBoundCapabilityRequest = z.output<typeof providerBoundCapabilityRequest>;

/** `PolicyDenial` variants in declaration order. */
export const POLICY_DENIAL_VARIANTS = [
  "unknown-instance",
  "inactive-instance",
  "stale-generation",
  "unknown-provider",
  "unknown-capability",
  "provider-owner-mismatch",
  "missing-grant",
] as const;

/** `PolicyDenial`. */
export const policyDenial = z.deferred(() =>
  z.union([
    z.enum([
      "unknown-instance",
      "inactive-instance",
      "unknown-provider",
      "unknown-capability",
      "provider-owner-mismatch",
      "missing-grant",
    ]),
    variant("stale-generation", z.object({ current: u64 })),
  ]),
);
export type PolicyDenial = z.output<typeof policyDenial>;

/** `PolicyDecision`. */
export const policyDecision = z.deferred(() =>
  z.union([z.enum(["require-approval", "allow"]), variant("deny", policyDenial)]),
);
export type PolicyDecision = z.output<typeof policyDecision>;

/** `ApprovalDecision`. */
export const approvalDecision = z.deferred(() => z.enum(["approve-once", "deny"]));
export type ApprovalDecision = z.output<typeof approvalDecision>;

/** `ApprovalResolution`: the accepted sequence is the approval nonce. */
export const approvalResolution = z.deferred(() =>
  z.object({
    request_key: capabilityRequestKey,
    accepted_sequence: u64,
    instance_id: u64,
    generation: u64,
    decision: approvalDecision,
  }),
);
export type ApprovalResolution = z.output<typeof approvalResolution>;

/** `ToolAuthorityCommand`. */
export const toolAuthorityCommand = z.deferred(() =>
  z.union([
    variant("set-grant", z.object({ grant: policyGrant })),
    variant("revoke-grant", z.object({ key: policyKey })),
    variant("resolve-approval", z.object({ resolution: approvalResolution })),
    variant("close-client", z.object({ consumer_id: consumerId, actor_id: toolActorId })),
  ]),
);
export type ToolAuthorityCommand = z.output<typeof toolAuthorityCommand>;

/** `ToolAuthorityEnvelope`. */
export const toolAuthorityEnvelope = z.deferred(() => z.object({ sequence: u64, command: toolAuthorityCommand }));
export type ToolAuthorityEnvelope = z.output<typeof toolAuthorityEnvelope>;

/** `ToolAuthorityOutcome`. */
export const toolAuthorityOutcome = z.deferred(() =>
  z.union([
    z.enum(["grant-set", "approval-resolved"]),
    variant("grant-revoked", z.object({ existed: z.boolean() })),
    variant("approval-expired", z.object({ request_key: capabilityRequestKey, accepted_sequence: u64 })),
    variant("client-closed", z.object({ purged_grant_count: usize, closed_request_count: usize })),
  ]),
);
export type ToolAuthorityOutcome = z.output<typeof toolAuthorityOutcome>;
