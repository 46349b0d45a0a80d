import { isOpen, type SessionPolicy } from "../sockets/sessions";
import type { RuntimeStore } from "./store";

/** `Retry-After` of an event refused because the outbox is full (acks free it). */
export const OUTBOX_RETRY_SECONDS = 1;

/**
 * What a runtime WebSocket remembers across hibernation: the credential it was opened with, and
 * the outbox `seq` of the last event sent to it (every waiting event up to `through` was sent).
 */
export interface RuntimeAttachment {
  credentialId: string;
  through: number;
}

/** The attachment of a runtime socket (`null` for one without). Sockets older than `through` start at 0. */
export function runtimeAttachment(ws: WebSocket): RuntimeAttachment | null {
  const value = ws.deserializeAttachment() as { credentialId?: unknown; through?: unknown } | null;
  if (value === null || typeof value.credentialId !== "string") return null;
  return { credentialId: value.credentialId, through: typeof value.through === "number" ? value.through : 0 };
}

/**
 * Delivery of the outbox to runtime WebSockets in bounded batches: a socket never holds more
 * than `limits.outbox_batch_events` events it was sent and that are not acknowledged yet. A
 * connect sends the oldest batch; once every event sent to a socket is acknowledged (over any
 * socket or HTTP), the next batch follows; a new event goes out at once to each socket that
 * has been sent everything before it and has room. Closed sockets and sockets whose credential
 * is no longer live are skipped.
 */
export class OutboxDelivery {
  constructor(
    private readonly store: RuntimeStore,
    private readonly sockets: () => WebSocket[],
  ) {}

  /** A new socket: its first batch. */
  open(ws: WebSocket, policy: SessionPolicy): void {
    const attachment = runtimeAttachment(ws);
    if (attachment !== null) this.#nextBatch(ws, attachment, policy);
  }

  /** After an ack: each socket whose events are all acknowledged gets its next batch. */
  refill(policy: SessionPolicy): void {
    for (const [ws, attachment] of this.#eligible(policy)) this.#nextBatch(ws, attachment, policy);
  }

  /** A newly stored event (`seq`): sent to every eligible socket but its sender (which has it). */
  deliver(seq: number, text: string, sender: WebSocket | null, policy: SessionPolicy): void {
    const batch = policy.limits.outbox_batch_events;
    for (const [ws, attachment] of this.#eligible(policy)) {
      // A socket still owed older events gets this one in a later batch, in order.
      if (this.store.waitingBetween(attachment.through, seq)) continue;
      if (ws !== sender) {
        if (this.store.waitingThrough(attachment.through, batch) >= batch) continue;
        if (!send(ws, text)) continue;
      }
      save(ws, { ...attachment, through: seq });
    }
  }

  /** Open sockets with a live credential, with their attachments. */
  #eligible(policy: SessionPolicy): Array<[WebSocket, RuntimeAttachment]> {
    const live = new Map<string, boolean>();
    const out: Array<[WebSocket, RuntimeAttachment]> = [];
    for (const ws of this.sockets()) {
      const attachment = runtimeAttachment(ws);
      if (!isOpen(ws) || attachment === null) continue;
      let ok = live.get(attachment.credentialId);
      if (ok === undefined) {
        ok = policy.isLive(attachment.credentialId);
        live.set(attachment.credentialId, ok);
      }
      if (ok) out.push([ws, attachment]);
    }
    return out;
  }

  #nextBatch(ws: WebSocket, attachment: RuntimeAttachment, policy: SessionPolicy): void {
    if (this.store.waitingThrough(attachment.through, 1) > 0) return;
    let through = attachment.through;
    for (const event of this.store.eventsAfter(through, policy.limits.outbox_batch_events)) {
      if (!send(ws, event.text)) break;
      through = event.seq;
    }
    if (through !== attachment.through) save(ws, { ...attachment, through });
  }
}

function send(ws: WebSocket, text: string): boolean {
  try {
    ws.send(text);
    return true;
  } catch {
    // A socket closing right now gets the event on its next connect: it is still unacknowledged.
    return false;
  }
}

function save(ws: WebSocket, attachment: RuntimeAttachment): void {
  ws.serializeAttachment(attachment);
}
