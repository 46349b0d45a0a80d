/**
 * A minimal tracer for the gate's own spans (docs/traces.md): W3C-sized ids from the platform's
 * random source, Unix-nanosecond times as decimal strings (OTLP's JSON form), typed attributes,
 * a status, a parent. A root may continue the caller's trace (./context.ts); otherwise no context
 * propagation, and no sampling: a span's children are made from it. When tracing is off,
 * {@link NOOP_TRACER} hands out one shared span whose methods do nothing, so an untraced call
 * allocates nothing for traces.
 * @module
 */
import { bytesToHex } from "@noble/hashes/utils.js";
import type { TraceParent } from "./context";

/** OTLP's `Span.SpanKind` values. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

/** The kind of a span: what side of an operation it is. */
export type SpanKind = keyof typeof SPAN_KIND;

/** An attribute value: a string, a boolean, an integer (`intValue`) or another number (`doubleValue`). */
export type AttributeValue = string | number | boolean;

/** OTLP's `Status.StatusCode`: unset (the default, also for success), ok, error. */
export const STATUS_CODE = { unset: 0, ok: 1, error: 2 } as const;

/** A span once ended: what an exporter encodes. */
export interface FinishedSpan {
  /** 32 lowercase hex digits (16 random bytes). */
  readonly traceId: string;
  /** 16 lowercase hex digits (8 random bytes). */
  readonly spanId: string;
  /** The parent's span id: the caller's for a root that continues its trace; `null` for a new trace's root. */
  readonly parentSpanId: string | null;
  /** The caller's `tracestate`, as it came, on every span of a trace it continued; otherwise null. */
  readonly traceState: string | null;
  readonly name: string;
  readonly kind: SpanKind;
  /** Unix nanoseconds, decimal. */
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  /** In the order first set; a key set again keeps its place and takes the new value. */
  readonly attributes: ReadonlyMap<string, AttributeValue>;
  readonly status: { readonly code: keyof typeof STATUS_CODE; readonly message?: string };
}

/** A span being recorded (or the shared no-op span, `recording` false). */
export interface Span {
  readonly recording: boolean;
  /** Sets an attribute; `undefined` and `null` leave it unset. */
  set(key: string, value: AttributeValue | null | undefined): Span;
  /** Renames the span (a name known only once the call is bound). */
  rename(name: string): Span;
  /** Marks the span failed: status error and `error.type` (a low-cardinality class, never a message). */
  fail(errorType: string): Span;
  /** A child span in the same trace, started now. */
  child(name: string, kind?: SpanKind): Span;
  /** Ends the span now; a second call does nothing. */
  end(): void;
}

/** Makes spans; `enabled` false is the no-op tracer. */
export interface Tracer {
  readonly enabled: boolean;
  /** The root of a unit of work, started now: in a new trace, or a child of the caller's span when `parent` is given. */
  start(name: string, kind?: SpanKind, parent?: TraceParent | null): Span;
}

/** What a tracer does with a span once it ends (`root`: the unit of work's root span, the end of that work). */
export type SpanSink = (span: FinishedSpan, root: boolean) => void;

const NOOP_SPAN: Span = Object.freeze({
  recording: false,
  set: () => NOOP_SPAN,
  rename: () => NOOP_SPAN,
  fail: () => NOOP_SPAN,
  child: () => NOOP_SPAN,
  end: () => undefined,
});

/** The tracer when tracing is off: every span is one shared object that records nothing. */
export const NOOP_TRACER: Tracer = Object.freeze({ enabled: false, start: () => NOOP_SPAN });

/** `bytes` random bytes as lowercase hex, never all zero (an invalid id in W3C Trace Context and OTLP). */
export function randomId(bytes: 8 | 16): string {
  const buffer = new Uint8Array(bytes);
  for (;;) {
    crypto.getRandomValues(buffer);
    if (buffer.some((b) => b !== 0)) return bytesToHex(buffer);
  }
}

/** Unix milliseconds as Unix nanoseconds, decimal (exact: no floating point past 2^53). */
export function unixNano(ms: number): string {
  const whole = Math.floor(ms);
  return (BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6))).toString();
}

class RecordingSpan implements Span {
  readonly recording = true;
  readonly #attributes = new Map<string, AttributeValue>();
  #name: string;
  #status: FinishedSpan["status"] = { code: "unset" };
  #ended = false;
  readonly #start: string;

  constructor(
    readonly traceId: string,
    readonly parentSpanId: string | null,
    /** The unit of work's root here (its parent, if any, is the caller's). */
    readonly localRoot: boolean,
    readonly traceState: string | null,
    name: string,
    readonly kind: SpanKind,
    readonly tracer: { readonly nowMs: () => number; readonly sink: SpanSink },
    readonly spanId = randomId(8),
  ) {
    this.#name = name;
    this.#start = unixNano(tracer.nowMs());
  }

  set(key: string, value: AttributeValue | null | undefined): Span {
    if (value !== undefined && value !== null && !this.#ended) this.#attributes.set(key, value);
    return this;
  }

  rename(name: string): Span {
    if (!this.#ended) this.#name = name;
    return this;
  }

  fail(errorType: string): Span {
    if (this.#ended) return this;
    this.#status = { code: "error", message: errorType };
    return this.set("error.type", errorType);
  }

  child(name: string, kind: SpanKind = "internal"): Span {
    return new RecordingSpan(this.traceId, this.spanId, false, this.traceState, name, kind, this.tracer);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const finished: FinishedSpan = {
      traceId: this.traceId,
      spanId: this.spanId,
      parentSpanId: this.parentSpanId,
      traceState: this.traceState,
      name: this.#name,
      kind: this.kind,
      startTimeUnixNano: this.#start,
      endTimeUnixNano: unixNano(this.tracer.nowMs()),
      attributes: this.#attributes,
      status: this.#status,
    };
    this.tracer.sink(finished, this.localRoot);
  }
}

/**
 * A recording tracer: each ended span goes to `sink`. `nowMs` is the wall clock in Unix
 * milliseconds (`Date.now` by default; in workerd it advances only across I/O, so a span of
 * synchronous work has equal start and end).
 */
export function createTracer(sink: SpanSink, nowMs: () => number = Date.now): Tracer {
  const tracer = { nowMs, sink };
  return {
    enabled: true,
    start: (name, kind = "internal", parent = null) =>
      parent === null
        ? new RecordingSpan(randomId(16), null, true, null, name, kind, tracer)
        : new RecordingSpan(parent.traceId, parent.parentSpanId, true, parent.tracestate, name, kind, tracer),
  };
}
