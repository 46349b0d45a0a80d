/**
 * The `text/event-stream` reader of MCP answers (WHATWG HTML, "Server-sent events"): decoded
 * text in, whole events out. Only `data` and `event` matter here; `id` and `retry` are read and
 * dropped (the gate never resumes a stream), comments (`: keep-alive`) are skipped.
 * @module
 */

/** One `message` event carrying `data` (JSON text without raw line breaks: one `data:` line). */
export function sseMessage(data: string): string {
  return `event: message\ndata: ${data}\n\n`;
}

/** One dispatched event: its type (`message` unless named) and its data lines joined by `\n`. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/** An incremental parser: feed it text as it arrives, take the events each chunk completed. */
export class SseParser {
  #buffer = "";
  #data: string[] = [];
  #event = "";
  #started = false;

  /** Parses `text` (the next decoded chunk); `end` flushes a last line without its line break. */
  push(text: string, end = false): SseEvent[] {
    // The kept buffer holds one unfinished line (at most a trailing CR): scan only what is new.
    const from = Math.max(0, this.#buffer.length - 1);
    let buffer = this.#buffer + text;
    if (!this.#started && buffer.length > 0) {
      this.#started = true;
      if (buffer.startsWith("\uFEFF")) buffer = buffer.slice(1);
    }
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = from; i < buffer.length; i++) {
      const c = buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      // A CR at the end of a chunk may be half of a CRLF: wait for the next chunk.
      if (c === 13 && i === buffer.length - 1 && !end) break;
      this.#line(buffer.slice(start, i), events);
      if (c === 13 && buffer.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
    this.#buffer = buffer.slice(start);
    if (end) {
      if (this.#buffer !== "") this.#line(this.#buffer, events);
      this.#buffer = "";
    }
    return events;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === "") {
      if (this.#data.length > 0)
        events.push({ event: this.#event === "" ? "message" : this.#event, data: this.#data.join("\n") });
      this.#data = [];
      this.#event = "";
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
  }
}

/** Why reading an answer stopped early (too large, too late): the session turns it into a lost answer. */
export class AnswerStop extends Error {}

/** Reads a whole answer body, at most `maxBytes`, giving up when `aborted` rejects. */
export async function readAnswer(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  aborted: Promise<never>,
): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw new AnswerStop(`an answer larger than ${maxBytes} bytes`);
      chunks.push(value);
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * Reads an event stream (UTF-8, at most `maxBytes` in all) and hands each `message` event's data
 * to `onData` until it answers something other than `null`; `null` if the stream ended first.
 */
export async function readEvents<T>(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  aborted: Promise<never>,
  onData: (data: string) => Promise<T | null>,
): Promise<T | null> {
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const parser = new SseParser();
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (!done) {
        total += value.byteLength;
        if (total > maxBytes) throw new AnswerStop(`an answer larger than ${maxBytes} bytes`);
      }
      for (const event of parser.push(done ? decoder.decode() : decoder.decode(value, { stream: true }), done)) {
        if (event.event !== "message" || event.data === "") continue;
        const answer = await onData(event.data);
        if (answer !== null) return answer;
      }
      if (done) return null;
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}
