/**
 * Limits of the capability service, exactly as the protocol crate declares them.
 * Every byte limit counts UTF-8 bytes, never UTF-16 code units.
 * @module
 */

/** Largest u64; counters that reach it are exhausted. */
export const U64_MAX = 18446744073709551615n;

export const TOOL_ACTOR_ID_MAX_BYTES = 256;
export const TOOL_CONSUMER_ID_MAX_BYTES = 256;
export const TOOL_PROVIDER_ID_MAX_BYTES = 256;
export const TOOL_CAPABILITY_ID_MAX_BYTES = 256;
export const TOOL_RESOURCE_SCOPE_ID_MAX_BYTES = 512;
export const TOOL_CAPABILITY_DESCRIPTION_MAX_BYTES = 2_048;
export const TOOL_APPROVAL_SUMMARY_MAX_BYTES = 1_024;
export const TOOL_PAYLOAD_MAX_BYTES = 64 * 1_024;
/** Declared result length bound; a u64 in the contract, hence bigint. */
export const TOOL_RESULT_MAX_BYTES = 16n * 1_024n * 1_024n;
export const TOOL_INLINE_RESULT_MAX_BYTES = 256 * 1_024;
export const TOOL_RESULT_REFERENCE_MAX_BYTES = 2_048;
export const TOOL_RESULT_SUMMARY_MAX_BYTES = 4_096;
export const TOOL_FAILURE_MESSAGE_MAX_BYTES = 4_096;
export const TOOL_MEDIA_TYPE_MAX_BYTES = 256;
export const TOOL_PROVIDERS_MAX = 64;
export const TOOL_CAPABILITIES_PER_PROVIDER_MAX = 256;
export const TOOL_POLICIES_MAX = 4_096;
export const TOOL_REQUESTS_MAX = 512;
export const TOOL_ACTIVE_REQUESTS_PER_CLIENT_MAX = 32;
export const TOOL_EFFECTS_MAX = TOOL_REQUESTS_MAX * 2;
export const TOOL_COMPLETIONS_MAX = 128;
export const TOOL_AUDIT_EVENTS_MAX = 4_096;
