/**
 * Provider registration, policy evaluation and the authority lane (grants, approvals,
 * client close) of the engine.
 * @module
 */
import { TOOL_POLICIES_MAX, TOOL_PROVIDERS_MAX } from "../limits";
import { compareStrings, comparePolicyKeys, searchSorted, upsertSorted } from "../ordering";
import type { AcceptedRequest, CapabilityEngineState } from "../state";
import { err, ok, type Result } from "../../result";
import type { CapabilityError } from "../errors";
import {
  bumpRevision,
  closeRequest,
  emitAudit,
  emitInvoke,
  generationOf,
  instanceStateOf,
  openRequestKeys,
  providerOf,
  pushTerminalCompletion,
  requestMatchesKey,
  requestOf,
  subjectFor,
} from "./core";
import { ensureEffectCapacity, ensureOperationCapacity } from "./capacity";
import { validateAuthorityEnvelope, validateProviderDescriptor } from "../validate";
import type {
  ApprovalResolution,
  CapabilityProviderDescriptor,
  PolicyDecision,
  PolicyGrant,
  PolicyKey,
  ToolAuthorityEnvelope,
  ToolAuthorityOutcome,
} from "../wire-policy";

/** `register_provider`: validate, refuse duplicates and the 65th, store sorted. */
export function registerProvider(
  state: CapabilityEngineState,
  descriptor: CapabilityProviderDescriptor,
): Result<null, CapabilityError> {
  const invalid = validateProviderDescriptor(descriptor);
  if (invalid !== null) return err({ validation: invalid });
  if (providerOf(state, descriptor.id) !== undefined)
    return err({ "duplicate-provider": { provider_id: descriptor.id } });
  if (state.providers.length >= TOOL_PROVIDERS_MAX) return err("provider-capacity-exceeded");
  const stored = {
    ...descriptor,
    capabilities: [...descriptor.capabilities].sort((left, right) => compareStrings(left.id, right.id)),
  };
  upsertSorted(state.providers, stored, (provider) => compareStrings(provider.id, stored.id));
  bumpRevision(state);
  emitAudit(state, null, {
    "provider-registered": {
      provider_id: stored.id,
      owner: stored.owner,
      capability_count: stored.capabilities.length,
    },
  });
  return ok(null);
}

function hasCapability(provider: CapabilityProviderDescriptor, capabilityId: string): boolean {
  return provider.capabilities.some((capability) => capability.id === capabilityId);
}

/** Policy evaluation, first failure wins: instance → active → generation → provider → owner → capability → grant. */
export function evaluatePolicy(state: CapabilityEngineState, request: AcceptedRequest): PolicyDecision {
  const current = generationOf(state, request.instance_id);
  if (current === undefined) return { deny: "unknown-instance" };
  if (instanceStateOf(state, request.instance_id) !== "active") return { deny: "inactive-instance" };
  if (current !== request.generation) return { deny: { "stale-generation": { current } } };
  const provider = providerOf(state, request.provider_id);
  if (provider === undefined) return { deny: "unknown-provider" };
  if (provider.owner !== "gate" && provider.owner.consumer !== request.key.consumer_id)
    return { deny: "provider-owner-mismatch" };
  if (!hasCapability(provider, request.capability_id)) return { deny: "unknown-capability" };
  const key: PolicyKey = {
    consumer_id: request.key.consumer_id,
    actor_id: request.key.actor_id,
    instance_id: request.instance_id,
    generation: request.generation,
    provider_id: request.provider_id,
    capability_id: request.capability_id,
    resource_scope_id: request.resource_scope_id,
  };
  const grant = grantOf(state, key);
  if (grant === undefined) return { deny: "missing-grant" };
  return grant.mode;
}

function grantIndex(state: CapabilityEngineState, key: PolicyKey): number {
  return searchSorted(state.grants, (grant) => comparePolicyKeys(grant.key, key));
}

function grantOf(state: CapabilityEngineState, key: PolicyKey): PolicyGrant | undefined {
  const index = grantIndex(state, key);
  return index >= 0 ? state.grants[index] : undefined;
}

function setGrant(state: CapabilityEngineState, grant: PolicyGrant): CapabilityError | null {
  const key = grant.key;
  const provider = providerOf(state, key.provider_id);
  if (provider === undefined) return { "unknown-policy-provider": { provider_id: key.provider_id } };
  if (!hasCapability(provider, key.capability_id)) {
    return { "unknown-policy-capability": { provider_id: key.provider_id, capability_id: key.capability_id } };
  }
  if (provider.owner !== "gate" && provider.owner.consumer !== key.consumer_id) {
    return {
      "provider-owner-mismatch": {
        provider_id: provider.id,
        owner: provider.owner.consumer,
        requested_consumer: key.consumer_id,
      },
    };
  }
  const current = generationOf(state, key.instance_id);
  if (current === undefined) return { "unknown-policy-instance": { instance_id: key.instance_id } };
  if (instanceStateOf(state, key.instance_id) !== "active")
    return { "inactive-policy-instance": { instance_id: key.instance_id } };
  if (current !== key.generation) {
    return { "policy-generation-mismatch": { instance_id: key.instance_id, current, requested: key.generation } };
  }
  const previous = grantOf(state, key);
  if (previous?.mode === grant.mode) return null;
  if (previous === undefined && state.grants.length >= TOOL_POLICIES_MAX) return "policy-capacity-exceeded";
  if (previous !== undefined) {
    // A mode change revokes what the old mode admitted: open approvals and invocations.
    for (const target of openRequestKeys(state, (record) => requestMatchesKey(record.request, key))) {
      closeRequest(state, target, { kind: "grant-revoked" });
    }
  }
  upsertSorted(state.grants, grant, (stored) => comparePolicyKeys(stored.key, key));
  bumpRevision(state);
  emitAudit(state, null, { "grant-set": { grant } });
  return null;
}

function revokeGrant(state: CapabilityEngineState, key: PolicyKey): boolean {
  const index = grantIndex(state, key);
  if (index < 0) return false;
  const targets = openRequestKeys(state, (record) => requestMatchesKey(record.request, key));
  state.grants.splice(index, 1);
  for (const target of targets) closeRequest(state, target, { kind: "grant-revoked" });
  bumpRevision(state);
  emitAudit(state, null, { "grant-revoked": { key } });
  return true;
}

function closeClient(state: CapabilityEngineState, consumerId: string, actorId: string): ToolAuthorityOutcome {
  const before = state.grants.length;
  state.grants = state.grants.filter(
    (grant) => !(grant.key.consumer_id === consumerId && grant.key.actor_id === actorId),
  );
  const purged_grant_count = before - state.grants.length;
  const targets = openRequestKeys(
    state,
    (record) => record.snapshot.key.consumer_id === consumerId && record.snapshot.key.actor_id === actorId,
  );
  for (const target of targets) closeRequest(state, target, { kind: "client-closed" });
  bumpRevision(state);
  emitAudit(state, null, {
    "client-closed": {
      consumer_id: consumerId,
      actor_id: actorId,
      purged_grant_count,
      closed_request_count: targets.length,
    },
  });
  return { "client-closed": { purged_grant_count, closed_request_count: targets.length } };
}

/** `resolve_approval`; `approval-deadline-elapsed` is returned after the timeout was applied. */
function resolveApproval(state: CapabilityEngineState, resolution: ApprovalResolution): CapabilityError | null {
  const requestKey = resolution.request_key;
  const record = requestOf(state, requestKey);
  if (record === undefined) return { "unknown-request": { request_key: requestKey } };
  if (resolution.accepted_sequence !== record.snapshot.accepted_sequence) {
    return {
      "approval-nonce-mismatch": {
        request_key: requestKey,
        expected: record.snapshot.accepted_sequence,
        actual: resolution.accepted_sequence,
      },
    };
  }
  const instance = record.request.instance_id;
  const current = generationOf(state, instance);
  if (current === undefined) return { "unknown-policy-instance": { instance_id: instance } };
  if (instanceStateOf(state, instance) !== "active") return { "inactive-policy-instance": { instance_id: instance } };
  if (resolution.generation !== current)
    return { "approval-generation-stale": { current, actual: resolution.generation } };
  if (resolution.instance_id !== instance || resolution.generation !== record.request.generation) {
    return { "approval-scope-mismatch": { request_key: requestKey } };
  }
  if (record.snapshot.status !== "awaiting-approval")
    return { "request-not-awaiting-approval": { request_key: requestKey } };
  if (record.request.deadline_tick <= state.current_tick) {
    closeRequest(state, requestKey, { kind: "timed-out" });
    bumpRevision(state);
    return { "approval-deadline-elapsed": { request_key: requestKey } };
  }
  const approve = resolution.decision === "approve-once";
  if (approve) {
    const blocked = ensureOperationCapacity(state) ?? ensureEffectCapacity(state, 1);
    if (blocked !== null) return blocked;
  }
  let operationId: bigint | null = null;
  if (approve) {
    operationId = state.next_operation_id;
    state.next_operation_id += 1n;
  }
  const request = { ...record.request };
  record.snapshot.status = operationId === null ? "approval-denied" : { dispatched: { operation_id: operationId } };
  record.request.payload = [];
  const subject = subjectFor(record.request, record.snapshot.accepted_sequence);
  bumpRevision(state);
  emitAudit(state, subject, { "approval-resolved": { decision: resolution.decision } });
  if (operationId !== null) {
    emitInvoke(state, request, operationId);
    emitAudit(state, subject, { "invocation-dispatched": { operation_id: operationId } });
  } else {
    pushTerminalCompletion(state, request, resolution.accepted_sequence, null, "approval-denied");
  }
  return null;
}

/** `apply_authority`: the only lane for grants, approvals and client close. */
export function applyAuthority(
  state: CapabilityEngineState,
  envelope: ToolAuthorityEnvelope,
): Result<ToolAuthorityOutcome, CapabilityError> {
  const invalid = validateAuthorityEnvelope(envelope);
  if (invalid !== null) return err({ validation: invalid });
  if (envelope.sequence <= state.last_authority_sequence) {
    return err({
      "authority-sequence-regressed": { current: state.last_authority_sequence, requested: envelope.sequence },
    });
  }
  const command = envelope.command;
  let outcome: ToolAuthorityOutcome;
  if ("set-grant" in command) {
    const error = setGrant(state, command["set-grant"].grant);
    if (error !== null) return err(error);
    outcome = "grant-set";
  } else if ("revoke-grant" in command) {
    outcome = { "grant-revoked": { existed: revokeGrant(state, command["revoke-grant"].key) } };
  } else if ("resolve-approval" in command) {
    const resolution = command["resolve-approval"].resolution;
    const error = resolveApproval(state, resolution);
    if (error === null) outcome = "approval-resolved";
    else if (typeof error === "object" && "approval-deadline-elapsed" in error) {
      outcome = {
        "approval-expired": { request_key: resolution.request_key, accepted_sequence: resolution.accepted_sequence },
      };
    } else return err(error);
  } else {
    outcome = closeClient(state, command["close-client"].consumer_id, command["close-client"].actor_id);
  }
  state.last_authority_sequence = envelope.sequence;
  return ok(outcome);
}
