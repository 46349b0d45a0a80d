/**
 * How the MCP endpoint answers over HTTP: a JSON-RPC response (200, as JSON or as one SSE
 * event), `202` for a notification or response, `204` for an ended session, and every refusal
 * as an RFC 9457 problem whose body is also a JSON-RPC error response.
 * @module
 */
import { RPC_ERRORS, type JsonRpcId } from "../../../contracts/mcp";
import type { McpReply } from "./service";
import { problemResponse, type Problem } from "../../http/problem";
import { sseMessage } from "../../targets/mcp/sse";

/** How an answer is framed: JSON, or one `message` event of an SSE stream. */
export type AnswerFraming = "json" | "sse";

/**
 * A refusal at the HTTP level: the problem members (`type`, `title`, `status`, `code`,
 * `detail`) and, beside them, a JSON-RPC error response (`jsonrpc`, `id`, `error` with the
 * problem code in `error.data.code`), so a problem reader and an MCP client both read it.
 */
export function rpcProblem(
  p: Problem,
  rpcCode: number,
  id: JsonRpcId | null = null,
  extra: Record<string, string> = {},
): Response {
  const error = { code: rpcCode, message: p.detail, data: { code: p.code } };
  // The JSON-RPC error is this body's `error`: the problem's own extension members stay off it.
  const bare: Problem =
    p.retryAfterSeconds === undefined
      ? { code: p.code, detail: p.detail }
      : { code: p.code, detail: p.detail, retryAfterSeconds: p.retryAfterSeconds };
  return problemResponse(bare, { jsonrpc: "2.0", id, error }, extra);
}

/** A problem of the consumer's object as the endpoint's refusal (a session problem, or authentication). */
export function objectRefusal(p: Problem): Response {
  return rpcProblem(p, p.code === "NOT_FOUND" ? RPC_ERRORS.sessionNotFound : RPC_ERRORS.refused);
}

/** The object's reply as HTTP (a stream of relayed notifications is passed on as the object writes it). */
export function replyResponse(reply: McpReply, framing: AnswerFraming): Response {
  switch (reply.kind) {
    case "accepted":
      return new Response(null, { status: 202 });
    case "ended":
      return new Response(null, { status: 204 });
    case "stream":
      return new Response(reply.body, {
        status: 200,
        headers: {
          "content-type": "text/event-stream",
          "cache-control": "no-store",
          "mcp-session-id": reply.sessionId,
        },
      });
    case "answer": {
      const headers: Record<string, string> = {
        "content-type": framing === "json" ? "application/json" : "text/event-stream",
        "cache-control": "no-store",
      };
      if (reply.sessionId !== null) headers["mcp-session-id"] = reply.sessionId;
      // Canonical JSON has no raw line breaks, so the message is one `data:` line.
      const body = framing === "json" ? reply.body : sseMessage(reply.body);
      return new Response(body, { status: 200, headers });
    }
  }
}
