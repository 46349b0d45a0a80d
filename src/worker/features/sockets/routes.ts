import { keyedCredential } from "../../http/auth";
import type { Env } from "../../env";
import type { ConsumerObject } from "../../kernel/consumer-object";
import {
  SOCKET_CONSUMER_HEADER,
  SOCKET_PROVIDER_HEADER,
  SOCKET_ROUTE_HEADER,
  SOCKET_TOKEN_HEADER,
} from "./socket-route";
import { problem, problemResponse, UNAUTHENTICATED } from "../../http/problem";

/** What a socket route matched, for the object that accepts the socket. */
export interface SocketRoute {
  route: "runtime" | "capability";
  consumer: string;
  token: string;
  providerId?: string;
}

/**
 * Forwards a WebSocket upgrade to the consumer's object with what the route matched in
 * headers the route sets itself (any the client sent under those names are replaced). The
 * token's keyed tag is checked first, so a forged token never reaches the object.
 */
export function forwardSocket(
  request: Request,
  env: Env,
  stub: DurableObjectStub<ConsumerObject>,
  match: SocketRoute,
): Promise<Response> | Response {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket")
    return problemResponse(problem("UPGRADE_REQUIRED", "Connect with a WebSocket upgrade."));
  if (keyedCredential(match.token, match.consumer, env) === null) return problemResponse(UNAUTHENTICATED);
  const headers = new Headers(request.headers);
  headers.set(SOCKET_ROUTE_HEADER, match.route);
  headers.set(SOCKET_CONSUMER_HEADER, match.consumer);
  headers.set(SOCKET_TOKEN_HEADER, match.token);
  if (match.providerId === undefined) headers.delete(SOCKET_PROVIDER_HEADER);
  else headers.set(SOCKET_PROVIDER_HEADER, match.providerId);
  return stub.fetch(new Request(request, { headers }));
}
