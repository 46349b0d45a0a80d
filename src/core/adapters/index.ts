/**
 * Provider adapters: outbound projections of validated packages, inbound native tool calls, and
 * tool declarations for the model in each vendor's shape.
 * @module
 */
export {
  adapterFor,
  toAnthropicMessages,
  toGeminiGenerateContent,
  toGeminiInteractions,
  toGeminiInteractionsV2,
  toOpenAiChatCompletions,
  toOpenAiResponses,
  type ProjectionResult,
  type ProviderAdapter,
} from "./provider-results";
export {
  GROUP_SEPARATOR,
  parseAnthropicToolUse,
  parseGeminiFunctionCall,
  parseGeminiGenerateContentCall,
  parseOpenAiChatToolCall,
  parseOpenAiFunctionCall,
  parseProviderItem,
  qualifiedToolName,
  type CallEcho,
  type NativeCallErrorCode,
  type NativeCallResult,
  type NativeToolCall,
} from "./native-calls";
export { joinsTurns, joinTurn, type TurnResult } from "./provider-turn";
export type * from "./provider-shapes";
export {
  DECLARATION_FORMATS,
  declareTools,
  isDeclarationFormat,
  type AnthropicToolDeclaration,
  type DeclarationFormat,
  type GeminiToolDeclaration,
  type JsonSchemaToolDeclaration,
  type ObjectSchema,
  type OpenAiToolDeclaration,
  type ToolDeclarationInput,
} from "./declarations";
export { fromOpenAiStrictArguments, toOpenAiStrictSchema } from "./openai-strict";
export { mcpAnnotations, mcpOutputSchema, toMcpToolResult } from "./mcp";
