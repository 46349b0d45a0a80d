/**
 * The gate's tools for the Vercel AI SDK (`ai` 6): a tool set whose calls go through the gate
 * (idempotent per `toolCallId`), whose results are the gate's model results, and whose approvals
 * reach the host as pending results or as the AI SDK's own `tool-approval-request`s. Fetch only:
 * it runs in browsers, Workers, Node, Deno and Bun.
 * @module
 */
export { gateTools, type GateToolSet, type GateToolsOptions } from "./tools";
export type { ApprovalRequestLike, Resumed } from "./approvals";
export type { EndUserAnswer } from "./end-user";
export {
  DEFAULT_PROFILE,
  derivedKey,
  GateRefusal,
  isPending,
  type GateModelResult,
  type GateProfile,
  type GateToolOutput,
  type PendingResult,
} from "./gate-call";
