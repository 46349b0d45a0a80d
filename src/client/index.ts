/**
 * A browser-safe typed client of the gate (fetch and WebSocket only): agent hosts, approvers
 * and capability providers. JSON is read strictly and u64 values stay exact (bigint beyond
 * 2^53 − 1).
 * @module
 */
export {
  AgentClient,
  approvalEvents,
  type ApprovalEvent,
  type ApprovalStatus,
  type DeclarationFormat,
  type ToolCallAnswer,
  type ToolCallBatchAnswer,
  type ToolCallBatchInput,
  type ToolCallInput,
  type ToolCallOptions,
  type ToolCallStatusInput,
  type ToolDeclarationPage,
} from "./agent";
export {
  ApproverClient,
  type AuthorityCommand,
  type StandingApproval,
  type StandingGrant,
  type ToolApproval,
} from "./approver";
export { AuditorClient, type AuditEntry, type AuditExport, type AuditPageQuery } from "./auditor";
export {
  connectProvider,
  ProviderPoller,
  PROVIDER_PROTOCOL,
  type EffectHandler,
  type ProviderConnection,
  type ProviderOptions,
} from "./provider";
export { failure, inlineResult, jsonBytes, observationFor, type ProviderFailureKind } from "./observation";
export {
  call,
  idempotencyKeyHeader,
  readWire,
  writeWire,
  type CallOptions,
  type ClientProblem,
  type ClientResult,
  type GateOptions,
} from "./transport";
export type * from "./types";
