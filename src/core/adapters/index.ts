/**
 * Provider adapters: outbound projections of validated packages and inbound native tool calls.
 * @module
 */
export {
  adapterFor,
  toAnthropicMessages,
  toGeminiInteractions,
  toOpenAiResponses,
  type ProjectionResult,
  type ProviderAdapter,
} from "./provider-results";
export {
  parseAnthropicToolUse,
  parseGeminiFunctionCall,
  parseOpenAiFunctionCall,
  type NativeCallErrorCode,
  type NativeCallResult,
  type NativeToolCall,
} from "./native-calls";
