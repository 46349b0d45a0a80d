/**
 * Answers as the generated types describe them: each line below compiles only if the document
 * types the answer precisely (a model result's members, each provider's result item, the
 * problem's extension members, the headers a client acts on).
 */
import type { Answer, AnswerHeaders } from "./helpers";

type Call = Answer<"/v1/consumers/{consumer}/tool-calls", "post", 200>;

export function modelResult(answer: Call): string {
  const result = answer.model_result;
  const status: "succeeded" | "failed" | "unknown" | "approval_required" | "denied" = result.status;
  const code: string | undefined = result.error?.code;
  const retry: number | null | undefined = result.error?.retry_after_ms;
  const observed: string = result.provenance.observed_at;
  return `${status} ${code ?? ""} ${retry ?? ""} ${observed} ${answer.audit.seq} ${answer.approval_id ?? ""} ${answer.status_ref ?? ""}`;
}

/** The provider output narrows to each vendor's item by its own members. */
export function providerText(answer: Call): string {
  const output = answer.provider_output;
  if ("type" in output && output.type === "function_call_output") return output.output;
  if ("role" in output) return output.content;
  if ("tool_use_id" in output) return `${output.is_error} ${output.content[0].text}`;
  if ("previous_interaction_id" in output) return output.input.map((step) => step.result[0].text).join("");
  if ("functionResponse" in output)
    return "output" in output.functionResponse.response
      ? output.functionResponse.response.output.status
      : output.functionResponse.response.error.status;
  return output.structuredContent.status;
}

type Batch = Answer<"/v1/consumers/{consumer}/tool-calls/batch", "post", 200>;

/** A batch: the turn's one message, each call's answer or problem. */
export function batchSummary(answer: Batch): string {
  const message = answer.provider_message;
  const kind =
    message === null
      ? "none"
      : Array.isArray(message)
        ? `items:${message.length}`
        : "role" in message
          ? message.role
          : message.previous_interaction_id;
  return `${kind} ${answer.calls.map((call) => call.problem?.code ?? call.model_result?.status).join(",")}`;
}

type Problem = Answer<"/v1/consumers/{consumer}/tool-calls", "post", 429>;

/** A problem carries its stable code and its extension members. */
export function problemLine(
  problem: Problem,
  capability: Answer<"/v1/consumers/{consumer}/capability/requests", "post", 422>,
): string {
  const code: "RATE_LIMITED" | "QUOTA_EXCEEDED" | (string & {}) = problem.code;
  return `${problem.status} ${code} ${problem.detail} ${problem.path ?? ""} ${Object.keys(capability.error ?? {}).join("")}`;
}

/** The headers a client acts on are typed: Retry-After on 429, WWW-Authenticate on 401. */
export function waitSeconds(
  headers: AnswerHeaders<"/v1/consumers/{consumer}/tool-calls", "post", 429>,
  challenge: AnswerHeaders<"/v1/consumers/{consumer}/tool-calls", "post", 401>,
): string {
  const retry: number | undefined = headers["Retry-After"];
  const www: string = challenge["WWW-Authenticate"];
  return `${retry ?? 0} ${www}`;
}

export function approvalWait(answer: Answer<"/v1/consumers/{consumer}/approvals/{approval_id}", "get", 200>): string {
  const state: "pending" | "approved" | "denied" | "edited" | "expired" | "withdrawn" = answer.state;
  return `${state} ${answer.valid_until ?? ""}`;
}

export function toolPage(answer: Answer<"/v1/consumers/{consumer}/tools", "get", 200>): string[] {
  return "tools" in answer
    ? answer.tools.map((tool) => tool.name)
    : answer.defined.map((tool) => `${tool.name}@${tool.current_version}`);
}

// @ts-expect-error a model result has no `protected_audit`: the audit record never reaches the host's model side
export const leaked = (answer: Call) => answer.model_result.protected_audit;
