import type { JsonObject } from "../../../core/json";
import type { ToolRegistry } from "../../../core/tool-result/tool-spec";
import type { Outcome } from "../../result";
import type { McpNotifySink } from "../../tools/mcp-notify";
import type { AuditChain } from "../audit/plane";
import type { ConsumerRecord } from "../consumer/plane";
import type { Limits } from "../limits";
import type { Authenticated } from "../socket-upgrade";
import type { ToolCallPlane } from "../tool-calls/plane";
import type { ToolCallInput } from "../tool-calls/bind";
import type { McpSession } from "./store";

/**
 * The agent's tool-call path of the consumer object, for the caller of this MCP request:
 * admission (rate, principal, tool scope), dispatch or status query, and the answer an
 * HTTP tool call gets (`tool-calls/answer.ts`), as a value; `notify` takes the call's downstream notifications.
 */
export type RunCall = (input: ToolCallInput, statusRef: string | null, notify?: McpNotifySink) => Promise<Outcome<JsonObject>>;

/** What the MCP plane uses of its object. */
export interface McpPlaneDeps {
  readonly sql: SqlStorage;
  /** The object's clock, Unix seconds. */
  now(): number;
  /** Runs a synchronous step as one SQLite transaction. */
  transaction<T>(step: () => T): T;
  /** The consumer's tool-call plane (its registry, approvals and withdrawals). */
  toolCalls(config: ConsumerRecord): ToolCallPlane;
  audit(): AuditChain;
  /** Takes one token of the credential's call rate (credentials/rate.ts), shared with its tool calls. */
  rate(credentialId: string, limits: Limits): Outcome<null>;
}

/** One request of an open session. */
export interface McpContext {
  readonly auth: Authenticated;
  readonly session: McpSession;
  readonly registry: ToolRegistry;
  readonly run: RunCall;
  /** A `tools/call` answered as an event stream: where its downstream notifications go. */
  readonly notify?: McpNotifySink;
}
