/**
 * A capability provider for a browser, alone (`toolgate/capability-provider`): attach to the
 * gate over its provider socket (or poll), answer each bound effect with an observation. The
 * same names as `toolgate/client`, without the agent, approver, auditor and admin clients, so
 * a page or extension that only provides capabilities ships only this.
 * @module
 */
export {
  connectProvider,
  ProviderPoller,
  PROVIDER_PROTOCOL,
  type EffectHandler,
  type ProviderConnection,
  type ProviderOptions,
} from "./provider";
export { failure, inlineResult, jsonBytes, observationFor, type ProviderFailureKind } from "./observation";
export type { ClientProblem, ClientResult, GateOptions } from "./transport";
export type { BoundEffect, CapabilityObservation, ObservationEnvelope, RequestKey, U64, Wire } from "./types";
