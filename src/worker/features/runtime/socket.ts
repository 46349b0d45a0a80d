import { problemResponse } from "../../http/problem";
import { CLOSE_POLICY_VIOLATION, closeQuietly, credentialTag, isOpen, type SessionPolicy } from "../sockets/sessions";
import { runtimeAttachment, type RuntimeAttachment } from "./outbox";
import { RUNTIME_SOCKET_TAG, type RuntimeTransport } from "./service";

/** Close code for a binary frame: every envelope is one text message. */
export const CLOSE_UNSUPPORTED_DATA = 1003;

/**
 * Accepts a runtime WebSocket with the hibernation API, tagged with its credential
 * (`cred:<credential_id>`, so a revocation finds it), and sends it the oldest batch of
 * unacknowledged events (at most `limits.outbox_batch_events`) before anything else.
 */
export function acceptRuntimeSocket(
  ctx: DurableObjectState,
  transport: RuntimeTransport,
  credentialId: string,
  policy: SessionPolicy,
): Response {
  const pair = new WebSocketPair();
  const client = pair[0];
  const server = pair[1];
  ctx.acceptWebSocket(server, [RUNTIME_SOCKET_TAG, credentialTag(credentialId)]);
  server.serializeAttachment({ credentialId, through: 0 } satisfies RuntimeAttachment);
  transport.openSession(server, policy);
  return new Response(null, { status: 101, webSocket: client });
}

/** True for a socket accepted by {@link acceptRuntimeSocket}. */
export function isRuntimeSocket(ctx: DurableObjectState, ws: WebSocket): boolean {
  return ctx.getTags(ws).includes(RUNTIME_SOCKET_TAG);
}

/**
 * One text message is one envelope: the answer envelope (if any) goes back on the same socket; a
 * refusal goes back as an RFC 9457 problem object (it has no `metadata`, so it never reads as an
 * envelope). The object admitted the message first (`admitMessage`: live credential, size, rate).
 */
export async function onRuntimeMessage(
  transport: RuntimeTransport,
  ws: WebSocket,
  message: string | ArrayBuffer,
  policy: SessionPolicy,
): Promise<void> {
  const attachment = runtimeAttachment(ws);
  if (attachment === null) return closeQuietly(ws, CLOSE_POLICY_VIOLATION, "socket without a credential");
  if (typeof message !== "string")
    return closeQuietly(ws, CLOSE_UNSUPPORTED_DATA, "send each envelope as one text message");
  const reply = await transport.envelope(message, { credentialId: attachment.credentialId, socket: ws }, policy);
  const text = !reply.ok ? await problemResponse(reply.error).text() : reply.value.envelope;
  // A socket closed meanwhile (its credential revoked during a facade commit) gets nothing.
  if (text !== null && isOpen(ws)) ws.send(text);
}

/** Completes the close handshake the peer started. */
export function onRuntimeClose(ws: WebSocket, code: number, reason: string): void {
  closeQuietly(ws, code === 1005 || code === 1006 ? 1000 : code, reason);
}
