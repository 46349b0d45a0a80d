import { writeWireJson } from "../core/capability/wire-json";
import { readJson, type Json } from "../core/json";

/** Where a client talks to: the gate's origin, the consumer, and one credential. */
export interface GateOptions {
  /** The gate's origin, e.g. `https://gate.example` (no trailing slash needed). */
  readonly baseUrl: string;
  readonly consumer: string;
  /** `tg_<kind>_…` credential (or the admin secret for admin calls). */
  readonly token: string;
  /** A fetch implementation (defaults to the global one). */
  readonly fetch?: typeof fetch;
}

/** An RFC 9457 problem answered by the gate; `error` is the capability engine's tagged error. */
export interface ClientProblem {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly error?: Json;
}

/** A call's result: the answer, or the gate's problem (network failures throw). */
export type ClientResult<T> = { ok: true; value: T } | { ok: false; problem: ClientProblem };

/** Largest answer the client reads. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** Reads gate JSON: strict, and integers beyond 2^53 − 1 arrive as bigint. */
export function readWire(text: string): Json {
  const read = readJson(text, { integers: "bigint", domain: false, maxBytes: MAX_ANSWER_BYTES });
  if (!read.ok) throw new Error(`the gate answered invalid JSON: ${read.error.code}`);
  return read.value;
}

/** Writes gate JSON: bigint values become bare integers. */
export function writeWire(value: unknown): string {
  return writeWireJson(value);
}

/** `/v1/consumers/{consumer}` + `path`, percent-encoded. */
export function consumerPath(options: GateOptions, path: string): string {
  return `${options.baseUrl.replace(/\/+$/, "")}/v1/consumers/${encodeURIComponent(options.consumer)}${path}`;
}

/** `/v1/consumers/{consumer}` + `path`, or (`gateWide`) the gate's origin + `path`. */
function urlOf(options: GateOptions, path: string, gateWide: boolean): string {
  return gateWide ? `${options.baseUrl.replace(/\/+$/, "")}${path}` : consumerPath(options, path);
}

/** Per-request options of a call. */
export interface CallOptions {
  /** Extra request headers (lower-case names), e.g. `idempotency-key`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** `path` is gate-wide (`/v1/…`), not under the consumer. */
  readonly gateWide?: boolean;
}

/**
 * An `Idempotency-Key` header value: the key as a Structured Field String (RFC 8941, `"k-1"`),
 * which is how the gate reads it (draft-ietf-httpapi-idempotency-key-header).
 */
export function idempotencyKeyHeader(key: string): string {
  return `"${key.replace(/[\\"]/g, "\\$&")}"`;
}

/** `?name=value&…` of the given values (undefined and null left out), or `""` when none is given. */
export function query(values: Readonly<Record<string, string | number | undefined | null>>): string {
  const pairs = Object.entries(values).filter(
    (e): e is [string, string | number] => e[1] !== undefined && e[1] !== null,
  );
  return pairs.length === 0
    ? ""
    : `?${pairs.map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`).join("&")}`;
}

/** Sends one request; answers the raw response (network failures throw). */
async function send(
  options: GateOptions,
  method: string,
  path: string,
  body: unknown,
  extra: CallOptions,
): Promise<Response> {
  const headers: Record<string, string> = { ...extra.headers, authorization: `Bearer ${options.token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  return doFetch(urlOf(options, path, extra.gateWide === true), {
    method,
    headers,
    body: body === undefined ? undefined : writeWire(body),
  });
}

/** Sends one request and reads the answer (204 → `null`). */
export async function call<T>(
  options: GateOptions,
  method: string,
  path: string,
  body?: unknown,
  extra: CallOptions = {},
): Promise<ClientResult<T>> {
  const res = await send(options, method, path, body, extra);
  const text = await res.text();
  if (res.ok) return { ok: true, value: (text === "" ? null : readWire(text)) as T };
  return { ok: false, problem: problemOf(res, text) };
}

/** `GET` of a non-JSON answer (NDJSON, an event stream): its text, or the gate's problem. */
export async function callText(
  options: GateOptions,
  path: string,
): Promise<ClientResult<{ text: string; headers: Headers }>> {
  const res = await send(options, "GET", path, undefined, {});
  const text = await res.text();
  return res.ok ? { ok: true, value: { text, headers: res.headers } } : { ok: false, problem: problemOf(res, text) };
}

/** `GET` of an event stream: its body to read as it arrives, or the gate's problem. */
export async function callStream(
  options: GateOptions,
  path: string,
): Promise<ClientResult<ReadableStream<Uint8Array>>> {
  const res = await send(options, "GET", path, undefined, { headers: { accept: "text/event-stream" } });
  if (res.ok && res.body !== null) return { ok: true, value: res.body as ReadableStream<Uint8Array> };
  return { ok: false, problem: problemOf(res, await res.text()) };
}

/** One server-sent event: its name, id and data (a stream's comments and `retry:` are skipped). */
export interface ServerEvent {
  readonly event: string;
  readonly id: string;
  readonly data: string;
}

/** The events of an SSE body as they arrive; ends with the stream (breaking out of the loop cancels it). */
export async function* serverEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const fields = { event: "message", id: "", data: [] as string[] };
        for (const line of buffer.slice(0, end).split("\n")) {
          const colon = line.indexOf(":");
          if (colon === 0) continue;
          const [name, raw] = colon < 0 ? [line, ""] : [line.slice(0, colon), line.slice(colon + 1)];
          const text = raw.startsWith(" ") ? raw.slice(1) : raw;
          if (name === "event") fields.event = text;
          else if (name === "id") fields.id = text;
          else if (name === "data") fields.data.push(text);
        }
        buffer = buffer.slice(end + 2);
        if (fields.data.length > 0) yield { event: fields.event, id: fields.id, data: fields.data.join("\n") };
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The problem of a failed answer (RFC 9457 body; a bodiless failure is `HTTP_ERROR`). */
function problemOf(res: Response, text: string): ClientProblem {
  const parsed = text === "" ? {} : (readWire(text) as Record<string, Json>);
  return {
    status: res.status,
    code: typeof parsed.code === "string" ? parsed.code : "HTTP_ERROR",
    detail: typeof parsed.detail === "string" ? parsed.detail : res.statusText,
    ...(parsed.error === undefined ? {} : { error: parsed.error }),
  };
}
