import { readJson } from "../../../core/json";
import { toWireOutcome, writeWireJson } from "../../../core/capability";
import { describeIssues } from "../../http/body";
import { bearerToken } from "../credentials/format";
import { ProviderSocketMessage } from "../../../contracts/capability";
import { problem, problemResponse } from "../../http/problem";
import { closeQuietly, credentialTag, isOpen, socketCredential } from "../sockets/sessions";
import { attachmentOf, type SocketAttachment } from "./attachment";
import type { CapabilityService } from "./service";
import { engineProblem } from "./engine-problem";

/** The WebSocket subprotocol a provider speaks; the gate selects it in the 101 answer. */
export const PROVIDER_PROTOCOL = "toolgate-provider-v1";

/** Prefix of the subprotocol that carries a browser's credential (`bearer.<credential>`). */
export const BEARER_PROTOCOL_PREFIX = "bearer.";

/** Largest provider frame the gate reads. */
export const MAX_FRAME_BYTES = 1 << 20;

/** The hibernation tag of a provider's sockets. */
export function providerTag(providerId: string): string {
  return `capability-provider:${providerId}`;
}

/**
 * The provider's sockets effects may be pushed to: open, and opened with a credential that is
 * still live (a revoked or expired provider credential receives nothing more).
 */
export function providerSockets(
  ctx: DurableObjectState,
  providerId: string,
  isLive: (credentialId: string) => boolean,
): WebSocket[] {
  return ctx.getWebSockets(providerTag(providerId)).filter((ws) => {
    const credentialId = socketCredential(ctx, ws);
    return isOpen(ws) && credentialId !== null && isLive(credentialId);
  });
}

/** Whether an accepted socket belongs to the capability service. */
export function isCapabilitySocket(ctx: DurableObjectState, ws: WebSocket): boolean {
  return ctx.getTags(ws).some((tag) => tag.startsWith("capability-provider:"));
}

/**
 * The credential of a connect request: `Authorization: Bearer …`, or (browsers cannot set
 * headers on a WebSocket) a `bearer.<credential>` entry of `Sec-WebSocket-Protocol`.
 */
export function socketToken(request: Request): string | null {
  const header = bearerToken(request.headers.get("authorization"));
  if (header !== null) return header;
  const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
  const bearer = offered.find((p) => p.startsWith(BEARER_PROTOCOL_PREFIX));
  return bearer === undefined ? null : bearer.slice(BEARER_PROTOCOL_PREFIX.length);
}

/** A provider socket's attachment: its binding, and the credential it was opened with. */
interface ProviderAttachment extends SocketAttachment {
  credentialId: string;
}

/**
 * Attaches the provider (next provider-lane sequence = binding id), accepts a hibernatable
 * socket tagged with the provider and with its credential (`cred:<credential_id>`, so a
 * revocation finds it), sends `attached`, then any queued effects.
 */
export function connectProvider(
  ctx: DurableObjectState,
  host: CapabilityService,
  request: Request,
  providerId: string,
  credentialId: string,
): Response {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    return problemResponse(problem("UPGRADE_REQUIRED", "Connect with a WebSocket upgrade."));
  }
  let binding = 0n;
  const outcome = host.timed((state) =>
    host.runtime(state, (sequence) => {
      binding = sequence;
      return { attach: { binding_id: sequence, provider_id: providerId } };
    }),
  );
  if (!outcome.ok) return problemResponse(engineProblem(outcome.error));
  const pair = new WebSocketPair();
  const client = pair[0];
  const server = pair[1];
  ctx.acceptWebSocket(server, [providerTag(providerId), credentialTag(credentialId)]);
  const attachment: ProviderAttachment = { providerId, bindingId: binding.toString(), credentialId };
  server.serializeAttachment(attachment);
  server.send(writeWireJson({ type: "attached", provider_id: providerId, binding_id: binding }));
  host.flush(providerId);
  const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
  const headers: Record<string, string> = offered.includes(PROVIDER_PROTOCOL)
    ? { "sec-websocket-protocol": PROVIDER_PROTOCOL }
    : {};
  return new Response(null, { status: 101, webSocket: client, headers });
}

function sendError(ws: WebSocket, code: string, detail: string): void {
  ws.send(JSON.stringify({ type: "error", code, detail }));
}

/** One provider frame: an observation (answered with its outcome) or a ping. */
export function onCapabilityMessage(host: CapabilityService, ws: WebSocket, message: string | ArrayBuffer): void {
  const attachment = attachmentOf(ws);
  if (attachment === null) return;
  const bytes = typeof message === "string" ? message : new Uint8Array(message);
  const read = readJson(bytes, { integers: "bigint", domain: false, maxBytes: MAX_FRAME_BYTES });
  if (!read.ok) return sendError(ws, "INVALID_JSON", `${read.error.code}: ${read.error.message}`);
  const parsed = ProviderSocketMessage.safeParse(read.value);
  if (!parsed.success) return sendError(ws, "INVALID_REQUEST", describeIssues(parsed.error));
  const frame = parsed.data;
  if (frame.type === "ping") return ws.send('{"type":"pong"}');
  const binding = BigInt(attachment.bindingId);
  const outcome = host.timed((state) =>
    host.runtime(state, () => ({ observe: { binding_id: binding, observation: frame.observation } })),
  );
  ws.send(writeWireJson({ type: "observation-outcome", id: frame.id ?? null, result: toWireOutcome(outcome) }));
}

/**
 * Detaches the socket's binding if it is still the provider's current one: requests in flight
 * end as provider-detached and no effect is pushed to the socket any more (its credential was
 * revoked, or it closed).
 */
export function detachProvider(host: CapabilityService, ws: WebSocket): void {
  const attachment = attachmentOf(ws);
  if (attachment === null) return;
  const binding = BigInt(attachment.bindingId);
  host.timed((state) => {
    if (host.bindingOf(state, attachment.providerId) !== binding) return null;
    return host.runtime(state, () => ({ detach: { binding_id: binding, provider_id: attachment.providerId } }));
  });
}

/** The socket closed: its binding (if still current) detaches; requests in flight end as provider-detached. */
export function onCapabilityClose(host: CapabilityService, ws: WebSocket): void {
  if (attachmentOf(ws) === null) return;
  detachProvider(host, ws);
  closeQuietly(ws, 1000, "detached");
}
