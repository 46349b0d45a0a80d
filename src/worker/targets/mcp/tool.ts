/**
 * Runs a data-defined tool whose target is an MCP server: one session, one `tools/call` with the
 * call's arguments (and, for a write, the gate's idempotency key in `_meta`), the answer mapped
 * to the engine's handler result. docs/tools.md, "MCP targets", is the contract.
 * @module
 */
import type { Json, JsonObject } from "../../../core/json";
import type { ToolSpec } from "../../../core/tool-result/tool-spec";
import type { Principal, ToolCall } from "../../../core/tool-result/types";
import { formatUtcSecond } from "../../../core/tool-result/utc-time";
import * as z from "../../../core/zod";
import { MCP_META } from "../../../contracts/mcp";
import { JsonObjectValue } from "../../../contracts/registry";
import type { McpTarget } from "../../../contracts/tool-definition";
import type { ExternalOutcome } from "../executor";
import { callTool, describeFailure, type McpEndpoint } from "./client";
import { causeOf } from "../cause";
import { contentBlocks, declaresStructuredContent } from "./content";
import { relayable, type McpNotification, type McpNotifySink } from "./notify";
import { declaredCapabilities, isRelayedMethod, RELAYED_METHODS, type McpToolRelay } from "./requests";
import { encodeIdentity, identityStatement, type DownstreamSigner } from "../http/signature";

/** How the executor reaches one MCP tool: its target, and the `Authorization` of one exchange. */
export interface McpToolRoute {
  readonly target: McpTarget;
  /** `auth`'s secret opened for this exchange (prefix included); `null` without `auth`; `undefined` if it cannot be opened. */
  authorization(): Promise<string | null | undefined>;
  /** The registered server's relay setting, read at call time; `null` (or absent): nothing is relayed. */
  relay?(): McpToolRelay | null;
}

/** What calling MCP tools uses of the gate. */
export interface McpToolHost {
  /** Signs every request of an exchange with the call's identity; none, nothing is sent. */
  readonly signer: DownstreamSigner | undefined;
  readonly fetch: (request: Request) => Promise<Response>;
  /** The gate's clock (Unix seconds): a result's `observed_at`. */
  readonly now: () => number;
  /** The server at `url` announced that its tools changed. */
  readonly listChanged: (url: string) => void;
}

/** A `tools/call` result as MCP defines it (2025-11-25: `content` required). */
const CallToolResult = z.deferred(() =>
  z.object({
    content: z.array(z.unknown()),
    structuredContent: z.optional(JsonObjectValue),
    isError: z.optional(z.boolean()),
  }),
);

function pass(sink: McpNotifySink, notification: McpNotification | null): void {
  if (notification !== null) sink.notify(notification);
}

// Made when they happen, not when the module starts (causeOf makes a detail safe).
const noSigner = (): ExternalOutcome => ({
  kind: "not_sent",
  cause: causeOf("refused", "the gate has no signing key"),
});
const noAuth = (): ExternalOutcome => ({
  kind: "not_sent",
  cause: causeOf("refused", "the target's auth secret cannot be opened"),
});
const RATE_LIMITED: ExternalOutcome = { kind: "rate_limited" };

/**
 * Calls an MCP target once. A write is never re-sent; a read may be, once, after a connection
 * failure. The server's answers map as: a result → the tool's data; `isError` or a JSON-RPC
 * error → `not_sent` (the server answered that it did not do it: `TOOL_ERROR`); HTTP 429 →
 * `rate_limited`; a session that failed before the call was sent → `not_sent`; anything else
 * after the call was sent (timeout, lost connection, unreadable answer) → `failed`, which the
 * engine records as an unknown outcome for a write. With a `sink`, the server's progress (for a
 * token of the gate's) and log messages on the answer's stream go to it as they arrive, and its
 * sampling and elicitation requests to `sink.requests` when the server's registration opted in.
 */
export async function callMcpTool(
  route: McpToolRoute,
  host: McpToolHost,
  spec: ToolSpec,
  principal: Principal,
  call: ToolCall,
  key: string | null,
  sink?: McpNotifySink,
): Promise<ExternalOutcome> {
  const signer = host.signer;
  if (signer === undefined) return noSigner();
  const authorization = await route.authorization();
  if (authorization === undefined) return noAuth();
  const target = route.target;
  const write = spec.risk === "write" && key !== null;
  // A token of the gate's own, only when progress is wanted: the client's token never leaves the gate.
  const token = sink?.progress === true ? `toolgate-${crypto.randomUUID()}` : null;
  const identity = encodeIdentity(identityStatement(principal, spec.name, call, write ? key : null));
  // Client capabilities only where the server opted in and the client declared them: a request of any other method is refused.
  const relay = route.relay?.() ?? null;
  const requests = sink?.requests;
  const capabilities = declaredCapabilities(relay, requests);
  const endpoint: McpEndpoint = {
    url: target.url,
    headers: authorization === null ? {} : { authorization },
    fetch: host.fetch,
    sign: async (method, url, body) => ({ ...(await signer.sign({ method, url, body }, identity)) }),
    signal: AbortSignal.timeout(spec.timeoutMs),
    onListChanged: () => host.listChanged(target.url),
    onNotification: sink === undefined ? undefined : (method, params) => pass(sink, relayable(method, params, token)),
    capabilities,
    onRequest: (method, params, reply) => {
      if (
        relay === null ||
        requests === undefined ||
        !isRelayedMethod(method) ||
        !Object.hasOwn(capabilities, RELAYED_METHODS[method])
      )
        return false;
      requests.request(method, params, { server: relay.server, tool: spec.name }, reply);
      return true;
    },
  };
  const meta: JsonObject = {
    ...(write ? { [MCP_META.idempotencyKey]: key } : {}),
    ...(token === null ? {} : { progressToken: token }),
  };
  const params: JsonObject = {
    name: target.tool,
    arguments: call.arguments,
    ...(Object.keys(meta).length === 0 ? {} : { _meta: meta }),
  };
  const reply = await callTool(endpoint, params, { retry: spec.risk === "read", maxBytes: target.max_response_bytes });
  // The operator's cause of a failure: the deadline when it passed, else the reply's own words.
  const lostCause = (detail: string) =>
    endpoint.signal.aborted ? causeOf("timeout", `no answer within ${spec.timeoutMs} ms`) : causeOf("connect", detail);
  switch (reply.kind) {
    case "not_started": {
      const failure = reply.failure;
      if (failure.kind === "rate_limited") return RATE_LIMITED;
      const text = describeFailure(failure, "initialize");
      return { kind: "not_sent", cause: failure.kind === "error" ? causeOf("status", text) : lostCause(text) };
    }
    case "rate_limited":
      return RATE_LIMITED;
    case "error":
      return { kind: "not_sent", cause: causeOf("status", describeFailure(reply, "tools/call")) };
    case "lost":
      return { kind: "failed", cause: lostCause(describeFailure(reply, "tools/call")) };
    case "result": {
      const answer = CallToolResult.safeParse(reply.result);
      if (!answer.success)
        return { kind: "failed", cause: causeOf("contract", "tools/call answered no CallToolResult") };
      if (answer.data.isError === true) {
        sink?.refused?.(contentBlocks(reply.result["content"] as Json[]));
        return { kind: "not_sent", cause: causeOf("status", "tools/call answered isError") };
      }
      const structured = answer.data.structuredContent;
      const keep = structured !== undefined && declaresStructuredContent(spec.outputSchema?.document);
      const data: JsonObject = {
        content: contentBlocks(reply.result["content"] as Json[]),
        ...(keep ? { structuredContent: structured as JsonObject } : {}),
      };
      return {
        kind: "result",
        result: {
          data,
          producer_revision: spec.producerRevision,
          resource_revision: null,
          observed_at: formatUtcSecond(host.now()),
          downstream_request_id: null,
          receipt_id: null,
        },
      };
    }
  }
}
