import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { Limits } from "../../kernel/limits";

/**
 * What every WebSocket session of the consumer object shares, provider (capability) and runtime
 * sockets alike: the credential it was opened with (a hibernation tag, so it survives
 * hibernation), the sockets-per-credential quota, the per-message checks (live credential,
 * size, rate) and the revocation that ends every session of a credential at once.
 * docs/runtime-transport.md ("Sessions") documents each rule.
 */

/** Prefix of the hibernation tag naming a socket's credential: `cred:<credential_id>`. */
export const CREDENTIAL_TAG_PREFIX = "cred:";

/** Close code once the socket's credential is revoked, or for a socket over its message rate. */
export const CLOSE_POLICY_VIOLATION = 1008;
/** Close code for a message over `limits.socket_message_bytes`. */
export const CLOSE_MESSAGE_TOO_BIG = 1009;

/** `Retry-After` of a refused upgrade (sockets per credential): a socket must close first. */
export const SOCKET_QUOTA_RETRY_SECONDS = 5;

/** The hibernation tag of the sockets opened with a credential. */
export function credentialTag(credentialId: string): string {
  return `${CREDENTIAL_TAG_PREFIX}${credentialId}`;
}

/** The credential an accepted socket was opened with (`null` for a socket without the tag). */
export function socketCredential(ctx: DurableObjectState, ws: WebSocket): string | null {
  const tag = ctx.getTags(ws).find((t) => t.startsWith(CREDENTIAL_TAG_PREFIX));
  return tag === undefined ? null : tag.slice(CREDENTIAL_TAG_PREFIX.length);
}

/** Whether a socket may still be written to (not closing or closed). */
export function isOpen(ws: WebSocket): boolean {
  return ws.readyState === WebSocket.OPEN;
}

/** The open sockets opened with a credential (both kinds). */
export function credentialSockets(ctx: DurableObjectState, credentialId: string): WebSocket[] {
  return ctx.getWebSockets(credentialTag(credentialId)).filter(isOpen);
}

/**
 * Refuses an upgrade before it happens when the credential already holds
 * `limits.sockets_per_credential` open sockets (`429 QUOTA_EXCEEDED` with `Retry-After`).
 */
export function socketQuota(ctx: DurableObjectState, credentialId: string, limits: Limits): Outcome<null> {
  if (credentialSockets(ctx, credentialId).length < limits.sockets_per_credential) return ok(null);
  return fail(
    problem(
      "QUOTA_EXCEEDED",
      `This credential already holds ${limits.sockets_per_credential} open sockets; close one first.`,
      SOCKET_QUOTA_RETRY_SECONDS,
    ),
  );
}

/** What the object hands the socket code with each call: its limits and the credential check. */
export interface SessionPolicy {
  readonly limits: Limits;
  isLive(credentialId: string): boolean;
}

/** A {@link SessionPolicy} from the object's limits and its credentials service. */
export function sessionPolicy(limits: Limits, credentials: { isLive(credentialId: string): boolean }): SessionPolicy {
  return { limits, isLive: (id) => credentials.isLive(id) };
}

/** The UTF-8 size of a message in bytes. */
export function messageBytes(message: string | ArrayBuffer): number {
  if (typeof message !== "string") return message.byteLength;
  return new TextEncoder().encode(message).byteLength;
}

/** The arrival times (ms) of a socket's messages within the last second, oldest first. */
export type RateWindow = number[];

/** What one incoming message may do: be handled, or close its socket with a code. */
export type MessageVerdict =
  | { admit: true }
  | { admit: false; code: typeof CLOSE_POLICY_VIOLATION | typeof CLOSE_MESSAGE_TOO_BIG; reason: string };

/**
 * The per-message rules, in order: the socket's credential is live; the message is at most
 * `socket_message_bytes`; fewer than `socket_messages_per_second` messages arrived in the
 * second before it (a sliding window; `window` is updated in place).
 */
export function judgeMessage(
  window: RateWindow,
  bytes: number,
  live: boolean,
  limits: Limits,
  nowMs: number,
): MessageVerdict {
  if (!live) return { admit: false, code: CLOSE_POLICY_VIOLATION, reason: "credential revoked" };
  if (bytes > limits.socket_message_bytes)
    return { admit: false, code: CLOSE_MESSAGE_TOO_BIG, reason: `message over ${limits.socket_message_bytes} bytes` };
  while (window.length > 0 && (window[0] as number) <= nowMs - 1000) window.shift();
  if (window.length >= limits.socket_messages_per_second) {
    return {
      admit: false,
      code: CLOSE_POLICY_VIOLATION,
      reason: `over ${limits.socket_messages_per_second} messages per second`,
    };
  }
  window.push(nowMs);
  return { admit: true };
}

/**
 * Per-socket rate windows, in memory: after the object hibernates or restarts a socket starts
 * with an empty window (documented). Keyed by the socket object, so no two sockets share one.
 */
const windows = new WeakMap<WebSocket, RateWindow>();

/** Closes a socket, ignoring one that is already closed. */
export function closeQuietly(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.close(code, reason);
  } catch {
    // Already closed.
  }
}

/**
 * Admits one incoming message of an accepted socket, or closes the socket (1008 revoked or
 * too fast, 1009 too big) and answers `false`: the message is then not handled at all.
 */
export function admitMessage(
  ctx: DurableObjectState,
  ws: WebSocket,
  message: string | ArrayBuffer,
  policy: SessionPolicy,
  nowMs: number,
): boolean {
  const credentialId = socketCredential(ctx, ws);
  const live = credentialId !== null && policy.isLive(credentialId);
  let window = windows.get(ws);
  if (window === undefined) {
    window = [];
    windows.set(ws, window);
  }
  const verdict = judgeMessage(window, messageBytes(message), live, policy.limits, nowMs);
  if (verdict.admit) return true;
  windows.delete(ws);
  closeQuietly(ws, verdict.code, verdict.reason);
  return false;
}

/**
 * Ends every session of a revoked credential at once: `release` runs for each socket first
 * (a provider socket detaches its binding, so no effect is pushed to it any more), then the
 * socket is closed with 1008. Answers how many sockets were closed.
 */
export function closeCredentialSockets(
  ctx: DurableObjectState,
  credentialId: string,
  release: (ws: WebSocket) => void,
): number {
  const sockets = ctx.getWebSockets(credentialTag(credentialId));
  for (const ws of sockets) {
    release(ws);
    windows.delete(ws);
    closeQuietly(ws, CLOSE_POLICY_VIOLATION, "credential revoked");
  }
  return sockets.length;
}
