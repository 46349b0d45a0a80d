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

/** Sends one request and reads the answer (204 → `null`). */
export async function call<T>(options: GateOptions, method: string, path: string, body?: unknown): Promise<ClientResult<T>> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const res = await doFetch(consumerPath(options, path), { method, headers, body: body === undefined ? undefined : writeWire(body) });
  const text = await res.text();
  if (res.ok) return { ok: true, value: (text === "" ? null : readWire(text)) as T };
  const parsed = text === "" ? {} : (readWire(text) as Record<string, Json>);
  const problem: ClientProblem = {
    status: res.status,
    code: typeof parsed.code === "string" ? parsed.code : "HTTP_ERROR",
    detail: typeof parsed.detail === "string" ? parsed.detail : res.statusText,
    ...(parsed.error === undefined ? {} : { error: parsed.error }),
  };
  return { ok: false, problem };
}
