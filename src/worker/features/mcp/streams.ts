/**
 * The standalone server-to-client streams of the MCP endpoint (`GET …/mcp`, Streamable HTTP) and
 * the resource subscriptions whose updates go there (docs/mcp.md, "The GET stream"). Both live in
 * the consumer object's memory only, bounded per session and per object: a restart forgets them
 * (a client opens its stream again, as Streamable HTTP clients do, and subscribes again).
 * @module
 */
import { canonicalJson, type JsonObject } from "../../../core/json";
import { sseMessage } from "../../targets/mcp/sse";
import { RESOURCE_UPDATED } from "../../targets/mcp/federated";

/** Open streams of one session; one more ends its oldest. */
export const MAX_STREAMS_PER_SESSION = 4;
/** Open streams of the object; one more ends the oldest of the session that opens it, or is refused. */
export const MAX_STREAMS = 256;
/** A stream ends after this long (the client opens another). */
export const STREAM_LIFETIME_MS = 300_000;
/** Resource URIs one session subscribes to. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 64;
/** Subscriptions of the object, every session together. */
export const MAX_SUBSCRIPTIONS = 4_096;

const encoder = new TextEncoder();

interface Stream {
  readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly timer: ReturnType<typeof setTimeout>;
}

/** The open streams and subscriptions of one consumer object. */
export class ServerStreams {
  readonly #streams = new Map<string, Stream[]>();
  readonly #subscriptions = new Map<string, Set<string>>();
  #streamCount = 0;
  #subscriptionCount = 0;

  /** Open streams now. */
  get streams(): number {
    return this.#streamCount;
  }

  /** A new stream of a session, or `null` when the object holds {@link MAX_STREAMS} and the session none to give. */
  open(sessionId: string): ReadableStream<Uint8Array> | null {
    const own = this.#streams.get(sessionId) ?? [];
    if (own.length >= MAX_STREAMS_PER_SESSION || (this.#streamCount >= MAX_STREAMS && own.length > 0)) {
      const oldest = own[0];
      if (oldest !== undefined) this.#close(sessionId, oldest);
    } else if (this.#streamCount >= MAX_STREAMS) return null;
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const stream: Stream = { writer, timer: setTimeout(() => this.#close(sessionId, stream), STREAM_LIFETIME_MS) };
    this.#streams.set(sessionId, [...(this.#streams.get(sessionId) ?? []), stream]);
    this.#streamCount += 1;
    // A comment first: the answer's head and a first chunk reach the client at once.
    this.#write(sessionId, stream, ": toolgate stream\n\n");
    return readable;
  }

  /** Records a subscription; `false` past a bound (a URI already subscribed is `true`). */
  subscribe(sessionId: string, uri: string): boolean {
    const own = this.#subscriptions.get(sessionId) ?? new Set<string>();
    if (own.has(uri)) return true;
    if (own.size >= MAX_SUBSCRIPTIONS_PER_SESSION || this.#subscriptionCount >= MAX_SUBSCRIPTIONS) return false;
    own.add(uri);
    this.#subscriptions.set(sessionId, own);
    this.#subscriptionCount += 1;
    return true;
  }

  unsubscribe(sessionId: string, uri: string): void {
    const own = this.#subscriptions.get(sessionId);
    if (own?.delete(uri) === true) this.#subscriptionCount -= 1;
    if (own?.size === 0) this.#subscriptions.delete(sessionId);
  }

  /** Whether a session subscribed to a URI. */
  subscribed(sessionId: string, uri: string): boolean {
    return this.#subscriptions.get(sessionId)?.has(uri) === true;
  }

  /**
   * A resource changed (its gate URI): `notifications/resources/updated` on the newest stream of
   * each session that subscribed to it and is still `live` (one stream each, as MCP asks).
   */
  updated(uri: string, live: (sessionId: string) => boolean): void {
    const message = sseMessage(canonicalJson({ jsonrpc: "2.0", method: RESOURCE_UPDATED, params: { uri } }));
    for (const [sessionId, uris] of this.#subscriptions) {
      if (!uris.has(uri)) continue;
      if (!live(sessionId)) {
        this.end(sessionId);
        continue;
      }
      const newest = this.#streams.get(sessionId)?.at(-1);
      if (newest !== undefined) this.#write(sessionId, newest, message);
    }
  }

  /** A notification for one session on its newest stream (`false`: it holds none open). */
  notify(sessionId: string, message: JsonObject): boolean {
    const newest = this.#streams.get(sessionId)?.at(-1);
    if (newest === undefined) return false;
    this.#write(sessionId, newest, sseMessage(canonicalJson(message)));
    return true;
  }

  /** A session ended: its streams close and its subscriptions go. */
  end(sessionId: string): void {
    for (const stream of this.#streams.get(sessionId) ?? []) this.#close(sessionId, stream);
    this.#subscriptionCount -= this.#subscriptions.get(sessionId)?.size ?? 0;
    this.#subscriptions.delete(sessionId);
  }

  #write(sessionId: string, stream: Stream, text: string): void {
    // A client that went away fails the write: its stream is closed and forgotten.
    stream.writer.write(encoder.encode(text)).catch(() => this.#close(sessionId, stream));
  }

  #close(sessionId: string, stream: Stream): void {
    const own = this.#streams.get(sessionId) ?? [];
    if (!own.includes(stream)) return;
    clearTimeout(stream.timer);
    const rest = own.filter((s) => s !== stream);
    if (rest.length === 0) this.#streams.delete(sessionId);
    else this.#streams.set(sessionId, rest);
    this.#streamCount -= 1;
    stream.writer.close().catch(() => undefined);
  }
}
