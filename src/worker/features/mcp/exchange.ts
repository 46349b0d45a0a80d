/**
 * The exchange the MCP server's service speaks with the Worker (one HTTP request in, one reply
 * out) and the pieces of a reply it builds: the server's capabilities per version, a JSON-RPC
 * answer, a relaying call's stream, the client capabilities a session declared.
 * @module
 */
import { canonicalJsonReusing, type JsonObject } from "../../../core/json";
import { builtResultText } from "../../../core/tool-result/packages";
import type { JsonRpcId, JsonRpcMessage, McpProtocolVersion } from "../../../contracts/mcp";
import type { Carried } from "../../kernel/rpc";
import type { TraceParent } from "../../trace/context";
import { McpRelay, type RelayPlan } from "./relay";
import { CallRequests, type CallRequestsHost } from "./requests";
import { FEDERATED_CAPABILITIES } from "./resources";
import * as jsonRpc from "./rpc";
import type { McpSession } from "./store";

/** One HTTP request of the endpoint, as the Worker forwards it (after the Origin, Accept and envelope checks). */
export interface McpRequest {
  readonly method: "POST" | "DELETE" | "GET";
  /** The `Mcp-Session-Id` header. */
  readonly sessionId: string | null;
  /** The `MCP-Protocol-Version` header. */
  readonly protocolVersion: string | null;
  /** POST: the JSON-RPC message the Worker read and checked (../rpc.ts); DELETE and GET: null. */
  readonly message: Carried<JsonRpcMessage> | null;
  /** The client accepts `text/event-stream`: a relaying `tools/call` is answered as one (mcp/relay.ts). */
  readonly events?: boolean;
  /** The gate's origin as the client reached it: where the approver console is (an approval's link). */
  readonly origin?: string;
  /** The `traceparent` and `tracestate` headers as the Worker read them (checked again here; `_meta`'s win). */
  readonly trace?: TraceParent | null;
  /** The HTTP version the request came over (`1.1`, `2`, `3`), when the platform says: its spans record it. */
  readonly httpVersion?: string | null;
}

/**
 * What the object answers: a JSON-RPC response (200), the same as the last event of a stream of
 * relayed notifications (200, `text/event-stream`), an accepted notification or response (202),
 * an ended session (204).
 */
export type McpReply =
  | { readonly kind: "answer"; readonly body: string; readonly sessionId: string | null }
  | { readonly kind: "stream"; readonly body: ReadableStream<Uint8Array>; readonly sessionId: string }
  | { readonly kind: "accepted" }
  | { readonly kind: "ended" };

/** The server's name in `initialize` (its version is the gate's). */
export const MCP_SERVER_NAME = "toolgate";

export const INSTRUCTIONS =
  "Every tool call passes through toolgate. A write may need a person's approval: its result is APPROVAL_REQUIRED with _meta io.toolgate/approval_id; " +
  "call it as a task to wait for the decision, or call it again with the same _meta io.toolgate/idempotency_key once approved. " +
  "An unknown outcome carries _meta io.toolgate/status_ref: pass it back in _meta to ask for the status; never retry such a write blindly.";

/** The server capabilities of a negotiated version (tasks exist from 2025-11-25). */
export function capabilitiesOf(version: McpProtocolVersion): JsonObject {
  const base: JsonObject = { tools: { listChanged: false }, logging: {}, ...FEDERATED_CAPABILITIES };
  return version === "2025-11-25"
    ? { ...base, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }
    : base;
}

/** A JSON-RPC answer's text; a tools/call answer's `structuredContent` (its package's model result) as the package holds it. */
function answerBody(id: JsonRpcId, rpc: jsonRpc.Answer): string {
  return canonicalJsonReusing({ jsonrpc: "2.0", id, ...rpc }, builtResultText);
}

export function answer(id: JsonRpcId, rpc: jsonRpc.Answer, sessionId: string | null): McpReply {
  return { kind: "answer", body: answerBody(id, rpc), sessionId };
}

/** An HTTP version as the Worker carried it (`1.1`, `2`, `3`), or null. */
export function checkedHttpVersion(version: string | null | undefined): string | null {
  return typeof version === "string" && /^[1-3](?:\.[01])?$/.test(version) ? version : null;
}

/** The client capabilities a session declared that requests may be relayed for (mcp/requests.ts). */
export function declaredOf(session: McpSession): RelayPlan["capabilities"] {
  const stored = session.clientCapabilities ?? null;
  const declared = stored === null ? {} : jsonRpc.storedObject(stored, "a session's client capabilities");
  const sampling = jsonRpc.objectMember(declared, "sampling");
  const elicitation = jsonRpc.objectMember(declared, "elicitation");
  return { ...(sampling === undefined ? {} : { sampling }), ...(elicitation === undefined ? {} : { elicitation }) };
}

/** A `tools/call` that relays: the stream now; the call runs on in the object, its response the stream's last event. */
export function relayed(
  dispatch: (notify: McpRelay) => Promise<jsonRpc.Answer>,
  plan: RelayPlan,
  id: JsonRpcId,
  sessionId: string,
  host: Omit<CallRequestsHost, "write">,
): McpReply {
  const requests =
    Object.keys(plan.capabilities).length === 0
      ? undefined
      : (write: CallRequestsHost["write"]) => new CallRequests(plan.capabilities, { ...host, write });
  const relay = new McpRelay(plan, requests);
  void dispatch(relay).then(
    (rpc) => relay.end(answerBody(id, rpc)),
    (error: unknown) => relay.fail(error),
  );
  return { kind: "stream", body: relay.body, sessionId };
}
