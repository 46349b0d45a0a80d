/**
 * Server-sent events of the consumer's bus: the agent's approval stream and the console's live
 * list. A stream writes what it was given first (the state at connect, so a client that
 * reconnects misses nothing that still matters), then each accepted event as it commits, a
 * keep-alive comment at each heartbeat, and closes after `maxSeconds` (clients reconnect;
 * `retry:` tells them when). It acts for its owner's credential: it closes as soon as that
 * credential no longer holds (the bus ends it; each heartbeat checks too), and never writes an
 * event after. The object stops listening as soon as the reader goes away.
 * @module
 */
import type { GateEvent } from "../../../contracts/events";
import { ok, type Outcome } from "../../result";
import type { EventBus, ListenerOwner } from "./bus";

/** Seconds a stream stays open at most before the client reconnects. */
export const STREAM_MAX_SECONDS = 300;

/** Seconds between keep-alive comments (below common proxies' idle timeouts). */
export const STREAM_HEARTBEAT_SECONDS = 15;

/** Milliseconds a client waits before reconnecting (SSE `retry:`). */
const RETRY_MS = 2_000;

/** Options of {@link eventStream}. */
export interface EventStreamOptions {
  /** Whose credential the stream acts for (the bus's admission and the check before each event). */
  readonly owner: ListenerOwner;
  /** The SSE text of an event this stream carries ({@link sseEvent}), or `null` to skip it. */
  accept(event: GateEvent): string | null;
  /** SSE texts written first. */
  readonly first?: readonly string[];
  /** Seconds until it closes (at most {@link STREAM_MAX_SECONDS}; the caller bounds it by its credential's expiry). */
  readonly maxSeconds?: number;
  readonly heartbeatSeconds?: number;
}

/** One SSE event: its name, its id and one line of JSON data (canonical JSON has no raw line break). */
export function sseEvent(name: string, id: string, data: string): string {
  if (/[\r\n]/.test(name + id + data)) throw new Error("an SSE field holds a line break");
  return `event: ${name}\nid: ${id}\ndata: ${data}\n\n`;
}

const encoder = new TextEncoder();

/** An SSE body over the bus (see the module comment); refused as the bus refuses a listener (`QUOTA_EXCEEDED`). */
export function eventStream(bus: EventBus, options: EventStreamOptions): Outcome<ReadableStream<Uint8Array>> {
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  let open = true;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let timeout: ReturnType<typeof setTimeout> | undefined;
  const write = (text: string): void => {
    if (open) controller?.enqueue(encoder.encode(text));
  };
  const { owner } = options;
  const listening = bus.listen({
    credentialId: owner.credentialId,
    approver: owner.approver,
    subjectId: owner.subjectId ?? null,
    holds: () => owner.holds(),
    hear: (event) => {
      const text = options.accept(event);
      if (text !== null) write(text);
    },
    end: () => close(),
  });
  if (!listening.ok) return listening;
  const unlisten = listening.value;
  function stop(): void {
    open = false;
    unlisten();
    clearInterval(heartbeat);
    clearTimeout(timeout);
  }
  function close(): void {
    if (!open) return;
    stop();
    controller?.close();
  }
  heartbeat = setInterval(
    () => (owner.holds() ? write(": keep-alive\n\n") : close()),
    (options.heartbeatSeconds ?? STREAM_HEARTBEAT_SECONDS) * 1000,
  );
  timeout = setTimeout(close, Math.min(options.maxSeconds ?? STREAM_MAX_SECONDS, STREAM_MAX_SECONDS) * 1000);
  return ok(
    new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        write(`retry: ${RETRY_MS}\n\n`);
        for (const text of options.first ?? []) write(text);
      },
      cancel() {
        stop();
      },
    }),
  );
}
