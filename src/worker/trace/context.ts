/**
 * W3C Trace Context of an incoming call (https://www.w3.org/TR/trace-context/): the caller's
 * `traceparent`, strictly read (version `00`, a 32-digit trace id and a 16-digit parent id in
 * lowercase hex, neither all zeros, two hex digits of flags), and its `tracestate`, kept as it
 * came. Anything else is ignored: a malformed header starts a new trace, never refuses a call.
 * The value crosses RPC to the consumer object with the call and is checked again there.
 * @module
 */

/** The caller's span a call's spans continue. */
export interface TraceParent {
  /** 32 lowercase hex digits, not all zeros. */
  readonly traceId: string;
  /** The caller's span id: 16 lowercase hex digits, not all zeros. */
  readonly parentSpanId: string;
  /** The trace flags, 2 lowercase hex digits (`01`: the caller sampled it). */
  readonly flags: string;
  /** The caller's `tracestate` as it came, or null (absent, too long, or not printable ASCII). */
  readonly tracestate: string | null;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const TRACE_ID = /^(?!0{32}$)[0-9a-f]{32}$/;
const SPAN_ID = /^(?!0{16}$)[0-9a-f]{16}$/;
/** W3C asks a vendor to pass on at least 512 characters of `tracestate`; a longer one is dropped whole, never cut. */
const MAX_TRACESTATE = 512;
const TRACESTATE = /^[\x20-\x7e]*$/;

function tracestateOf(text: unknown): string | null {
  if (typeof text !== "string" || text.length > MAX_TRACESTATE || !TRACESTATE.test(text)) return null;
  return text.trim() === "" ? null : text;
}

/**
 * The caller's trace context from a `traceparent` and a `tracestate` value, or null when the
 * `traceparent` is absent or not exactly a version-00 header (its `tracestate` then goes too).
 */
export function parseTraceParent(traceparent: unknown, tracestate: unknown): TraceParent | null {
  if (typeof traceparent !== "string") return null;
  const match = TRACEPARENT.exec(traceparent);
  if (match === null) return null;
  const [, traceId = "", parentSpanId = "", flags = ""] = match;
  if (!TRACE_ID.test(traceId) || !SPAN_ID.test(parentSpanId)) return null;
  return { traceId, parentSpanId, flags, tracestate: tracestateOf(tracestate) };
}

/** The trace context of an HTTP request's `traceparent` and `tracestate` headers (several of either: malformed). */
export function incomingTrace(request: Request): TraceParent | null {
  return parseTraceParent(request.headers.get("traceparent"), request.headers.get("tracestate"));
}

/** A trace context carried across RPC, checked again at the object's boundary (as the header it came from); anything else is none. */
export function receivedTrace(value: TraceParent | null | undefined): TraceParent | null {
  if (value === null || value === undefined) return null;
  return parseTraceParent(`00-${value.traceId}-${value.parentSpanId}-${value.flags}`, value.tracestate);
}
