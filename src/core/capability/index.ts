/**
 * The capability service core: wire contracts of `gate4agent_tool_protocol`, their
 * validation and admission rules, and a deterministic engine over plain state.
 *
 * For a Worker: create with `initialState()` or `new CapabilityEngine()`, parse bodies
 * with `capabilityOperation` (after `readJson(body, { integers: "bigint" })`), `apply`
 * operations, persist with `encodeState` / `decodeState`, and write responses with
 * `writeWireJson`. Browser providers receive `ProviderBoundCapabilityEffectEnvelope`s and
 * send `ProviderRuntimeEnvelope`s carrying `CapabilityObservationEnvelope`s.
 * @module
 */
export * from "./limits";
export * from "./validation-error";
export * from "./text";
export { hasForbiddenCapabilityNamespace, validateAdmission, CAPABILITY_CLASS_PREFIX } from "./admission";
export * from "./wire-scalars";
export * from "./wire-policy";
export * from "./wire-invocation";
export * from "./wire-records";
export * from "./validate";
export { writeWireJson, writeWireJsonPretty } from "./wire-json";
export { redact, renderRedacted } from "./redact";
export { errorCode, type CapabilityError, type CapabilityErrorCode } from "./errors";
export { toWireOutcome, fromWireOutcome, type WireOutcome } from "./wire-outcome";
export {
  initialState,
  type CapabilityEngineState,
  type AcceptedRequest,
  type RequestRecord,
  type ProviderRuntimeState,
} from "./state";
export { encodeState, decodeState, capabilityEngineState, type StateDecodeError } from "./state-codec";
export {
  apply,
  applyInPlace,
  capabilityOperation,
  operationName,
  UNIT_OPERATIONS,
  type CapabilityOperation,
} from "./operation";
export { type ProviderRuntimeTransition } from "./engine/runtime";
export { CapabilityEngine } from "./engine/capability-engine";
