/**
 * The provider-native shapes the gate answers, as types: one result item per call, and one
 * message for all the calls of a model turn. Each is checked against its vendor's SDK type
 * (`test/core/adapters/provider-shapes.types.test.ts`); the adapters build them.
 *
 * | profile                                 | one call                     | one turn                        |
 * | --------------------------------------- | ---------------------------- | ------------------------------- |
 * | `openai/responses`                      | `function_call_output` item  | the list of those items         |
 * | `openai/chat_completions`               | `tool` message               | the list of those messages      |
 * | `anthropic/messages`                    | `tool_result` block          | one `user` message of them      |
 * | `google/interactions`                   | a continuation, one `function_result` | one continuation, all of them |
 * | `google/generate_content`               | a `functionResponse` part    | one `user` `Content` of them    |
 * @module
 */
import type { JsonObject } from "../json";

/** A text part, as every vendor spells it. */
export type TextPart = { type: "text"; text: string };

/** OpenAI Responses `function_call_output` input item; `output` is the model result as canonical JSON. */
export type OpenAiFunctionCallOutput = { type: "function_call_output"; call_id: string; output: string };

/** OpenAI Chat Completions `tool` message; `content` is the model result as canonical JSON. */
export type OpenAiChatToolMessage = { role: "tool"; tool_call_id: string; content: string };

/**
 * Anthropic Messages `tool_result` block: `is_error` unless the call succeeded, `toolset_name`
 * repeated from a toolset member's `tool_use`.
 */
export type AnthropicToolResult = {
  type: "tool_result";
  tool_use_id: string;
  content: [TextPart];
  is_error: boolean;
  toolset_name?: string;
};

/** Gemini Interactions `function_result` step; `is_error` from `gemini-interactions-v2` on. */
export type GeminiFunctionResultStep = {
  type: "function_result";
  name: string;
  call_id: string;
  result: [TextPart];
  is_error?: boolean;
};

/** Gemini Interactions continuation: the next interaction's `previous_interaction_id` and `input`. */
export type GeminiInteractionsContinuation = { previous_interaction_id: string; input: GeminiFunctionResultStep[] };

/**
 * Gemini generateContent `FunctionResponse`: the model result under `output`, or under `error`
 * when the call did not succeed (the split `FunctionResponse.response` documents); `id` repeats
 * the `FunctionCall`'s and is absent when the model's call had none.
 */
export type GeminiFunctionResponse = {
  id?: string;
  name: string;
  response: { output: JsonObject } | { error: JsonObject };
};

/** Gemini generateContent `Part` carrying one {@link GeminiFunctionResponse}. */
export type GeminiFunctionResponsePart = { functionResponse: GeminiFunctionResponse };

/** OpenAI Responses, one turn: the items to append to the next request's `input`. */
export type OpenAiResponsesTurn = OpenAiFunctionCallOutput[];

/** OpenAI Chat Completions, one turn: the messages to append to the next request's `messages`. */
export type OpenAiChatTurn = OpenAiChatToolMessage[];

/** Anthropic Messages, one turn: one `user` message whose content is every `tool_result`, in call order. */
export type AnthropicTurn = { role: "user"; content: AnthropicToolResult[] };

/** Gemini generateContent, one turn: one `user` `Content` whose parts are every `functionResponse`, in call order. */
export type GeminiGenerateContentTurn = { role: "user"; parts: GeminiFunctionResponsePart[] };

/** Gemini Interactions, one turn: one continuation carrying every `function_result`, in call order. */
export type GeminiInteractionsTurn = GeminiInteractionsContinuation;
