import type { MiddlewareHandler } from "hono";
import { JsonRpcMessage, JsonRpcResponse, McpProblem, RPC_ERRORS } from "../../../contracts/mcp";
import { objectRefusal, replyResponse, rpcProblem } from "./answer";
import { acceptsEventStream, answerFraming, readMcpMessage } from "./message";
import { corsOriginAllowed } from "../../http/cors";
import { mcpOriginRefusal } from "./origin";
import type { McpRequest } from "./service";
import { mcpBearer, mcpChallenge } from "../oauth/bearer";
import type { HeaderDoc } from "../../http/openapi/operation";
import { problem } from "../../http/problem";
import { credentialToken, type GateEnv } from "../../http/middleware";
import { handlers, type RouteModule } from "../../http/route";
import { incomingTrace } from "../../trace/context";
import { DOCS } from "../../../contracts/docs";

/** The MCP endpoint of a consumer (Streamable HTTP, docs/mcp.md). */
export const MCP_PATH = "/v1/consumers/:consumer/mcp";

/** DNS-rebinding protection: the `Host` and `Origin` rule, before the credential is read. */
function mcpOrigin(): MiddlewareHandler<GateEnv> {
  return async function mcpOrigin(c, next) {
    const refusal = mcpOriginRefusal(c.req.raw);
    // A browser page on an origin the consumer allows (cors_origins) is not a DNS-rebinding attack.
    if (refusal !== null && !(await corsOriginAllowed(c.env, c.req.param("consumer"), c.req.header("origin"))))
      return rpcProblem(refusal, RPC_ERRORS.refused);
    await next();
  };
}

/** The session and protocol headers the object checks. */
function headersOf(request: Request): Pick<McpRequest, "sessionId" | "protocolVersion" | "origin"> {
  return {
    sessionId: request.headers.get("mcp-session-id"),
    protocolVersion: request.headers.get("mcp-protocol-version"),
    origin: new URL(request.url).origin,
  };
}

/** The HTTP version the platform says the request came over (`HTTP/2` → `2`), or null. */
function httpVersionOf(request: Request): string | null {
  const cf: unknown = request.cf;
  const protocol = typeof cf === "object" && cf !== null && "httpProtocol" in cf ? cf.httpProtocol : undefined;
  const match = typeof protocol === "string" ? /^HTTP\/([1-3](?:\.[01])?)$/.exec(protocol) : null;
  return match?.[1] ?? null;
}

const noStream = () =>
  rpcProblem(
    problem("METHOD_NOT_ALLOWED", "POST each message, GET the session's server-to-client stream, DELETE the session."),
    RPC_ERRORS.invalidRequest,
    null,
    {
      allow: "GET, POST, DELETE",
    },
  );

const problems = ["UNAUTHENTICATED", "ORIGIN_REFUSED", "PRINCIPAL_MISMATCH", "NOT_FOUND", "INVALID_REQUEST"] as const;

const MCP_HEADERS: Readonly<Record<string, HeaderDoc>> = {
  "Mcp-Session-Id": {
    description: DOCS ? "The session `initialize` answered; every later message of it sends it." : "",
    schema: { type: "string" },
  },
  "MCP-Protocol-Version": {
    description: DOCS ? "The negotiated protocol version (2025-11-25 or 2025-06-18), after `initialize`." : "",
    schema: { type: "string" },
  },
};

/** Agent routes of the MCP endpoint. */
export const mcpRoutes: RouteModule = {
  // The MCP endpoint as an OAuth protected resource: challenge on 401, OAuth tokens → the grant's
  // credential; then DNS-rebinding protection. Every request to the path, whatever its method.
  use: [{ path: MCP_PATH, handlers: [mcpChallenge(), mcpBearer(), mcpOrigin()] }],
  routes: [
    {
      method: "post",
      path: "/v1/consumers/{consumer}/mcp",
      summary: DOCS
        ? "One MCP message (JSON-RPC 2.0, protocol 2025-11-25 or 2025-06-18). `initialize` answers the `Mcp-Session-Id` every later message sends; JSON-RPC errors of a valid request are 200."
        : "",
      operation: "mcp",
      auth: "credential",
      request: JsonRpcMessage,
      headers: MCP_HEADERS,
      problemSchema: McpProblem,
      response: {
        status: 200,
        schema: JsonRpcResponse,
        text: "text/event-stream",
        headers: {
          "Mcp-Session-Id": {
            description: DOCS ? "Set by `initialize`: the session every later message names." : "",
            schema: { type: "string" },
          },
        },
        description: DOCS
          ? "The JSON-RPC response (application/json, or one SSE event when only text/event-stream is accepted); a `tools/call` with `_meta.progressToken`, in a session that set a logging level, or whose client declared sampling or elicitation, is answered as an event stream when text/event-stream is accepted: the downstream's progress and log messages as they come, its sampling and elicitation requests when its server opted in (ids `toolgate-<uuid>`, answered by POSTing the response), then the response."
          : "",
      },
      alsoResponses: [
        {
          status: 202,
          description: DOCS
            ? "A notification or a response, accepted (a response to a relayed request is forwarded to the downstream first)."
            : "",
        },
      ],
      // `initialize` past the call rate or without a place for its session (docs/mcp.md, "Sessions").
      problems: [
        ...problems,
        "INVALID_JSON",
        "BODY_TOO_LARGE",
        "UNSUPPORTED_MEDIA_TYPE",
        "NOT_ACCEPTABLE",
        "RATE_LIMITED",
        "QUOTA_EXCEEDED",
      ],
      handlers: handlers(async (c) => {
        const framing = answerFraming(c.req.header("accept") ?? null);
        if (framing === null)
          return rpcProblem(
            problem("NOT_ACCEPTABLE", "Accept application/json (or text/event-stream): the answer is one of them."),
            RPC_ERRORS.invalidRequest,
          );
        const read = await readMcpMessage(c.req.raw);
        if (read instanceof Response) return read;
        const events = acceptsEventStream(c.req.header("accept") ?? null);
        const outcome = await c.var.object.mcp(c.var.consumer, credentialToken(c.var.token), {
          method: "POST",
          ...headersOf(c.req.raw),
          message: read.carried,
          events,
          trace: incomingTrace(c.req.raw),
          httpVersion: httpVersionOf(c.req.raw),
        });
        return outcome.ok ? replyResponse(outcome.value, framing) : objectRefusal(outcome.error);
      }),
    },
    {
      method: "delete",
      path: "/v1/consumers/{consumer}/mcp",
      summary: DOCS ? "Ends the MCP session named by `Mcp-Session-Id`; later messages of it are 404." : "",
      operation: "mcp",
      auth: "credential",
      headers: MCP_HEADERS,
      problemSchema: McpProblem,
      response: { status: 204, description: DOCS ? "The session is gone." : "" },
      problems,
      handlers: handlers(async (c) => {
        const outcome = await c.var.object.mcp(c.var.consumer, credentialToken(c.var.token), {
          method: "DELETE",
          ...headersOf(c.req.raw),
          message: null,
        });
        return outcome.ok ? replyResponse(outcome.value, "json") : objectRefusal(outcome.error);
      }),
    },
    {
      method: "get",
      path: "/v1/consumers/{consumer}/mcp",
      summary: DOCS
        ? "Opens a server-to-client SSE stream of the session named by `Mcp-Session-Id` (Streamable HTTP; several may be open): `notifications/resources/updated` of the resources the session subscribed to."
        : "",
      operation: "mcp",
      auth: "credential",
      headers: MCP_HEADERS,
      problemSchema: McpProblem,
      response: {
        status: 200,
        text: "text/event-stream",
        description: DOCS
          ? "An event stream (`event: message`, one JSON-RPC notification each); it ends after 5 minutes, or when the session ends."
          : "",
      },
      problems: [...problems, "NOT_ACCEPTABLE", "QUOTA_EXCEEDED"],
      handlers: handlers(async (c) => {
        if (!acceptsEventStream(c.req.header("accept") ?? null))
          return rpcProblem(
            problem("NOT_ACCEPTABLE", "Accept text/event-stream: the answer is a server-to-client event stream."),
            RPC_ERRORS.invalidRequest,
          );
        const outcome = await c.var.object.mcp(c.var.consumer, credentialToken(c.var.token), {
          method: "GET",
          ...headersOf(c.req.raw),
          message: null,
        });
        return outcome.ok ? replyResponse(outcome.value, "sse") : objectRefusal(outcome.error);
      }),
    },
    {
      method: "all",
      path: "/v1/consumers/{consumer}/mcp",
      summary: DOCS ? "Any other method: 405 with `Allow: GET, POST, DELETE`." : "",
      operation: "none",
      documented: false,
      problems: ["METHOD_NOT_ALLOWED"],
      handlers: handlers(noStream),
    },
  ],
};
