import { canonicalJson, readJson } from "../../../core/json";
import type { ToolSpec } from "../../../core/tool-result/tool-spec";
import type { DownstreamEvidence } from "../../../core/tool-result/query-status";
import type { HandlerResult, Principal, ToolCall } from "../../../core/tool-result/types";
import * as z from "../../../core/zod";
import { readCappedBytes } from "../../http/body";
import { encodeIdentity, identityStatement, type DownstreamSigner, type EncodedIdentity } from "./signature";
import { TargetRefused } from "../fetch";
import { deadline } from "../deadline";
import { causeOf, thrownText, type ToolErrorCause } from "../cause";

/** A tool the gate runs by calling an HTTP service. */
export interface HttpToolDefinition {
  /** The registry entry (execution kind `external`: the gate executes HTTP tools itself). */
  readonly spec: ToolSpec;
  /**
   * `{method} {url}` runs the tool with the arguments as the JSON body. An absolute URL (a
   * data-defined tool's target) is fetched directly, never following a redirect; a path
   * (the built-in HTTP tools) is under the downstream's base URL.
   */
  readonly url: string;
  readonly method?: "POST" | "PUT";
  /** `GET` here (with `{status_ref}`, the write's key) reports what happened to a write; absent: no reconciliation. */
  readonly statusUrl?: string;
  /** `POST` here (with `{status_ref}`) fences a key the downstream never saw. */
  readonly fenceUrl?: string;
  /** Largest answer read (default 64 KiB); a larger one is a failure. */
  readonly maxResponseBytes?: number;
}

/**
 * How the gate reaches HTTP tools: the built-in tools' downstream (a service binding, or
 * `fetch` to a base URL), the fetch of absolute targets, and the signer that makes every
 * request carry its identity (no signer, nothing is sent).
 */
export interface DownstreamService {
  readonly fetcher: { fetch(input: Request): Promise<Response> };
  readonly baseUrl: string;
  readonly signer: DownstreamSigner;
  /** The fetch of absolute URLs (the platform's `fetch` by default). */
  readonly external?: { fetch(input: Request): Promise<Response> };
}

/** The URL of a request and the fetch that sends it. */
function route(
  downstream: DownstreamService,
  url: string,
): { url: string; fetcher: { fetch(input: Request): Promise<Response> } } {
  if (url.startsWith("/")) return { url: downstream.baseUrl + url, fetcher: downstream.fetcher };
  return { url, fetcher: downstream.external ?? { fetch: (request) => fetch(request) } };
}

/** A URL template with the write's key in place of `{status_ref}`. */
function withKey(template: string, key: string): string {
  return template.replaceAll("{status_ref}", encodeURIComponent(key));
}

/** A request to the downstream, signed for `identity` each time it is made (a re-send gets a fresh signature). */
async function signedRequest(
  downstream: DownstreamService,
  identity: EncodedIdentity,
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
): Promise<Request> {
  const signed = await downstream.signer.sign({ method: init.method, url, body: init.body ?? "" }, identity);
  return new Request(url, { ...init, headers: { ...init.headers, ...signed }, redirect: "manual" });
}

/** What one downstream call came to, before the engine records it. */
export type HttpToolOutcome =
  /** `status`: the downstream's HTTP status (a trace's `http.response.status_code`). */
  | { readonly kind: "result"; readonly result: HandlerResult; readonly status?: number }
  | { readonly kind: "rate_limited" }
  /** Nothing left the gate (the target rule refused the URL). `cause`: why, for operators only. */
  | { readonly kind: "not_sent"; readonly cause?: ToolErrorCause }
  | { readonly kind: "failed"; readonly cause?: ToolErrorCause };

const MAX_DOWNSTREAM_BYTES = 65_536;

/** The downstream's answer to a call, and the `result` inside a committed status. */
const DownstreamResult = z.deferred(() =>
  z.strictObject({
    data: z.record(z.string(), z.unknown()),
    resource_revision: z.nullable(z.string()),
    observed_at: z.string(),
    request_id: z.optional(z.nullable(z.string())),
    receipt_id: z.optional(z.nullable(z.string())),
  }),
);

const DownstreamStatus = z.deferred(() =>
  z.discriminatedUnion("state", [
    z.strictObject({ state: z.literal("committed"), result: DownstreamResult }),
    z.strictObject({ state: z.enum(["not_found", "pending", "failed", "fenced"]) }),
  ]),
);

async function readDownstreamJson(response: Response, maxBytes = MAX_DOWNSTREAM_BYTES): Promise<unknown> {
  const bytes = await readCappedBytes(response, maxBytes);
  if (!bytes.ok) return undefined;
  const parsed = readJson(bytes.value, { maxBytes });
  return parsed.ok ? parsed.value : undefined;
}

function toHandlerResult(spec: ToolSpec, value: z.infer<typeof DownstreamResult>): HandlerResult {
  return {
    data: value.data as HandlerResult["data"],
    producer_revision: spec.producerRevision,
    resource_revision: value.resource_revision,
    observed_at: value.observed_at,
    downstream_request_id: value.request_id ?? null,
    receipt_id: value.receipt_id ?? null,
  };
}

/**
 * Sends an idempotent request (a read, a status query, a fence). If the connection fails
 * before any answer — a pooled connection the downstream closed just then — it is sent once
 * more within the same deadline. A write is never sent twice.
 */
async function fetchSafe(
  fetcher: { fetch(input: Request): Promise<Response> },
  make: () => Promise<Request>,
  signal: AbortSignal,
): Promise<Response> {
  try {
    return await fetcher.fetch(await make());
  } catch (error) {
    if (signal.aborted) throw error;
    return fetcher.fetch(await make());
  }
}

/**
 * Calls the downstream with the write's idempotency key and the tool's timeout, signed for
 * `principal` and `call`. A write is sent once: `429` is a rate limit (nothing happened); any
 * other failure is an unknown outcome, which the engine records instead of retrying. A read
 * may be re-sent once after a connection failure (see {@link fetchSafe}).
 */
export async function callHttpTool(
  def: HttpToolDefinition,
  downstream: DownstreamService,
  principal: Principal,
  call: ToolCall,
  idempotencyKey: string | null,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<HttpToolOutcome> {
  const headers: Record<string, string> = {
    ...extraHeaders,
    "content-type": "application/json",
    accept: "application/json",
  };
  if (idempotencyKey !== null) headers["idempotency-key"] = `"${idempotencyKey}"`;
  const due = deadline(def.spec.timeoutMs);
  const signal = due.signal;
  const body = canonicalJson(call.arguments);
  const identity = encodeIdentity(identityStatement(principal, def.spec.name, call, idempotencyKey));
  const target = route(downstream, def.url);
  const make = () =>
    signedRequest(downstream, identity, target.url, { method: def.method ?? "POST", headers, body, signal });
  try {
    const response =
      def.spec.risk === "read"
        ? await fetchSafe(target.fetcher, make, signal)
        : await target.fetcher.fetch(await make());
    if (response.status === 429) {
      await response.body?.cancel();
      return { kind: "rate_limited" };
    }
    if (!response.ok) {
      await response.body?.cancel();
      return { kind: "failed", cause: causeOf("status", `HTTP ${response.status}`, response.status) };
    }
    const parsed = DownstreamResult.safeParse(await readDownstreamJson(response, def.maxResponseBytes));
    if (parsed.success)
      return { kind: "result", result: toHandlerResult(def.spec, parsed.data), status: response.status };
    // The issues' paths and messages only: never the answer's values.
    const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "answer"}: ${i.message}`);
    const detail = `HTTP ${response.status} answer is not a downstream result (${issues.join("; ")})`;
    return { kind: "failed", cause: causeOf("contract", detail) };
  } catch (error) {
    // Refused by the target rule before anything was sent: certainly not executed.
    if (error instanceof TargetRefused) return { kind: "not_sent", cause: causeOf("refused", error.message) };
    if (signal.aborted)
      return { kind: "failed", cause: causeOf("timeout", `no answer within ${def.spec.timeoutMs} ms`) };
    return { kind: "failed", cause: causeOf("connect", thrownText(error)) };
  } finally {
    // The answer is read (or the call failed): its timer goes now, not when the timeout would have struck.
    due.clear();
  }
}

/** What the downstream says happened to a write (pending, unreachable or malformed: unknown). */
export type HttpToolStatus = DownstreamEvidence;

const UNKNOWN: HttpToolStatus = { kind: "unknown" };

/** The downstream's status answer, parsed; `undefined` if it is not one. */
async function readStatus(response: Response): Promise<z.infer<typeof DownstreamStatus> | undefined> {
  if (!response.ok) {
    await response.body?.cancel();
    return undefined;
  }
  const parsed = DownstreamStatus.safeParse(await readDownstreamJson(response));
  return parsed.success ? parsed.data : undefined;
}

function classify(spec: ToolSpec, status: z.infer<typeof DownstreamStatus> | undefined): HttpToolStatus {
  if (status === undefined) return UNKNOWN;
  if (status.state === "committed") return { kind: "committed", result: toHandlerResult(spec, status.result) };
  return status.state === "failed" || status.state === "fenced" ? { kind: "not_executed" } : UNKNOWN;
}

/**
 * Asks the downstream what happened to a write (`GET {statusPath}/{key}`). If it has no record
 * of the key, the gate fences it (`POST {statusPath}/{key}/fence`): from then on the downstream
 * refuses that key, so "not found" becomes a definite "never executed" — unless the write
 * committed first, in which case the fence answers its receipt. Both requests are idempotent,
 * signed for `principal` and the status query's `call` (with the key as `status_ref`), and may
 * be re-sent after a lost connection.
 */
export async function queryHttpToolStatus(
  def: HttpToolDefinition,
  downstream: DownstreamService,
  principal: Principal,
  call: ToolCall,
  idempotencyKey: string,
  extraHeaders: Readonly<Record<string, string>> = {},
): Promise<HttpToolStatus> {
  if (def.statusUrl === undefined || def.fenceUrl === undefined) return UNKNOWN;
  const due = deadline(def.spec.timeoutMs);
  const signal = due.signal;
  const status = route(downstream, withKey(def.statusUrl, idempotencyKey));
  const fence = route(downstream, withKey(def.fenceUrl, idempotencyKey));
  const headers = { ...extraHeaders, accept: "application/json" };
  const identity = encodeIdentity(identityStatement(principal, def.spec.name, call, idempotencyKey));
  try {
    const asked = await readStatus(
      await fetchSafe(
        status.fetcher,
        () => signedRequest(downstream, identity, status.url, { method: "GET", headers, signal }),
        signal,
      ),
    );
    if (asked?.state !== "not_found") return classify(def.spec, asked);
    const fenced = await readStatus(
      await fetchSafe(
        fence.fetcher,
        () => signedRequest(downstream, identity, fence.url, { method: "POST", headers, signal }),
        signal,
      ),
    );
    // A fence answers `fenced` or the receipt of a write that committed first; never `not_found`.
    return fenced?.state === "not_found" ? UNKNOWN : classify(def.spec, fenced);
  } catch {
    return UNKNOWN;
  } finally {
    due.clear();
  }
}
