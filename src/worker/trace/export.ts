/**
 * The OTLP/HTTP JSON exporter: ended spans wait in a bounded queue; a trace's root span ending
 * sends what is queued (at most one batch per request, a few requests at once), each request
 * with a deadline. Nothing awaits an export on the answer's path, and an export that fails is
 * counted and dropped, never retried: a collector that is down costs the gate nothing but the
 * spans.
 * @module
 */
import { traceRequest } from "./otlp";
import type { FinishedSpan, SpanSink } from "./span";

/** Where and how spans are sent. */
export interface ExportOptions {
  /** The full traces URL, for example `http://127.0.0.1:4318/v1/traces`. */
  readonly endpoint: string;
  /** Extra request headers (a collector's API key); never logged, never an attribute. */
  readonly headers: Readonly<Record<string, string>>;
  /** The platform's `fetch` by default. */
  readonly fetch?: (request: Request) => Promise<Response>;
  /** Keeps the isolate alive until an export settles (the object's `ctx.waitUntil`); without it the request runs detached. */
  readonly waitUntil?: (promise: Promise<unknown>) => void;
  /** Deadline of one export request (default 5 s). */
  readonly timeoutMs?: number;
  /** Spans in one request at most (default 256). */
  readonly maxBatchSpans?: number;
  /** Spans waiting at most; more are dropped and counted (default 2,048). */
  readonly maxQueuedSpans?: number;
  /** Requests under way at once at most (default 2); the rest waits in the queue. */
  readonly maxConcurrentExports?: number;
}

/** What the exporter has done so far (counters since the object started). */
export interface ExportStats {
  readonly exportedSpans: number;
  /** Spans dropped because the queue was full. */
  readonly droppedSpans: number;
  /** Requests that failed (no answer in time, a network error, or a non-2xx status), and their spans. */
  readonly failedExports: number;
  readonly failedSpans: number;
}

/** Sends ended spans to an OTLP/HTTP collector as JSON. */
export class OtlpExporter {
  readonly #options: ExportOptions;
  readonly #fetch: (request: Request) => Promise<Response>;
  readonly #queue: FinishedSpan[] = [];
  readonly #pending = new Set<Promise<void>>();
  #stats = { exportedSpans: 0, droppedSpans: 0, failedExports: 0, failedSpans: 0 };

  constructor(options: ExportOptions) {
    this.#options = options;
    this.#fetch = options.fetch ?? ((request) => fetch(request));
  }

  /** The tracer's sink: queues each ended span and sends the queue when a root span ends. */
  readonly sink: SpanSink = (span, root) => {
    this.add(span);
    if (root) this.flush();
  };

  /** Queues one ended span (dropped and counted when the queue is full). */
  add(span: FinishedSpan): void {
    if (this.#queue.length >= (this.#options.maxQueuedSpans ?? 2_048)) this.#stats.droppedSpans += 1;
    else this.#queue.push(span);
  }

  /** Starts sending what is queued, within the limit of requests under way; never waits for them. */
  flush(): void {
    const maxBatch = this.#options.maxBatchSpans ?? 256;
    while (this.#pending.size < (this.#options.maxConcurrentExports ?? 2) && this.#queue.length > 0)
      this.#send(this.#queue.splice(0, maxBatch));
  }

  /** The counters so far. */
  stats(): ExportStats {
    return { ...this.#stats };
  }

  /** Settles once no request is under way and nothing is queued (tests; a shutdown). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }

  #send(batch: FinishedSpan[]): void {
    const sent: Promise<void> = this.#post(batch)
      .catch(() => this.#failed(batch.length))
      .finally(() => {
        this.#pending.delete(sent);
        this.flush();
      });
    this.#pending.add(sent);
    this.#options.waitUntil?.(sent);
  }

  async #post(batch: FinishedSpan[]): Promise<void> {
    const request = new Request(this.#options.endpoint, {
      method: "POST",
      headers: { ...this.#options.headers, "content-type": "application/json" },
      body: JSON.stringify(traceRequest(batch)),
      // A redirect could carry the collector's key elsewhere: never followed.
      redirect: "manual",
      signal: AbortSignal.timeout(this.#options.timeoutMs ?? 5_000),
    });
    const response = await this.#fetch(request);
    await response.body?.cancel();
    if (response.status >= 200 && response.status < 300) this.#stats.exportedSpans += batch.length;
    else this.#failed(batch.length);
  }

  #failed(spans: number): void {
    this.#stats.failedExports += 1;
    this.#stats.failedSpans += spans;
  }
}
