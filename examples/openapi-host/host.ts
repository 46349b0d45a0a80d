/**
 * An agent host that speaks to the gate over plain HTTP, typed from the gate's own OpenAPI
 * document: `npx openapi-typescript http://127.0.0.1:8787/v1/openapi.json -o schema.d.ts`
 * writes ./schema.d.ts next to this file. No SDK: `fetch` and the generated types.
 *
 * It sends the model's tool call, answers the model with the provider-native item, and when a
 * write needs a human it waits for the decision and sends the same call again.
 */
import type { paths } from "./schema";

type CallPath = paths["/v1/consumers/{consumer}/tool-calls"]["post"];
type CallRequest = CallPath["requestBody"]["content"]["application/json"];
type CallAnswer = CallPath["responses"][200]["content"]["application/json"];
type Problem = CallPath["responses"][400]["content"]["application/problem+json"];
type ApprovalWait =
  paths["/v1/consumers/{consumer}/approvals/{approval_id}"]["get"]["responses"][200]["content"]["application/json"];

/** Where the gate is and who this host is. */
export interface Host {
  readonly gate: string; // e.g. http://127.0.0.1:8787
  readonly consumer: string;
  readonly agentToken: string;
}

/** A call's outcome for the model loop: the item to hand back, or the problem that refused it. */
export type Outcome =
  | { readonly ok: true; readonly answer: CallAnswer }
  | { readonly ok: false; readonly problem: Problem; readonly retryAfter: number | null };

async function post(host: Host, body: CallRequest): Promise<Outcome> {
  const res = await fetch(`${host.gate}/v1/consumers/${encodeURIComponent(host.consumer)}/tool-calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${host.agentToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.ok) return { ok: true, answer: (await res.json()) as CallAnswer };
  const retry = res.headers.get("retry-after");
  return { ok: false, problem: (await res.json()) as Problem, retryAfter: retry === null ? null : Number(retry) };
}

async function waitForDecision(host: Host, approvalId: string): Promise<ApprovalWait> {
  const url = `${host.gate}/v1/consumers/${encodeURIComponent(host.consumer)}/approvals/${encodeURIComponent(approvalId)}?wait=60`;
  for (;;) {
    const res = await fetch(url, { headers: { authorization: `Bearer ${host.agentToken}` } });
    const status = (await res.json()) as ApprovalWait;
    if (status.state !== "pending") return status;
  }
}

/**
 * One OpenAI Responses `function_call` item through the gate: the `function_call_output` item
 * to append to the model's next input, or the problem (after waiting once for a human).
 */
export async function callTool(
  host: Host,
  item: { call_id: string; name: string; arguments: string },
  user: { subject_id: string; roles: string[] },
  responseId: string,
): Promise<Outcome> {
  const body: CallRequest = {
    principal: user,
    provider_item: { type: "function_call", ...item },
    context: {
      operation_id: `op-${item.call_id}`,
      idempotency_key: `key-${item.call_id}`, // a write is deduplicated under this key
      provider: "openai",
      api_family: "responses",
      response_id: responseId,
      adapter_revision: "openai-responses-v1",
    },
  };
  const first = await post(host, body);
  if (!first.ok || first.answer.approval_id === undefined) return first;
  const decision = await waitForDecision(host, first.answer.approval_id);
  // Approved: the same call again runs once. Denied or expired: the first answer (APPROVAL_REQUIRED) stands.
  return decision.state === "approved" ? post(host, body) : first;
}

/** The text the model sees: the provider item's output (the model result as canonical JSON). */
export function forModel(outcome: Outcome): string {
  if (!outcome.ok) return `${outcome.problem.code}: ${outcome.problem.detail}`;
  const output = outcome.answer.provider_output;
  return "type" in output && output.type === "function_call_output"
    ? output.output
    : JSON.stringify(outcome.answer.model_result);
}
