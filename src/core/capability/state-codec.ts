/**
 * Lossless JSON encoding of the complete engine state, so a host can persist it after
 * every operation and resume later. u64 values are bare integers over their whole range.
 * @module
 */
import * as z from "../zod";
import { readJson } from "../json";
import type { CapabilityEngineState } from "./state";
import {
  capabilityCompletionEnvelope,
  capabilityEffectEnvelope,
  providerRuntimeBindingSnapshot,
  toolInstanceState,
} from "./wire-invocation";
import { capabilityProviderDescriptor, capabilityRequestKey, policyGrant } from "./wire-policy";
import { capabilityRequestSnapshot, toolAuditEvent } from "./wire-records";
import { bytes, resourceScopeId, toolCapabilityId, toolProviderId, u64 } from "./wire-scalars";
import { writeWireJson } from "./wire-json";

const acceptedRequest = z.deferred(() =>
  z.object({
    key: capabilityRequestKey,
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

/** Contract of the encoded state (`capability-state-v1`). */
export const capabilityEngineState = z.deferred(() =>
  z.object({
    revision: u64,
    current_tick: u64,
    generations: z.array(z.tuple([u64, u64])),
    instance_states: z.array(z.tuple([u64, toolInstanceState])),
    providers: z.array(capabilityProviderDescriptor),
    grants: z.array(policyGrant),
    requests: z.array(z.object({ request: acceptedRequest, snapshot: capabilityRequestSnapshot })),
    effects: z.array(capabilityEffectEnvelope),
    completions: z.array(capabilityCompletionEnvelope),
    audit_events: z.array(toolAuditEvent),
    dropped_audit_events: u64,
    revision_overflow_count: u64,
    dropped_completions: u64,
    dropped_completions_since_drain: u64,
    last_authority_sequence: u64,
    effect_sequence_exhausted: z.boolean(),
    completion_sequence_exhausted: z.boolean(),
    audit_sequence_exhausted: z.boolean(),
    next_request_sequence: u64,
    next_operation_id: u64,
    next_effect_sequence: u64,
    next_completion_sequence: u64,
    next_audit_sequence: u64,
    provider_runtime: z.object({
      last_sequence: u64,
      sequence_exhausted: z.boolean(),
      bindings: z.array(providerRuntimeBindingSnapshot),
    }),
  }),
);

/** Encodes the state as compact lossless JSON. */
export function encodeState(state: CapabilityEngineState): string {
  return writeWireJson(state);
}

/** Why an encoded state could not be decoded. */
export interface StateDecodeError {
  code: "invalid-json" | "invalid-state";
  message: string;
}

/** Decodes an encoded state (strict JSON reader, then the contract). */
export function decodeState(
  input: Uint8Array | string,
): { ok: true; state: CapabilityEngineState } | { ok: false; error: StateDecodeError } {
  const read = readJson(input, { integers: "bigint", maxBytes: 512 * 1024 * 1024, maxDepth: 64, domain: false });
  if (!read.ok) return { ok: false, error: { code: "invalid-json", message: read.error.message } };
  const parsed = capabilityEngineState.safeParse(read.value);
  if (!parsed.success) return { ok: false, error: { code: "invalid-state", message: z.prettifyError(parsed.error) } };
  return { ok: true, state: parsed.data };
}
