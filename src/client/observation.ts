import type * as z from "../core/zod";
import type { toolFailureKind } from "../core/capability";
import type { BoundEffect, CapabilityObservation, ObservationEnvelope } from "./types";

/** A failure kind a provider reports; `provider-contract-violation` is the gate's own verdict on an invalid observation. */
export type ProviderFailureKind = Exclude<z.output<typeof toolFailureKind>, "provider-contract-violation">;

/** A successful observation with an inline result (the bytes and their media type). */
export function inlineResult(
  bytes: Uint8Array | number[],
  mediaType: string | null = "application/json",
): CapabilityObservation {
  const list = Array.from(bytes);
  return {
    succeeded: {
      result: {
        metadata: { byte_len: list.length, media_type: mediaType, truncated: false, redacted_summary: null },
        delivery: { inline: { bytes: list } },
      },
    },
  };
}

/** A failed observation. */
export function failure(kind: ProviderFailureKind, message: string | null = null): CapabilityObservation {
  return { failed: { failure: { kind, redacted_message: message } } };
}

/** The observation envelope answering an effect. */
export function observationFor(bound: BoundEffect, observation: CapabilityObservation): ObservationEnvelope {
  const e = bound.effect;
  return {
    operation_id: e.operation_id,
    request_key: e.request_key,
    instance_id: e.instance_id,
    generation: e.generation,
    provider_id: e.provider_id,
    observation,
  };
}

/** UTF-8 bytes of a JSON-able value (for payloads and inline results). */
export function jsonBytes(value: unknown): number[] {
  return Array.from(new TextEncoder().encode(JSON.stringify(value)));
}
