/**
 * Composite validations of the protocol crate, in the crate's exact check order
 * (which error is reported depends on it).
 * @module
 */
import { validateAdmission } from "./admission";
import {
  TOOL_APPROVAL_SUMMARY_MAX_BYTES,
  TOOL_CAPABILITIES_PER_PROVIDER_MAX,
  TOOL_CAPABILITY_DESCRIPTION_MAX_BYTES,
  TOOL_FAILURE_MESSAGE_MAX_BYTES,
  TOOL_INLINE_RESULT_MAX_BYTES,
  TOOL_MEDIA_TYPE_MAX_BYTES,
  TOOL_PAYLOAD_MAX_BYTES,
  TOOL_PROVIDERS_MAX,
  TOOL_RESULT_MAX_BYTES,
  TOOL_RESULT_REFERENCE_MAX_BYTES,
  TOOL_RESULT_SUMMARY_MAX_BYTES,
} from "./limits";
import { validateOptionalText, validateRequiredText } from "./text";
import type { Validation } from "./validation-error";
import type {
  CapabilityObservation,
  CapabilityObservationEnvelope,
  CapabilityResult,
  CapabilityResultMetadata,
  ProviderBoundCapabilityEffectEnvelope,
  ProviderRuntimeEnvelope,
  ProviderRuntimeSnapshot,
  ToolFailure,
} from "./wire-invocation";
import type {
  CapabilityDescriptor,
  CapabilityProviderDescriptor,
  CapabilityRequestInput,
  ProviderBoundCapabilityRequest,
  ToolAuthorityEnvelope,
} from "./wire-policy";

/** `CapabilityDescriptor::new`: admission, then description. */
export function validateCapabilityDescriptor(descriptor: CapabilityDescriptor): Validation {
  return (
    validateAdmission(descriptor.id, descriptor.class) ??
    validateRequiredText("tool capability description", descriptor.description, TOOL_CAPABILITY_DESCRIPTION_MAX_BYTES)
  );
}

/** `CapabilityProviderDescriptor::validate`. */
export function validateProviderDescriptor(descriptor: CapabilityProviderDescriptor): Validation {
  const count = descriptor.capabilities.length;
  if (count === 0) return { required: { field: "tool provider capabilities" } };
  if (count > TOOL_CAPABILITIES_PER_PROVIDER_MAX) {
    return {
      "too-many": { field: "tool provider capabilities", max: TOOL_CAPABILITIES_PER_PROVIDER_MAX, actual: count },
    };
  }
  const ids = new Set(descriptor.capabilities.map((capability) => capability.id));
  if (ids.size !== count) return { "duplicate-identifier": { field: "tool capability id" } };
  for (const capability of descriptor.capabilities) {
    const error = validateCapabilityDescriptor(capability);
    if (error !== null) return error;
  }
  return null;
}

/** `CapabilityRequestInput::validate(current_tick)`. */
export function validateRequestInput(request: CapabilityRequestInput, currentTick: bigint): Validation {
  if (request.local_id === 0n) return { "zero-identifier": { field: "tool request id" } };
  if (request.deadline_tick <= currentTick) {
    return { "deadline-elapsed": { current_tick: currentTick, deadline_tick: request.deadline_tick } };
  }
  if (request.payload.length > TOOL_PAYLOAD_MAX_BYTES) {
    return {
      "too-large": { field: "tool request payload", max: TOOL_PAYLOAD_MAX_BYTES, actual: request.payload.length },
    };
  }
  return validateRequiredText("tool approval summary", request.approval_summary, TOOL_APPROVAL_SUMMARY_MAX_BYTES);
}

/** `ProviderBoundCapabilityRequest::validate_provider_binding`. */
export function validateProviderBinding(request: ProviderBoundCapabilityRequest): Validation {
  return request.provider_binding_id === 0n ? { "zero-identifier": { field: "provider binding id" } } : null;
}

/** `ToolAuthorityEnvelope::validate`. */
export function validateAuthorityEnvelope(envelope: ToolAuthorityEnvelope): Validation {
  return envelope.sequence === 0n ? { "zero-identifier": { field: "tool authority sequence" } } : null;
}

/** `CapabilityResultMetadata::validate`. */
export function validateResultMetadata(metadata: CapabilityResultMetadata): Validation {
  if (metadata.byte_len > TOOL_RESULT_MAX_BYTES) {
    return { "result-too-large": { max: TOOL_RESULT_MAX_BYTES, actual: metadata.byte_len } };
  }
  return (
    validateOptionalText("tool result media type", metadata.media_type, TOOL_MEDIA_TYPE_MAX_BYTES) ??
    validateOptionalText("tool result redacted summary", metadata.redacted_summary, TOOL_RESULT_SUMMARY_MAX_BYTES)
  );
}

/** `CapabilityResult::validate`: metadata, then the delivery. */
export function validateResult(result: CapabilityResult): Validation {
  const metadataError = validateResultMetadata(result.metadata);
  if (metadataError !== null) return metadataError;
  const delivery = result.delivery;
  if ("inline" in delivery) {
    const actual = delivery.inline.bytes.length;
    if (actual > TOOL_INLINE_RESULT_MAX_BYTES) {
      return { "too-large": { field: "inline tool result", max: TOOL_INLINE_RESULT_MAX_BYTES, actual } };
    }
    if (result.metadata.byte_len !== BigInt(actual)) {
      return { "result-length-mismatch": { declared: result.metadata.byte_len, actual } };
    }
    return null;
  }
  return validateRequiredText(
    "tool result opaque reference",
    delivery["opaque-reference"].reference,
    TOOL_RESULT_REFERENCE_MAX_BYTES,
  );
}

/** `ToolFailure::validate`. */
export function validateFailure(failure: ToolFailure): Validation {
  return validateOptionalText(
    "tool failure redacted message",
    failure.redacted_message,
    TOOL_FAILURE_MESSAGE_MAX_BYTES,
  );
}

/** `CapabilityObservation::validate`. */
export function validateObservation(observation: CapabilityObservation): Validation {
  return "succeeded" in observation
    ? validateResult(observation.succeeded.result)
    : validateFailure(observation.failed.failure);
}

/** `CapabilityObservationEnvelope::validate`. */
export function validateObservationEnvelope(envelope: CapabilityObservationEnvelope): Validation {
  if (envelope.operation_id === 0n) return { "zero-identifier": { field: "tool operation id" } };
  return validateObservation(envelope.observation);
}

/** Binding id carried by any provider-runtime command. */
export function runtimeCommandBinding(envelope: ProviderRuntimeEnvelope): bigint {
  const command = envelope.command;
  if ("attach" in command) return command.attach.binding_id;
  if ("detach" in command) return command.detach.binding_id;
  return command.observe.binding_id;
}

/** `ProviderRuntimeEnvelope::validate`. */
export function validateProviderRuntimeEnvelope(envelope: ProviderRuntimeEnvelope): Validation {
  if (envelope.sequence === 0n) return { "zero-identifier": { field: "provider runtime sequence" } };
  if (runtimeCommandBinding(envelope) === 0n) return { "zero-identifier": { field: "provider binding id" } };
  if ("observe" in envelope.command) return validateObservationEnvelope(envelope.command.observe.observation);
  return null;
}

/** `ProviderRuntimeEnvelope::validate_observation_provider(expected)`. */
export function validateObservationProvider(envelope: ProviderRuntimeEnvelope, expectedProviderId: string): Validation {
  const error = validateProviderRuntimeEnvelope(envelope);
  if (error !== null) return error;
  if ("observe" in envelope.command) {
    const actual = envelope.command.observe.observation.provider_id;
    if (actual !== expectedProviderId) {
      return {
        "provider-mismatch": {
          field: "provider runtime observation provider id",
          expected: expectedProviderId,
          actual,
        },
      };
    }
  }
  return null;
}

/** `ProviderRuntimeSnapshot::validate`. */
export function validateProviderRuntimeSnapshot(snapshot: ProviderRuntimeSnapshot): Validation {
  if (snapshot.bindings.length > TOOL_PROVIDERS_MAX) {
    return {
      "too-many": { field: "provider runtime bindings", max: TOOL_PROVIDERS_MAX, actual: snapshot.bindings.length },
    };
  }
  if (snapshot.bindings.some((binding) => binding.binding_id === 0n)) {
    return { "zero-identifier": { field: "provider binding id" } };
  }
  return null;
}

/** `ProviderBoundCapabilityEffectEnvelope::validate`. */
export function validateBoundEffect(envelope: ProviderBoundCapabilityEffectEnvelope): Validation {
  if (envelope.binding_id === 0n) return { "zero-identifier": { field: "provider binding id" } };
  if (envelope.effect.sequence === 0n) return { "zero-identifier": { field: "tool effect sequence" } };
  if (envelope.effect.operation_id === 0n) return { "zero-identifier": { field: "tool operation id" } };
  return null;
}
