/**
 * Spans as an OTLP/HTTP JSON `ExportTraceServiceRequest` (opentelemetry-proto, JSON encoding:
 * lowerCamelCase field names, trace and span ids as hex, 64-bit integers and nanosecond times
 * as decimal strings, enums as their integers).
 * @module
 */
import { GATE_VERSION } from "../version";
import { SPAN_KIND, STATUS_CODE, type AttributeValue, type FinishedSpan } from "./span";

/** The service name every span's resource carries, and the instrumentation scope's name. */
export const SERVICE_NAME = "toolgate";

/** OTLP's `AnyValue`, for the value types the gate records. */
export type OtlpValue =
  { stringValue: string } | { boolValue: boolean } | { intValue: string } | { doubleValue: number };

/** OTLP's `KeyValue`. */
export interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}

/** OTLP's `Span`, as the gate fills it. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  traceState?: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  status: { code: number; message?: string };
}

/** OTLP's `ExportTraceServiceRequest`: one resource (the gate), one scope (the gate). */
export interface OtlpTraceRequest {
  resourceSpans: Array<{
    resource: { attributes: OtlpKeyValue[] };
    scopeSpans: Array<{ scope: { name: string; version: string }; spans: OtlpSpan[] }>;
  }>;
}

/** One attribute value in OTLP's typed form: integers as `intValue` (decimal text), other numbers as `doubleValue`. */
export function otlpValue(value: AttributeValue): OtlpValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

function keyValues(attributes: Iterable<readonly [string, AttributeValue]>): OtlpKeyValue[] {
  const out: OtlpKeyValue[] = [];
  for (const [key, value] of attributes) out.push({ key, value: otlpValue(value) });
  return out;
}

/** One span in OTLP's form; a new trace's root has no `parentSpanId`, a span of no continued trace no `traceState`. */
export function otlpSpan(span: FinishedSpan): OtlpSpan {
  const status =
    span.status.message === undefined
      ? { code: STATUS_CODE[span.status.code] }
      : { code: STATUS_CODE[span.status.code], message: span.status.message };
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.traceState === null ? {} : { traceState: span.traceState }),
    ...(span.parentSpanId === null ? {} : { parentSpanId: span.parentSpanId }),
    name: span.name,
    kind: SPAN_KIND[span.kind],
    startTimeUnixNano: span.startTimeUnixNano,
    endTimeUnixNano: span.endTimeUnixNano,
    attributes: keyValues(span.attributes),
    status,
  };
}

/** The export request of a batch of spans: resource `service.name` "toolgate" and `service.version` the gate's version. */
export function traceRequest(spans: readonly FinishedSpan[]): OtlpTraceRequest {
  const resource = {
    attributes: keyValues([
      ["service.name", SERVICE_NAME],
      ["service.version", GATE_VERSION],
    ]),
  };
  return {
    resourceSpans: [
      { resource, scopeSpans: [{ scope: { name: SERVICE_NAME, version: GATE_VERSION }, spans: spans.map(otlpSpan) }] },
    ],
  };
}
