/**
 * Requests a downstream MCP server may make of the gate's own MCP client in the middle of a
 * `tools/call` (`sampling/createMessage`, `elicitation/create`), relayed only when the server's
 * registration opted in and the client declared the capability. docs/mcp.md, "Sampling and
 * elicitation (opt-in)", is the contract.
 * @module
 */
import type { JsonObject } from "../../../core/json";

/** The methods a call may relay, and the client capability each needs. */
export const RELAYED_METHODS = { "sampling/createMessage": "sampling", "elicitation/create": "elicitation" } as const;

/** A relayable method. */
export type RelayedMethod = keyof typeof RELAYED_METHODS;

/** Whether a server's request is of a relayable method. */
export function isRelayedMethod(method: string): method is RelayedMethod {
  return Object.hasOwn(RELAYED_METHODS, method);
}

/** What a tool of a registered server may relay (its registration's `relay`), read at call time. */
export interface McpToolRelay {
  /** The registered server's name (for the audit). */
  readonly server: string;
  readonly sampling: boolean;
  readonly elicitation: boolean;
}

/** The answer sent back to the downstream for one of its requests: a result, or an error. */
export type RelayedAnswer = { readonly result: JsonObject } | { readonly error: JsonObject };

/** Sends the answer to the downstream (its own request id restored, in the session that asked). */
export type RelayReply = (answer: RelayedAnswer) => Promise<void>;

/** Where one call's relayable requests go: the MCP client that made the call. */
export interface McpRequestSink {
  /** The capability objects the MCP client declared in its `initialize` (absent: not declared). */
  readonly capabilities: { readonly sampling?: JsonObject; readonly elicitation?: JsonObject };
  /**
   * Takes one request of the downstream's: relays it to the client, or refuses it; either way
   * `reply` is called once, with the client's answer or the gate's error (never when the call
   * ended first: the downstream's session is gone then).
   */
  request(
    method: RelayedMethod,
    params: JsonObject | undefined,
    origin: { readonly server: string; readonly tool: string },
    reply: RelayReply,
  ): void;
}

/**
 * The client capabilities a call declares downstream: each one the server opted into and the
 * client declared (the client's own capability object), none otherwise.
 */
export function declaredCapabilities(relay: McpToolRelay | null, sink: McpRequestSink | undefined): JsonObject {
  const declared: JsonObject = {};
  if (relay === null || sink === undefined) return declared;
  if (relay.sampling && sink.capabilities.sampling !== undefined) declared["sampling"] = sink.capabilities.sampling;
  if (relay.elicitation && sink.capabilities.elicitation !== undefined)
    declared["elicitation"] = sink.capabilities.elicitation;
  return declared;
}
