/**
 * The spans of one agent tool call (docs/traces.md), after the OpenTelemetry GenAI semantic
 * conventions: the root `execute_tool {gen_ai.tool.name}` and its children `toolgate.approval`,
 * `toolgate.downstream` and `toolgate.audit.append`. The root continues the caller's trace when
 * it sent one (./context.ts); an MCP `tools/call` also carries the MCP conventions' attributes
 * and is their server span. Only names, ids, codes, a method and a host are recorded: never
 * arguments, results, tokens, secrets, URLs' paths or queries, or subject ids. Every helper
 * takes `undefined` for "not traced" and then does nothing.
 * @module
 */
import { passedThrough, type ApprovalBook, type ApprovalRecord } from "../../core/tool-result/approval-book";
import type { BeginDispatchResult } from "../../core/tool-result/dispatcher";
import type { ToolCall } from "../../core/tool-result/types";
import type { Problem } from "../http/problem";
import type { Outcome } from "../result";
import type { ExternalExecutor, ExternalOutcome } from "../targets/executor";
import type { TraceParent } from "./context";
import type { Span, Tracer } from "./span";

/** The span names. */
export const SPAN_NAMES = {
  tool: "execute_tool",
  approval: "toolgate.approval",
  downstream: "toolgate.downstream",
  audit: "toolgate.audit.append",
} as const;

/** `gen_ai.provider.name` of the provider profiles whose provider the conventions name; others are left out. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  openai: "openai",
  anthropic: "anthropic",
  google: "gcp.gemini",
};

/** The MCP request a `tools/call` came in, as its span records it (the MCP semantic conventions). */
export interface McpCallTrace {
  readonly sessionId: string;
  /** The session's negotiated protocol version. */
  readonly protocolVersion: string;
  /** The JSON-RPC request's id (recorded as text; a null id is not recorded). */
  readonly requestId: string | number | null;
  /** The HTTP version the request came over (`1.1`, `2`, `3`), when the platform says. */
  readonly httpVersion: string | null;
  /** The JSON-RPC error code the gate answers a refusal with (mcp/rpc.ts). */
  readonly refusalCode: (refused: Problem) => number;
}

/** What a call's trace continues (the caller's span, or none: a new trace) and, for MCP, the request it came in. */
export interface CallTrace {
  readonly parent: TraceParent | null;
  readonly mcp?: McpCallTrace;
}

/** The MCP method a traced `tools/call` names its span after. */
const MCP_TOOLS_CALL = "tools/call";

/**
 * The root span of an agent tool call (`undefined` when tracing is off), a child of the caller's
 * span when it sent one; named once the call is bound. An MCP `tools/call` is the MCP server
 * span (kind server, named `tools/call {tool}`) with the MCP attributes; the gate's execute_tool
 * attributes are the same for both, as the conventions make them compatible.
 */
export function startToolSpan(tracer: Tracer | undefined, consumer: string, trace?: CallTrace): Span | undefined {
  if (tracer === undefined || !tracer.enabled) return undefined;
  const mcp = trace?.mcp;
  const span = tracer
    .start(
      mcp === undefined ? SPAN_NAMES.tool : MCP_TOOLS_CALL,
      mcp === undefined ? "internal" : "server",
      trace?.parent,
    )
    .set("gen_ai.operation.name", "execute_tool")
    .set("gen_ai.tool.type", "function")
    .set("toolgate.consumer", consumer);
  if (mcp === undefined) return span;
  // HTTP/3 runs over QUIC; every other HTTP version over TCP.
  return span
    .set("mcp.method.name", MCP_TOOLS_CALL)
    .set("mcp.session.id", mcp.sessionId)
    .set("mcp.protocol.version", mcp.protocolVersion)
    .set("jsonrpc.request.id", mcp.requestId === null ? null : String(mcp.requestId))
    .set("network.protocol.name", "http")
    .set("network.protocol.version", mcp.httpVersion)
    .set("network.transport", mcp.httpVersion === "3" ? "quic" : "tcp");
}

/** Names the root span after the bound call: its tool, call id and provider. */
export function describeToolCall(span: Span | undefined, call: ToolCall, trace?: CallTrace): void {
  if (span === undefined) return;
  span
    .rename(`${trace?.mcp === undefined ? SPAN_NAMES.tool : MCP_TOOLS_CALL} ${call.name}`)
    .set("gen_ai.tool.name", call.name)
    .set("gen_ai.tool.call.id", call.call_id);
  span.set(
    "gen_ai.provider.name",
    Object.hasOwn(PROVIDER_NAMES, call.provider) ? PROVIDER_NAMES[call.provider] : undefined,
  );
}

/** What a finished call came to, as far as its trace needs it (`ToolCallOutcome`'s members). */
export interface TracedOutcome {
  readonly package: {
    readonly model_result: { readonly status: string; readonly error: { readonly code: string } | null };
  };
  readonly approvalId: string | null;
  readonly audit: { readonly seq: number };
}

/**
 * Ends the root span: the audit append of the outcome (its sequence number), `toolgate.outcome`
 * (the model result's status, or its error code, or the refusal's problem code), and the error
 * when the call failed. A call waiting for its approval (`APPROVAL_REQUIRED`) is not an error.
 * An MCP refusal also records the JSON-RPC error code it is answered with.
 */
export function endToolSpan(span: Span | undefined, outcome: Outcome<TracedOutcome>, trace?: CallTrace): void {
  if (span === undefined) return;
  if (!outcome.ok) {
    const rpcCode = trace?.mcp?.refusalCode(outcome.error);
    span.set("rpc.status_code", rpcCode === undefined ? undefined : String(rpcCode));
    span.set("toolgate.outcome", outcome.error.code).fail(outcome.error.code).end();
    return;
  }
  const { package: pkg, approvalId, audit } = outcome.value;
  span.child(SPAN_NAMES.audit).set("toolgate.audit.seq", audit.seq).end();
  const code = pkg.model_result.error?.code;
  span.set("toolgate.approval_id", approvalId).set("toolgate.outcome", code ?? pkg.model_result.status);
  if (pkg.model_result.status !== "succeeded" && code !== "APPROVAL_REQUIRED")
    span.fail(code ?? pkg.model_result.status);
  span.end();
}

/**
 * Watches the approval book through a dispatch's first step, so the call's approval span can
 * say which approval it opened, waited for or used (and in what state it found it).
 */
export class ApprovalWatch {
  readonly book: ApprovalBook;
  readonly #span: Span;
  #opened: string | null = null;
  #consulted: readonly ApprovalRecord[] = [];

  constructor(book: ApprovalBook, span: Span) {
    this.#span = span;
    this.book = {
      byBinding: (key) => (this.#consulted = book.byBinding(key)),
      open: (request) => {
        const opened = book.open(request);
        if (opened.ok) this.#opened = opened.value;
        return opened;
      },
      // An edited approval's lookup and claim pass through: the claimed one is consulted by byBinding next.
      ...passedThrough(book),
    };
  }

  /** After step one: the `toolgate.approval` span, when the call opened, waited for or used an approval. */
  end(result: BeginDispatchResult, now: number): void {
    const found = this.#approval(result, now);
    if (found === null) return;
    this.#span.set("toolgate.approval_id", found.id);
    this.#span
      .child(SPAN_NAMES.approval)
      .set("toolgate.approval_id", found.id)
      .set("toolgate.approval.state", found.state)
      .set("toolgate.approval.opened", found.id === this.#opened)
      .end();
  }

  #approval(result: BeginDispatchResult, now: number): { id: string; state: string } | null {
    if (this.#opened !== null) return { id: this.#opened, state: "pending" };
    if (result.kind === "needs_approval") return { id: result.approval_id, state: "pending" };
    if (result.kind === "quota_exceeded" || this.#consulted.length === 0) return null;
    // Run: the approval that granted it; refused: the one that refused it (the latest).
    const approved = this.#consulted.filter((r) => r.state === "approved");
    const record =
      result.kind === "execute" && approved.length > 0
        ? approved[approved.length - 1]
        : this.#consulted[this.#consulted.length - 1];
    if (record === undefined) return null;
    return {
      id: record.approval_id,
      state: record.state === "pending" && record.expires_at <= now ? "expired" : record.state,
    };
  }
}

/** The `toolgate.downstream` span (kind client) of an external tool's run: the method and the host it is sent to. */
export function startDownstreamSpan(
  span: Span | undefined,
  executor: ExternalExecutor,
  spec: Parameters<ExternalExecutor["run"]>[0],
): Span | undefined {
  if (span === undefined) return undefined;
  const target = executor.target?.(spec);
  const child = span.child(SPAN_NAMES.downstream, "client");
  if (target === undefined) return child;
  child.set("toolgate.downstream.kind", target.kind).set("http.request.method", target.method);
  return child.set("server.address", hostOf(target.url));
}

/** The host of a URL (never its path or query), or `undefined` when it is not one. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/** Ends the downstream span with what the run came to: the HTTP status where known (a result's, or 429), and the failure's class. */
export function endDownstreamSpan(span: Span | undefined, ran: ExternalOutcome): void {
  if (span === undefined) return;
  if (ran.kind === "result") span.set("http.response.status_code", ran.status);
  else if (ran.kind === "rate_limited") span.set("http.response.status_code", 429).fail("rate_limited");
  else span.fail(ran.kind);
  span.end();
}
