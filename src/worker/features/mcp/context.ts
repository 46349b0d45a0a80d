import type { Json, JsonObject } from "../../../core/json";
import type { ToolRegistry } from "../../../core/tool-result/tool-spec";
import type { Outcome } from "../../result";
import type { McpNotifySink } from "../../targets/mcp/notify";
import type { TraceParent } from "../../trace/context";
import type { CallTrace } from "../../trace/tool-call";
import type { ObjectKernel } from "../../kernel/kernel";
import type { Authenticated } from "../sockets/upgrade";
import type { ToolCallInput } from "../tool-calls/bind";
import type { McpSession } from "./store";

/**
 * The agent's tool-call path of the consumer object, for the caller of this MCP request:
 * admission (rate, principal, tool scope), dispatch or status query, and the answer an
 * HTTP tool call gets (`tool-calls/answer.ts`), as a value; `notify` takes the call's downstream
 * notifications; `trace` what its span continues and records of the MCP request.
 */
export type RunCall = (
  input: ToolCallInput,
  statusRef: string | null,
  notify?: McpNotifySink,
  trace?: CallTrace,
) => Promise<Outcome<JsonObject>>;

/** What the MCP service uses of the kernel: its tables, the clock, one transaction step, the audit chain, the events (approval decisions) and the public URL. */
export type McpKernel = Pick<ObjectKernel, "sql" | "now" | "transaction" | "audit" | "events" | "env">;

/** One request of an open session. */
export interface McpContext {
  readonly auth: Authenticated;
  readonly session: McpSession;
  readonly registry: ToolRegistry;
  /** Whether a tool's target is an MCP server (its answers and schema pass through: target-result.ts). */
  readonly mcpTarget: (tool: string) => boolean;
  readonly run: RunCall;
  /** The idempotency key the gate derives for a write whose client sent none (docs/mcp.md, "Stock clients"). */
  readonly derivedKey: (tool: string, args: Json) => string;
  /** The gate's origin as the client reached it (the approver console's), null when unknown. */
  readonly consoleOrigin: string | null;
  /** A `tools/call` answered as an event stream: where its downstream notifications go. */
  readonly notify?: McpNotifySink;
  /** A relaying call of a client that takes URL-mode elicitation: sends it an approval's console page (elicitations.ts). */
  readonly elicitUrl?: (tool: string, approvalId: string) => void;
  /** What the HTTP request said of the trace (its headers) and of the transport (its version). */
  readonly transport?: { readonly trace: TraceParent | null; readonly httpVersion: string | null };
}
