import { joinTurn, joinsTurns } from "../../../core/adapters/provider-turn";
import { canonicalJson, type Json, type JsonObject } from "../../../core/json";
import { GATE_PROFILES, isRegisteredProfile, registeredProfilesText } from "../../../core/tool-result/constants";
import { ToolCallRequest } from "../../../contracts/tool-call";
import type { ToolCallBatchRequest } from "../../../contracts/tool-call-batch";
import { problem, problemMembers, type Problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import { bindCall, unregisteredProfile, type BoundCall } from "./bind";

/** Runs one call (already bound) on the agent's tool-call path (agent-call.ts), for the batch's caller. */
export type RunCall = (input: ToolCallRequest, bound: BoundCall) => Promise<Outcome<JsonObject>>;

/** A batch call as the single route's request: the batch's principal and context, the call's own ids. */
function composed(batch: ToolCallBatchRequest, index: number): Outcome<ToolCallRequest> {
  const call = batch.calls[index];
  if (call === undefined) throw new Error("a batch call index out of range");
  const request = {
    ...(batch.principal === undefined ? {} : { principal: batch.principal }),
    ...(batch.principal_token === undefined ? {} : { principal_token: batch.principal_token }),
    ...(call.provider_item === undefined ? {} : { provider_item: call.provider_item }),
    ...(call.proposal === undefined ? {} : { proposal: call.proposal }),
    ...(call.rationale === undefined ? {} : { rationale: call.rationale }),
    context: {
      ...(call.call_id === undefined ? {} : { call_id: call.call_id }),
      operation_id: call.operation_id,
      idempotency_key: call.idempotency_key ?? null,
      ...batch.context,
    },
  };
  const parsed = ToolCallRequest.safeParse(request);
  return parsed.success ? ok(parsed.data) : fail(problem("INVALID_REQUEST", `calls[${index}]: not a tool call`));
}

/** The checks a turn passes before any of its calls runs: its profile, each call's item and ids. */
function prepared(batch: ToolCallBatchRequest): Outcome<{ inputs: ToolCallRequest[]; bound: BoundCall[] }> {
  const { provider, api_family: apiFamily, adapter_revision: revision } = batch.context;
  if (!isRegisteredProfile(provider, apiFamily, revision))
    return fail(problem("INVALID_HOST_CONTEXT", unregisteredProfile()));
  if (!joinsTurns(provider, apiFamily)) {
    const joining = registeredProfilesText(GATE_PROFILES.filter((p) => joinsTurns(p.provider, p.api_family)));
    return fail(
      problem("INVALID_HOST_CONTEXT", `The provider profile answers no turn as one message; these do: ${joining}.`),
    );
  }
  const inputs: ToolCallRequest[] = [];
  const bound: BoundCall[] = [];
  const callIds: string[] = [];
  for (let index = 0; index < batch.calls.length; index += 1) {
    const input = composed(batch, index);
    if (!input.ok) return input;
    const call = bindCall(input.value);
    if (!call.ok) {
      const detail = call.error.detail.replace("$.context.call_id", `$.calls[${index}].call_id`);
      return fail(problem(call.error.code, detail.startsWith("$.") ? detail : `calls[${index}]: ${detail}`));
    }
    const earlier = callIds.indexOf(call.value.call.call_id);
    if (earlier >= 0)
      return fail(problem("INVALID_REQUEST", `calls[${index}] repeats the call id of calls[${earlier}].`));
    inputs.push(input.value);
    bound.push(call.value);
    callIds.push(call.value.call.call_id);
  }
  return ok({ inputs, bound });
}

/** A refused call's entry: the problem the single route would have answered, as its body. */
function refused(callId: string, p: Problem): JsonObject {
  const details: JsonObject = { ...problemMembers(p) };
  return p.retryAfterSeconds === undefined
    ? { call_id: callId, problem: details }
    : { call_id: callId, problem: details, retry_after: p.retryAfterSeconds };
}

/** An answered call's entry: the single route's answer (its value, before it is written) with its call id. */
function answered(callId: string, answer: JsonObject): JsonObject {
  return { call_id: callId, ...answer };
}

/**
 * The tool calls of one model turn (`POST …/tool-calls/batch`). Refused as a whole, before any
 * call runs, when the profile answers no turn as one message, an item is not its provider's, a
 * call lacks its call id or two calls share one. Otherwise each call runs in order as its own
 * tool call (`run`: admission, approvals, idempotency, its own audit entry); a call the single
 * route would have refused gets that problem in its entry and the others still run. Answered:
 * every call's entry, and, when all were answered, the provider's one message for the turn.
 */
export async function toolCallBatch(batch: ToolCallBatchRequest, run: RunCall): Promise<Outcome<string>> {
  const ready = prepared(batch);
  if (!ready.ok) return ready;
  const { inputs, bound } = ready.value;
  const entries: JsonObject[] = [];
  for (let index = 0; index < inputs.length; index += 1) {
    const input = inputs[index] as ToolCallRequest;
    const call = bound[index] as BoundCall;
    const callId = call.call.call_id;
    const outcome = await run(input, call);
    entries.push(outcome.ok ? answered(callId, outcome.value) : refused(callId, outcome.error));
  }
  let message: Json = null;
  if (entries.every((entry) => entry["problem"] === undefined)) {
    const joined = joinTurn(
      batch.context.provider,
      batch.context.api_family,
      entries.map((entry) => entry["provider_output"] as JsonObject),
    );
    if (!joined.ok) throw new Error(`the turn's answers do not join: ${joined.error.message}`);
    message = joined.value;
  }
  return ok(canonicalJson({ provider_message: message, calls: entries }));
}
