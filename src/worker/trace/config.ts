/**
 * Whether and where the gate exports traces: `TOOLGATE_OTLP_ENDPOINT` (the full traces URL;
 * unset, tracing is off) and `TOOLGATE_OTLP_HEADERS` (optional `name=value,name2=value2`, as
 * `OTEL_EXPORTER_OTLP_HEADERS`, values percent-decoded). The endpoint follows the rule of tool
 * targets: `https`, or loopback `http` where `TOOLGATE_ALLOW_LOOPBACK_TARGETS` is `"1"`, and no
 * private, loopback or link-local host (the refusal names the host and its block).
 * @module
 */
import { err, ok, type Result } from "../../core/result";
import type { Env } from "../env";
import { checkUrl } from "../features/tools/build";
import { hostRefusal } from "../targets/host";
import { OtlpExporter } from "./export";
import { createTracer, NOOP_TRACER, type Tracer } from "./span";

/** The bindings tracing reads. */
export type TraceEnv = Pick<
  Env,
  "TOOLGATE_OTLP_ENDPOINT" | "TOOLGATE_OTLP_HEADERS" | "TOOLGATE_ALLOW_LOOPBACK_TARGETS"
>;

/** A valid tracing configuration. */
export interface TraceConfig {
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string>>;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
/** Headers the exporter sets itself. */
const OWN_HEADERS = new Set(["content-type", "content-length", "host"]);

/** `name=value` pairs separated by commas; a malformed list is refused whole (never sent without its key). */
export function parseHeaders(text: string): Result<Record<string, string>, string> {
  const headers: Record<string, string> = {};
  for (const part of text.split(",")) {
    if (part.trim() === "") continue;
    const at = part.indexOf("=");
    const name = part.slice(0, Math.max(at, 0)).trim().toLowerCase();
    if (at <= 0 || !HEADER_NAME.test(name)) return err("TOOLGATE_OTLP_HEADERS is not a list of name=value pairs");
    if (OWN_HEADERS.has(name)) return err(`TOOLGATE_OTLP_HEADERS may not set ${name}`);
    let value: string;
    try {
      value = decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      return err("TOOLGATE_OTLP_HEADERS has a value that is not percent-encoded text");
    }
    if (/[\0\r\n]/.test(value)) return err("TOOLGATE_OTLP_HEADERS has a value with a control character");
    headers[name] = value;
  }
  return ok(headers);
}

function isUrl(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The tracing configuration: `null` when off (no endpoint), or why the bindings are refused
 * (the reason never quotes a header or the URL's path, query or credentials, which may carry a
 * key; a private host is named).
 */
export function traceConfig(env: TraceEnv): Result<TraceConfig | null, string> {
  const endpoint = env.TOOLGATE_OTLP_ENDPOINT?.trim() ?? "";
  if (endpoint === "") return ok(null);
  const allowLoopback = env.TOOLGATE_ALLOW_LOOPBACK_TARGETS === "1";
  if (!isUrl(endpoint)) return err("TOOLGATE_OTLP_ENDPOINT is not a URL");
  const refused = checkUrl(endpoint, "TOOLGATE_OTLP_ENDPOINT", { allowLoopback });
  if (refused !== null) {
    const url = new URL(endpoint);
    // A private host is named as the reason (the host only: never the path, query or credentials).
    const privateHost = url.username === "" && url.password === "" && hostRefusal(url.hostname) !== null;
    return err(
      privateHost
        ? refused.message.replace("a target URL", "TOOLGATE_OTLP_ENDPOINT")
        : `TOOLGATE_OTLP_ENDPOINT is not an https URL${allowLoopback ? " (or loopback http)" : ""} without credentials`,
    );
  }
  const headers = parseHeaders(env.TOOLGATE_OTLP_HEADERS ?? "");
  return headers.ok ? ok({ endpoint, headers: headers.value }) : headers;
}

/**
 * The tracer of one consumer object: {@link NOOP_TRACER} when tracing is off or its bindings
 * are refused (said once, without the values), otherwise a tracer whose spans are exported
 * under `waitUntil`.
 */
export function tracerFor(env: TraceEnv, waitUntil?: (promise: Promise<unknown>) => void): Tracer {
  const config = traceConfig(env);
  if (!config.ok) console.error(`toolgate: ${config.error}; tracing is off`);
  if (!config.ok || config.value === null) return NOOP_TRACER;
  const exporter = new OtlpExporter({ ...config.value, ...(waitUntil === undefined ? {} : { waitUntil }) });
  return createTracer(exporter.sink);
}
