/**
 * A browser-safe typed client of the gate (fetch and WebSocket only): agent hosts, approvers,
 * auditors, admins and capability providers. JSON is read strictly and u64 values stay exact (bigint beyond
 * 2^53 − 1).
 * @module
 */
export {
  AgentClient,
  approvalEvents,
  type ApprovalEvent,
  type ApprovalConfirmationInput,
  type ApprovalDecisionAnswer,
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
export { AdminClient, type AdminToolPage } from "./admin";
export {
  ADAPTER_REVISIONS,
  adapterRevisionOf,
  toolCallBody,
  type AnthropicToolUseItem,
  type ApiFamily,
  type CallContext,
  type CallProposal,
  type GeminiFunctionCallItem,
  type GeminiFunctionCallStepItem,
  type OpenAiChatToolCallItem,
  type OpenAiFunctionCallItem,
  type ProfileAnswer,
  type ProfileCall,
  type Provider,
  type ProviderItem,
  type ProviderItems,
  type ProviderOutputOf,
  type ProviderOutputs,
} from "./profiles";
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
