/**
 * Execution envelope v1: the versioned wire contract between Runtime and its deployment.
 *
 * - {@link decodeEnvelope}: strict decoding (bytes or text) plus validation, never throws.
 * - {@link validateEnvelope}: the transport invariants alone, for envelopes built in code.
 * - {@link encodeEnvelope}: the canonical wire text a Rust peer would write.
 * - Builders for the envelopes a transport sends (`event_ack`, `checkpoint_purge_ack`, App
 *   Facade responses, command responses, execution failures), and {@link encodeChecked}.
 * - The zod contracts and their types, one per wire type.
 * @module
 */

export { decodeEnvelope, type DecodeOptions, type DecodeResult } from "./decode";
export { encodeEnvelope, envelopeToWire } from "./encode";
export { validateEnvelope, CURRENT_VERSION } from "./validate";
export { type ProtocolError, type ProtocolErrorCode } from "./errors";
export { REASONING_EFFORT_LADDER } from "./llm-policy";
export { clientPersonalSurface, formatSurface, parseSurface, type SurfaceParts } from "./surface";
export { formatRustF64, writeRustJson, RustF64, type WireValue } from "./rust-json";
export {
  checkpointPurgeDeleted,
  checkpointPurgeFailed,
  commandAccepted,
  commandRejected,
  encodeChecked,
  envelope,
  eventAck,
  executionFailure,
  facadeFailed,
  facadePrepared,
  facadeRejected,
  facadeResult,
  metadata,
  preparedAction,
  replyMetadata,
  type MessageHeader,
  type PreparedActionInput,
} from "./build";
export * from "./contracts/context";
export * from "./contracts/message";
export * from "./contracts/llm";
export * from "./contracts/facade";
export * from "./contracts/agent";
export * from "./contracts/envelope";
