/**
 * One provider message for all the tool calls of a model turn: each call's own answer (its
 * adapter's item, in call order) joined the way the provider takes a turn's results back —
 * the types are ./provider-shapes.ts's `…Turn` types.
 *
 * | profile                   | the turn's answer                                                      |
 * | ------------------------- | ---------------------------------------------------------------------- |
 * | `openai/responses`        | the `function_call_output` items, to append to the next `input`        |
 * | `openai/chat_completions` | the `tool` messages, to append to the next `messages`                  |
 * | `anthropic/messages`      | `{role:"user", content:[tool_result…]}`                                |
 * | `google/interactions`     | `{previous_interaction_id, input:[function_result…]}`                  |
 * | `google/generate_content` | `{role:"user", parts:[{functionResponse}…]}` (the SDK's role for function responses) |
 *
 * MCP's profile has no turn: an MCP client sends each `tools/call` on its own.
 * @module
 */
import type { Json, JsonObject } from "../json";

/** The joined message, or why these answers make no one message. */
export type TurnResult =
  | { readonly ok: true; readonly value: Json }
  | { readonly ok: false; readonly error: { readonly code: "TURN_NOT_JOINABLE"; readonly message: string } };

const JOINABLE: ReadonlySet<string> = new Set([
  "openai\u0000responses",
  "openai\u0000chat_completions",
  "anthropic\u0000messages",
  "google\u0000interactions",
  "google\u0000generate_content",
]);

/** Whether a provider profile answers a turn as one message. */
export function joinsTurns(provider: string, apiFamily: string): boolean {
  return JOINABLE.has(`${provider}\u0000${apiFamily}`);
}

const refuse = (message: string): TurnResult => ({ ok: false, error: { code: "TURN_NOT_JOINABLE", message } });

/** Gemini Interactions: every continuation names the same previous interaction; their inputs are joined. */
function interactionsTurn(outputs: readonly JsonObject[]): TurnResult {
  const previous = outputs[0]?.["previous_interaction_id"];
  const input: Json[] = [];
  for (const output of outputs) {
    const steps = output["input"];
    if (output["previous_interaction_id"] !== previous || !Array.isArray(steps))
      return refuse("the continuations continue different interactions");
    input.push(...steps);
  }
  return typeof previous === "string"
    ? { ok: true, value: { previous_interaction_id: previous, input } }
    : refuse("a continuation without previous_interaction_id");
}

/** Joins the answers of one turn's calls (at least one, in call order) into the provider's one message. */
export function joinTurn(provider: string, apiFamily: string, outputs: readonly JsonObject[]): TurnResult {
  if (!joinsTurns(provider, apiFamily))
    return refuse(`the ${provider}/${apiFamily} profile answers no turn as one message`);
  if (outputs.length === 0) return refuse("a turn has at least one call");
  if (provider === "anthropic") return { ok: true, value: { role: "user", content: [...outputs] } };
  if (apiFamily === "generate_content") return { ok: true, value: { role: "user", parts: [...outputs] } };
  if (apiFamily === "interactions") return interactionsTurn(outputs);
  return { ok: true, value: [...outputs] };
}
