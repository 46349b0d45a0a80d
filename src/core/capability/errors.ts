/**
 * Expected failures of the capability service as tagged values. The engine's
 * `ToolEngineError` and the provider-runtime (kernel) errors share one union; the
 * variant name is the stable code. Upstream does not serialize these, so toolgate
 * encodes them like the crate's other enums (externally tagged, kebab-case).
 * @module
 */
import type { ToolValidationError } from "./validation-error";
import type { CapabilityRequestKey } from "./wire-policy";

/** Every expected failure an operation can return. */
export type CapabilityError =
  | { validation: ToolValidationError }
  | { "duplicate-provider": { provider_id: string } }
  | { "duplicate-request": { request_key: CapabilityRequestKey } }
  | "provider-capacity-exceeded"
  | "policy-capacity-exceeded"
  | "request-capacity-exceeded"
  | { "client-request-capacity-exceeded": { consumer_id: string; actor_id: string; max: number } }
  | "effect-capacity-exceeded"
  | "effect-sequence-exhausted"
  | { "unknown-policy-provider": { provider_id: string } }
  | { "unknown-policy-capability": { provider_id: string; capability_id: string } }
  | { "provider-owner-mismatch": { provider_id: string; owner: string; requested_consumer: string } }
  | { "unknown-policy-instance": { instance_id: bigint } }
  | { "inactive-policy-instance": { instance_id: bigint } }
  | { "policy-generation-mismatch": { instance_id: bigint; current: bigint; requested: bigint } }
  | { "unknown-request": { request_key: CapabilityRequestKey } }
  | { "request-not-awaiting-approval": { request_key: CapabilityRequestKey } }
  | { "approval-scope-mismatch": { request_key: CapabilityRequestKey } }
  | { "approval-nonce-mismatch": { request_key: CapabilityRequestKey; expected: bigint; actual: bigint } }
  | { "approval-generation-stale": { current: bigint; actual: bigint } }
  | { "approval-deadline-elapsed": { request_key: CapabilityRequestKey } }
  | { "clock-regressed": { current_tick: bigint; requested_tick: bigint } }
  | { "generation-regressed": { instance_id: bigint; current: bigint; requested: bigint } }
  | { "authority-sequence-regressed": { current: bigint; requested: bigint } }
  | { "counter-exhausted": { counter: string } }
  | { "unknown-runtime-provider": { provider_id: string } }
  // Provider-runtime lane (kernel) errors.
  | { "provider-unavailable": { provider_id: string } }
  | { "provider-binding-mismatch": { provider_id: string; current: bigint; requested: bigint | null } }
  | "sequence-exhausted"
  | { "sequence-regressed": { current: bigint; requested: bigint } }
  | { "unknown-provider": { provider_id: string } }
  | { "invalid-attach-binding": { sequence: bigint; binding_id: bigint } }
  | { "already-attached": { provider_id: string; binding_id: bigint } }
  | { "not-attached": { provider_id: string } }
  | { "binding-mismatch": { provider_id: string; current: bigint; requested: bigint } }
  | { "tool-effect-provider-unbound": { operation_id: bigint; provider_id: string } };

/** A variant's name: the string itself, or the one key of an object variant. */
type CodeOf<E> = E extends string ? E : keyof E;

/** The stable codes of {@link CapabilityError}, one per variant. */
export type CapabilityErrorCode = CodeOf<CapabilityError>;

/** The stable code of an error: its variant name. */
export function errorCode(error: CapabilityError): CapabilityErrorCode {
  return typeof error === "string" ? error : (Object.keys(error)[0] as CapabilityErrorCode);
}
