/**
 * One AI SDK tool call sent through the gate: the request (its correlation ids and idempotency
 * key derived from the AI SDK's `toolCallId`, so the same step sent again is the same call), the
 * answer as the model may see it, and the gate's refusals as errors that carry the problem for
 * the host while the model reads only its code.
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { JSONValue, ToolResultPart } from "ai";
import type { AgentClient, ApprovalStatus, ToolCallAnswer, ToolCallInput } from "../../client/agent";
import type { ClientProblem, ClientResult } from "../../client/transport";

/** A provider profile the gate knows (docs/providers.md); it only labels the call in the audit here. */
export interface GateProfile {
  readonly provider: string;
  readonly api_family: string;
  readonly adapter_revision: string;
}

/**
 * The default profile. The adapter sends `proposal`s, never native items, and reads only
 * `model_result`, which is the same under every profile.
 */
export const DEFAULT_PROFILE: GateProfile = {
  provider: "openai",
  api_family: "responses",
  adapter_revision: "openai-responses-v1",
};

/** Whom and how the adapter's calls act for. */
export interface CallSettings {
  readonly client: AgentClient;
  readonly profile: GateProfile;
  /** Prefixes every derived key, e.g. a conversation id, so two conversations' `call-1` stay two calls. */
  readonly keyPrefix: string;
  readonly principal?: { readonly subject_id: string; readonly roles: readonly string[] };
  readonly principalToken?: string;
}

/** What a tool result says to the model (the AI SDK's `ToolResultOutput`). */
type ToolResultOutput = ToolResultPart["output"];

/** The gate's model result (`model_result`): what the model may see of a call. */
export type GateModelResult = ToolCallAnswer["model_result"];

/** A call waiting for the gate's approvers: the gate's result plus where and by whom it is decided. */
export type PendingResult = GateModelResult & {
  readonly approval: {
    readonly approval_id: string;
    readonly state: "pending";
    readonly decided_by: string;
    readonly console_url: string;
    readonly next_step: string;
  };
};

/** What a gated tool's `execute` answers. */
export type GateToolOutput = GateModelResult | PendingResult;

/** Identifiers are at most 1024 characters; a longer derived key is replaced by its digest. */
const MAX_IDENTIFIER = 1024;

/** The call's idempotency key: the same `toolCallId` (under the same prefix) gives the same key. */
export async function derivedKey(keyPrefix: string, toolCallId: string): Promise<string> {
  const key = `ai-sdk:${keyPrefix}${toolCallId}`;
  if (key.length <= MAX_IDENTIFIER) return key;
  return `ai-sdk:sha256:${bytesToHex(sha256(utf8ToBytes(key)))}`;
}

/** The gate request of one AI SDK tool call: every id derived from `toolCallId`, so a repeat is the same request. */
export async function callRequest(
  settings: CallSettings,
  name: string,
  input: unknown,
  toolCallId: string,
): Promise<ToolCallInput> {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw new TypeError(`the arguments of ${name} are not an object`);
  const key = await derivedKey(settings.keyPrefix, toolCallId);
  return {
    ...(settings.principal === undefined
      ? {}
      : { principal: { subject_id: settings.principal.subject_id, roles: [...settings.principal.roles] } }),
    ...(settings.principalToken === undefined ? {} : { principal_token: settings.principalToken }),
    // The model's arguments, already checked against the tool's schema by the AI SDK and again by the gate.
    proposal: { name, arguments: input as Record<string, unknown> },
    context: {
      call_id: toolCallId,
      operation_id: key,
      idempotency_key: key,
      response_id: key,
      ...settings.profile,
    },
  };
}

/** A refusal by the gate (a problem answer): the model reads the code, the host gets the problem. */
export class GateRefusal extends Error {
  constructor(readonly problem: ClientProblem) {
    super(`toolgate refused the call: ${problem.code}`);
    this.name = "GateRefusal";
  }
}

/** Attempts of a call the gate answers `IDEMPOTENCY_IN_PROGRESS` (the same key still running). */
const IN_PROGRESS_ATTEMPTS = 5;

/** Sends the call; waits out a concurrent duplicate (`IDEMPOTENCY_IN_PROGRESS`, `Retry-After: 1`), bounded. */
export async function sendCall(settings: CallSettings, body: ToolCallInput): Promise<ToolCallAnswer> {
  let answer: ClientResult<ToolCallAnswer> = await settings.client.toolCall(body);
  for (let attempt = 1; attempt < IN_PROGRESS_ATTEMPTS; attempt++) {
    if (answer.ok || answer.problem.code !== "IDEMPOTENCY_IN_PROGRESS") break;
    await new Promise((done) => setTimeout(done, 1000));
    answer = await settings.client.toolCall(body);
  }
  if (!answer.ok) throw new GateRefusal(answer.problem);
  return answer.value;
}

/** The console page of one approval, where an approver decides it. */
export function consoleUrl(baseUrl: string, approvalId: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/console/approvals/${encodeURIComponent(approvalId)}`;
}

/** What the model sees of an answer: the model result, with the pending approval when one is open. */
export function modelOutput(settings: CallSettings, answer: ToolCallAnswer): GateToolOutput {
  const approvalId = answer.approval_id;
  if (approvalId === undefined) return answer.model_result;
  return {
    ...answer.model_result,
    approval: {
      approval_id: approvalId,
      state: "pending",
      decided_by: "one of the gate's approvers, on the approver console or through the approvals API",
      console_url: consoleUrl(settings.client.options.baseUrl, approvalId),
      next_step: "The call has not run. It runs once an approver approves it; do not call it again.",
    },
  };
}

/** True for the output of a call still waiting for an approver. */
export function isPending(output: unknown): output is PendingResult {
  if (typeof output !== "object" || output === null || !("approval" in output)) return false;
  const approval: unknown = output.approval;
  return (
    typeof approval === "object" &&
    approval !== null &&
    "state" in approval &&
    approval.state === "pending" &&
    "approval_id" in approval &&
    typeof approval.approval_id === "string"
  );
}

/**
 * The tool result the model reads: the gate's result as JSON; an error result when the call did
 * not succeed (a denial, a refusal by policy, a failed or unknown write), except a pending
 * approval, which is not a failure yet.
 */
export function toModelOutput(output: unknown): ToolResultOutput {
  const value = jsonValue(output);
  const succeeded =
    typeof output === "object" && output !== null && "status" in output && output.status === "succeeded";
  if (succeeded || isPending(output)) return { type: "json", value };
  return { type: "error-json", value };
}

/** The output as JSON text (a denial's reason the model reads), integers beyond 2^53 − 1 as their decimal text. */
export function jsonText(output: unknown): string {
  return JSON.stringify(jsonValue(output));
}

/**
 * The output as the AI SDK's JSON: an integer beyond 2^53 − 1 (a bigint from the strict reader)
 * becomes its decimal text, every digit kept; the SDK serializes the result with `JSON.stringify`.
 */
function jsonValue(value: unknown): JSONValue {
  if (value === null || typeof value === "string" || typeof value === "boolean" || typeof value === "number")
    return value;
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(jsonValue);
  if (typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, jsonValue(member)]));
  return null;
}

/** The AI SDK's approval decision for a gate approval's final state. */
export function decisionOf(status: ApprovalStatus): { approved: boolean; reason: string } {
  if (status.state === "approved") return { approved: true, reason: "approved by the gate's approver" };
  if (status.state === "pending") return { approved: false, reason: "no approver decided in time" };
  // An edit: the model is told to call again with exactly the approver's arguments (docs/approvals.md, "Edit").
  if (status.state === "edited" && status.edited?.instruction !== undefined)
    return { approved: false, reason: status.edited.instruction };
  return { approved: false, reason: `the gate's approval was ${status.state}` };
}
