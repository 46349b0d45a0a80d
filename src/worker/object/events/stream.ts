/**
 * Server-sent events of the consumer's bus: the agent's approval stream and the console's live
 * list. A stream writes what it was given first (the state at connect, so a client that
 * reconnects misses nothing that still matters), then each accepted event as it commits, a
 * keep-alive comment at each heartbeat, and closes after `maxSeconds` (clients reconnect;
 * `retry:` tells them when). The object stops listening as soon as the reader goes away.
 * @module
 */
import type { GateEvent } from "../../../contracts/events";
import type { EventBus } from "./bus";

/** Seconds a stream stays open at most before the client reconnects. */
export const STREAM_MAX_SECONDS = 300;

/** Seconds between keep-alive comments (below common proxies' idle timeouts). */
export const STREAM_HEARTBEAT_SECONDS = 15;

/** Milliseconds a client waits before reconnecting (SSE `retry:`). */
const RETRY_MS = 2_000;

/** Options of {@link eventStream}. */
export interface EventStreamOptions {
  /** The SSE text of an event this stream carries ({@link sseEvent}), or `null` to skip it. */
  accept(event: GateEvent): string | null;
  /** SSE texts written first. */
  readonly first?: readonly string[];
  readonly maxSeconds?: number;
  readonly heartbeatSeconds?: number;
}

/** One SSE event: its name, its id and one line of JSON data (canonical JSON has no raw line break). */
export function sseEvent(name: string, id: string, data: string): string {
  if (/[\r\n]/.test(name + id + data)) throw new Error("an SSE field holds a line break");
  return `event: ${name}\nid: ${id}\ndata: ${data}\n\n`;
}

const encoder = new TextEncoder();

/** An SSE body over the bus (see the module comment). */
export function eventStream(bus: EventBus, options: EventStreamOptions): ReadableStream<Uint8Array> {
  let stop = (): void => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const write = (text: string): void => {
        if (open) controller.enqueue(encoder.encode(text));
      };
      const unlisten = bus.listen((event) => {
        const text = options.accept(event);
        if (text !== null) write(text);
      });
      const heartbeat = setInterval(() => write(": keep-alive\n\n"), (options.heartbeatSeconds ?? STREAM_HEARTBEAT_SECONDS) * 1000);
      const end = setTimeout(() => close(), (options.maxSeconds ?? STREAM_MAX_SECONDS) * 1000);
      stop = () => {
        open = false;
        unlisten();
        clearInterval(heartbeat);
        clearTimeout(end);
      };
      const close = (): void => {
        if (!open) return;
        stop();
        controller.close();
      };
      write(`retry: ${RETRY_MS}\n\n`);
      for (const text of options.first ?? []) write(text);
    },
    cancel() {
      stop();
    },
  });
}
