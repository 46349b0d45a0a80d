import { problemResponse } from "../../problem";
import type { CredentialPlane } from "../credentials/plane";
import { RUNTIME_SOCKET_TAG, type RuntimeTransport } from "./plane";

/** What a runtime WebSocket remembers across hibernation. */
interface SocketAttachment {
  credentialId: string;
}

/** Close code for a binary frame: every envelope is one text message. */
export const CLOSE_UNSUPPORTED_DATA = 1003;
/** Close code once the socket's credential is revoked. */
export const CLOSE_POLICY_VIOLATION = 1008;

/**
 * Accepts a runtime WebSocket with the hibernation API and sends it every unacknowledged event,
 * oldest first, before anything else.
 */
export function acceptRuntimeSocket(ctx: DurableObjectState, transport: RuntimeTransport, credentialId: string): Response {
  const pair = new WebSocketPair();
  const client = pair[0];
  const server = pair[1];
  ctx.acceptWebSocket(server, [RUNTIME_SOCKET_TAG]);
  server.serializeAttachment({ credentialId } satisfies SocketAttachment);
  for (const text of transport.pendingEvents()) server.send(text);
  return new Response(null, { status: 101, webSocket: client });
}

/** True for a socket accepted by {@link acceptRuntimeSocket}. */
export function isRuntimeSocket(ctx: DurableObjectState, ws: WebSocket): boolean {
  return ctx.getTags(ws).includes(RUNTIME_SOCKET_TAG);
}

function credentialIsLive(credentials: CredentialPlane, ws: WebSocket): boolean {
  const attachment = ws.deserializeAttachment() as SocketAttachment | null;
  return attachment !== null && credentials.isLive(attachment.credentialId);
}

/**
 * One text message is one envelope: the answer envelope (if any) goes back on the same socket; a
 * refusal goes back as an RFC 9457 problem object (it has no `metadata`, so it never reads as an
 * envelope). A revoked credential closes the socket.
 */
export async function onRuntimeMessage(credentials: CredentialPlane, transport: RuntimeTransport, ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
  if (!credentialIsLive(credentials, ws)) {
    ws.close(CLOSE_POLICY_VIOLATION, "credential revoked");
    return;
  }
  if (typeof message !== "string") {
    ws.close(CLOSE_UNSUPPORTED_DATA, "send each envelope as one text message");
    return;
  }
  const reply = await transport.envelope(message, ws);
  if (!reply.ok) ws.send(await problemResponse(reply.error).text());
  else if (reply.value.envelope !== null) ws.send(reply.value.envelope);
}

/** Completes the close handshake the peer started. */
export function onRuntimeClose(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
  } catch {
    // Already closed.
  }
}
