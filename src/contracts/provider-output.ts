import * as z from "../core/zod";
import { modelResultSchema } from "../core/tool-result";
import { httpSchemas } from "./registry";
import { DOCS } from "./docs";

/**
 * What a tool call answers the host, as the OpenAPI document describes it: the Tool Result v2
 * model result and each provider profile's native result item and turn message
 * (src/core/adapters/provider-shapes.ts; docs/providers.md). These are documentation contracts:
 * the engine builds the values, the vendors' SDK types check them (test/core/adapters), and the
 * answer checks validate real answers against the document generated from these.
 * @module
 */

/** The model-visible result (`tool-model-result-v2`). */
export const ModelResult = z.deferred(() =>
  modelResultSchema.register(httpSchemas, {
    id: "ModelResult",
    description: DOCS ? "The Tool Result v2 model result (`tool-model-result-v2`): what the model may see." : "",
  }),
);

const TextPart = z.deferred(() => z.strictObject({ type: z.literal("text"), text: z.string() }));

/** OpenAI Responses: a `function_call_output` input item. */
export const OpenAiFunctionCallOutput = z.deferred(() =>
  z
    .strictObject({
      type: z.literal("function_call_output"),
      call_id: z.string(),
      output: z.string().check(z.describe(DOCS ? "The model result as canonical JSON." : "")),
    })
    .register(httpSchemas, {
      id: "OpenAiFunctionCallOutput",
      description: DOCS ? "OpenAI Responses (`openai-responses-v1`)." : "",
    }),
);

/** OpenAI Chat Completions: a `tool` message. */
export const OpenAiChatToolMessage = z.deferred(() =>
  z
    .strictObject({
      role: z.literal("tool"),
      tool_call_id: z.string(),
      content: z.string().check(z.describe(DOCS ? "The model result as canonical JSON." : "")),
    })
    .register(httpSchemas, {
      id: "OpenAiChatToolMessage",
      description: DOCS ? "OpenAI Chat Completions (`openai-chat-completions-v1`)." : "",
    }),
);

/** Anthropic Messages: a `tool_result` block. */
export const AnthropicToolResult = z.deferred(() =>
  z
    .strictObject({
      type: z.literal("tool_result"),
      tool_use_id: z.string(),
      content: z.array(TextPart).check(z.length(1)),
      is_error: z.boolean(),
      toolset_name: z
        .optional(z.string())
        .check(z.describe(DOCS ? "Repeated from a toolset member's `tool_use`." : "")),
    })
    .register(httpSchemas, {
      id: "AnthropicToolResult",
      description: DOCS ? "Anthropic Messages (`anthropic-messages-v1`)." : "",
    }),
);

const GeminiFunctionResultStep = z.deferred(() =>
  z
    .strictObject({
      type: z.literal("function_result"),
      name: z.string(),
      call_id: z.string(),
      result: z.array(TextPart).check(z.length(1)),
      is_error: z.optional(z.boolean()).check(z.describe(DOCS ? "Set by `gemini-interactions-v2`." : "")),
    })
    .register(httpSchemas, { id: "GeminiFunctionResultStep" }),
);

/** Gemini Interactions: a continuation with `function_result` inputs. */
export const GeminiInteractionsContinuation = z.deferred(() =>
  z
    .strictObject({
      previous_interaction_id: z.string(),
      input: z.array(GeminiFunctionResultStep).check(z.minLength(1)),
    })
    .register(httpSchemas, {
      id: "GeminiInteractionsContinuation",
      description: DOCS ? "Gemini Interactions (`gemini-interactions-v1`, `-v2`)." : "",
    }),
);

/** Gemini generateContent: a `functionResponse` part. */
export const GeminiFunctionResponsePart = z.deferred(() =>
  z
    .strictObject({
      functionResponse: z.strictObject({
        id: z.optional(z.string()).check(z.describe(DOCS ? "Left out when the model's FunctionCall had none." : "")),
        name: z.string(),
        response: z.union([z.strictObject({ output: ModelResult }), z.strictObject({ error: ModelResult })]),
      }),
    })
    .register(httpSchemas, {
      id: "GeminiFunctionResponsePart",
      description: DOCS ? "Gemini generateContent (`gemini-generate-content-v1`)." : "",
    }),
);

/** MCP: a `CallToolResult`. */
export const McpCallToolResult = z.deferred(() =>
  z
    .strictObject({
      content: z.array(TextPart).check(z.length(1)),
      structuredContent: ModelResult,
      isError: z.boolean(),
    })
    .register(httpSchemas, { id: "McpCallToolResult", description: DOCS ? "MCP `tools/call` (`mcp-tools-v1`)." : "" }),
);

/** The provider-native result item of one call, in the shape of the call's `context.provider`/`api_family`. */
export const ProviderOutput = z.deferred(() =>
  z
    .union([
      OpenAiFunctionCallOutput,
      OpenAiChatToolMessage,
      AnthropicToolResult,
      GeminiInteractionsContinuation,
      GeminiFunctionResponsePart,
      McpCallToolResult,
    ])
    .register(httpSchemas, {
      id: "ProviderOutput",
      description: DOCS ? "The provider-native result item, in the call's provider profile (docs/providers.md)." : "",
    }),
);

/** The one message answering a whole turn (`…/tool-calls/batch`). */
export const ProviderMessage = z.deferred(() =>
  z
    .union([
      z.array(OpenAiFunctionCallOutput).check(z.describe(DOCS ? "OpenAI Responses: the turn's input items." : "")),
      z
        .array(OpenAiChatToolMessage)
        .check(z.describe(DOCS ? "OpenAI Chat Completions: the turn's tool messages." : "")),
      z
        .strictObject({ role: z.literal("user"), content: z.array(AnthropicToolResult) })
        .check(z.describe(DOCS ? "Anthropic Messages: one user message of tool_result blocks." : "")),
      z
        .strictObject({ role: z.literal("user"), parts: z.array(GeminiFunctionResponsePart) })
        .check(z.describe(DOCS ? "Gemini generateContent: one user Content of functionResponse parts." : "")),
      GeminiInteractionsContinuation,
    ])
    .register(httpSchemas, {
      id: "ProviderMessage",
      description: DOCS ? "The provider's one message for the turn (docs/providers.md)." : "",
    }),
);
