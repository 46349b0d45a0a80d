import { readJson, PyFloat, type Json } from "../../core/json";
import type { AgentClient, ToolCallAnswer, ToolCallInput } from "../../client/agent";
import type { ClientProblem, ClientResult } from "../../client/transport";

/** Whom the calls act for: nothing with a subject-bound credential, else a principal or the end user's token. */
export interface CallIdentity {
  /** Required with a host credential; optional with a subject-bound one (it must name that subject). */
  readonly principal?: { readonly subject_id: string; readonly roles: readonly string[] };
  /** The end user's JWT, for a token-verified credential. */
  readonly principalToken?: string;
}

/** What a gate call ended with, as the adapter needs it. */
export type GateOutcome =
  | { readonly kind: "answer"; readonly answer: ToolCallAnswer }
  | { readonly kind: "pending"; readonly approvalId: string; readonly answer: ToolCallAnswer }
  | { readonly kind: "refused"; readonly problem: ClientProblem };

/** Times a call the gate is still running under the same key is asked again (1 s apart). */
const IN_PROGRESS_RETRIES = 3;

/**
 * The call's idempotency key: derived from the SDK's call id, so a retried turn (the same call
 * id) replays a completed write instead of running it again, and a resumed run repeats the
 * call the gate's approver saw.
 */
export const idempotencyKeyOf = (callId: string): string => `openai-agents:${callId}`;

/** The `POST …/tool-calls` body of one SDK function call (OpenAI Responses profile). */
export function callBody(
  identity: CallIdentity,
  name: string,
  args: Record<string, unknown>,
  callId: string,
): ToolCallInput {
  return {
    ...(identity.principal === undefined
      ? {}
      : { principal: { subject_id: identity.principal.subject_id, roles: [...identity.principal.roles] } }),
    ...(identity.principalToken === undefined ? {} : { principal_token: identity.principalToken }),
    proposal: { name, arguments: args },
    // The SDK gives a function tool the call id only: it names the operation and the response too,
    // so the repeated call binds to the approval the first one opened.
    context: {
      call_id: callId,
      operation_id: callId,
      idempotency_key: idempotencyKeyOf(callId),
      provider: "openai",
      api_family: "responses",
      response_id: callId,
      adapter_revision: "openai-responses-v1",
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Sends one call; a duplicate still in flight (`IDEMPOTENCY_IN_PROGRESS`) is asked again. */
export async function sendCall(agent: AgentClient, body: ToolCallInput): Promise<GateOutcome> {
  let answer: ClientResult<ToolCallAnswer> = await agent.toolCall(body);
  for (let retry = 0; retry < IN_PROGRESS_RETRIES; retry++) {
    if (answer.ok || answer.problem.code !== "IDEMPOTENCY_IN_PROGRESS") break;
    await sleep(1000);
    answer = await agent.toolCall(body);
  }
  if (!answer.ok) return { kind: "refused", problem: answer.problem };
  const approvalId = answer.value.approval_id;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- answers are read unchecked; a null id still means none
  return approvalId === undefined || approvalId === null
    ? { kind: "answer", answer: answer.value }
    : { kind: "pending", approvalId, answer: answer.value };
}

/** The model-visible result: the gate's OpenAI `function_call_output` text (its model result as canonical JSON). */
export function modelOutput(answer: ToolCallAnswer): string {
  const output = answer.provider_output;
  if (!("type" in output) || output.type !== "function_call_output")
    throw new Error("the gate answered another provider's item for an OpenAI Responses call");
  return output.output;
}

/** What the model reads when the gate refused the request itself (no model result exists). */
export const refusalOutput = (problem: ClientProblem): string =>
  `The gate refused this call (${problem.code}); it did not run.`;

/** A JSON value of the strict reader as `JSON.parse` would give it (`1.0` is 1, as the SDK read it). */
function plain(value: Json): unknown {
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  return value;
}

/** The arguments text of a model's function call as an object, or null when it is not a JSON object. */
export function argumentsOf(text: string): Record<string, unknown> | null {
  const read = readJson(text, { domain: false });
  if (!read.ok) return null;
  const value = plain(read.value);
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value))
    : null;
}
