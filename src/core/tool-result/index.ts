/**
 * Tool Result v2: the trusted dispatcher between a model's proposed tool call and the tool,
 * with bound approvals, idempotency, unknown-outcome reconciliation and dual projections.
 * @module
 */
export * from "./constants";
export { ERROR_CATALOG, RETRYABLE_CODES, isErrorCode, type ErrorCode, type ErrorPolicy } from "./error-catalog";
export type * from "./types";
export {
  bindToolCall,
  checkHostContext,
  validateHostContext,
  type ToolResultRefusal,
  type ToolResultRefusalCode,
} from "./host-context";
export {
  createRegistry,
  defineTool,
  validateArguments,
  type ArgumentRule,
  type OutputRule,
  type RuleType,
  type ToolContext,
  type ToolExecution,
  type ToolRegistry,
  type ToolSpec,
} from "./tool-spec";
export {
  approvalDigest,
  callBindingDigest,
  callFingerprint,
  memoizeHash,
  principalRef,
  requestDigest,
  statusRef,
  toolContract,
} from "./digests";
export {
  approvalBindingKey,
  approvalRequest,
  decideApproval,
  digestForApprover,
  pendingOnly,
  weighApprovals,
  PENDING_APPROVAL_SECONDS,
  type ApprovalBook,
  type ApprovalDecisionRecord,
  type ApprovalQuotaExceeded,
  type ApprovalRecord,
  type ApprovalRequest,
  type ApprovalState,
  type DecisionRefusal,
  type WeighedApprovals,
} from "./approval-book";
export { boundApproval, grantApproval, hasValidApproval, type ApprovalDecision, type ApprovalGrant } from "./approvals";
export { InMemoryToolResultStore, storeKey, type StoreTable, type ToolResultStore } from "./store";
export { createEngine, type EngineOptions, type ToolResultEngine } from "./engine";
export {
  beginDispatch,
  completeDispatch,
  dispatch,
  type BeginDispatchResult,
  type DispatchRequest,
  type DispatchTicket,
  type HandlerOutcome,
} from "./dispatcher";
export {
  isOwnUnknownWrite,
  queryStatus,
  recordEvidence,
  recoverInFlight,
  settleNotExecuted,
  type DownstreamEvidence,
  type RecoveredWrite,
  type StatusQuery,
} from "./query-status";
export { findForbiddenKey, isHandlerResult, jsonDepth, validateHandlerResult } from "./output-contract";
export { errorPackage, successPackage, type IdempotencyRecord } from "./packages";
export { validateResult } from "./validate-result";
export { validateResultSet } from "./validate-result-set";
export { modelResultSchema, protectedAuditSchema, resultPackageSchema } from "./package-contract";
