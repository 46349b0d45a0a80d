/**
 * The executor of tools written as code with `execute`: their handler runs between the
 * engine's two steps (outside any transaction), under the tool's timeout, for the call's
 * verified principal, as an HTTP tool's request does. Every other tool goes to the inner executor.
 * @module
 */
import { visibleText } from "../../../core/text/visible";
import { formatUtcSecond } from "../../../core/tool-result/utc-time";
import type { DownstreamEvidence } from "../../../core/tool-result/query-status";
import type { ToolSpec } from "../../../core/tool-result/tool-spec";
import type { Principal, ToolCall } from "../../../core/tool-result/types";
import type { ExternalExecutor, ExternalOutcome } from "../executor";
import { causeOf, type ToolErrorCause } from "../cause";
import { deadline } from "../deadline";
import { encodeIdentity, identityStatement, type DownstreamSigner } from "../http/signature";
import { runnerOf, type CheckedOutput, type SignedFetchInit, type ToolRunContext } from "./runner";

/** What the code executor needs of its host. */
export interface CodeHost {
  /** The Durable Object's bindings, handed to every handler. */
  readonly env: object;
  /** Signs the requests of `ctx.fetch`; `undefined` without a signing key (then it rejects). */
  readonly signer: DownstreamSigner | undefined;
  /** The gate's clock (Unix seconds): a result's `observed_at`. */
  readonly now: () => number;
  /** Where a failure's cause goes (operators' log); never into an answer. */
  readonly report?: (line: string) => void;
}

/** A handler's cause, one bounded line with hidden characters shown (it may quote anything). */
function handlerCause(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return "timed out (the signal was aborted)";
  const text = error instanceof Error ? `${error.name}: ${error.message}` : "threw a non-Error value";
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Settles with `work`, or rejects once `signal` aborts (a handler that ignores its signal is not waited for). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const aborted = () => reject(new Error("aborted"));
    if (signal.aborted) aborted();
    signal.addEventListener("abort", aborted, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", aborted));
  });
}

/** `ctx.fetch`: the request signed for the call's identity, with its signal and the write's key. */
function signedFetch(
  host: CodeHost,
  spec: ToolSpec,
  principal: Principal,
  call: ToolCall,
  key: string | null,
  signal: AbortSignal,
): ToolRunContext["fetch"] {
  const identity = encodeIdentity(identityStatement(principal, spec.name, call, key));
  return async (url: string, init: SignedFetchInit = {}) => {
    if (host.signer === undefined) throw new Error("the gate has no signing key (TOOLGATE_SIGNING_KEY)");
    const method = init.method ?? (init.body === undefined ? "GET" : "POST");
    const headers: Record<string, string> = { ...init.headers };
    const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
    if (key !== null && !names.has("idempotency-key")) headers["idempotency-key"] = `"${key}"`;
    const signed = await host.signer.sign({ method, url, body: init.body ?? "" }, identity);
    return fetch(
      new Request(url, {
        method,
        headers: { ...headers, ...signed },
        ...(init.body === undefined ? {} : { body: init.body }),
        signal,
        redirect: "manual",
      }),
    );
  };
}

/**
 * Code tools through their runner, every other tool through `inner`. A handler that throws,
 * times out or answers data its output schema refuses is `failed`: the engine answers a read's
 * `TOOL_ERROR`, and a write's `OUTCOME_UNKNOWN` with its status_ref (it may have taken effect).
 */
export function codeExecutor(inner: ExternalExecutor, host: CodeHost): ExternalExecutor {
  const report = host.report ?? ((line: string) => console.warn(line));
  const failed = (spec: ToolSpec, what: string, cause: string, kind: ToolErrorCause["kind"]): ExternalOutcome => {
    report(`toolgate: code tool ${spec.name} ${what}: ${visibleText(cause)}`);
    return { kind: "failed", cause: causeOf(kind, cause) };
  };
  const thrown = (signal: AbortSignal): ToolErrorCause["kind"] => (signal.aborted ? "timeout" : "thrown");
  const context = (spec: ToolSpec, principal: Principal, call: ToolCall, key: string | null, signal: AbortSignal) => ({
    env: host.env,
    signal,
    principal,
    idempotencyKey: key,
    callId: call.call_id,
    fetch: signedFetch(host, spec, principal, call, key, signal),
  });
  const result = (spec: ToolSpec, output: Extract<CheckedOutput, { ok: true }>) => ({
    data: output.data,
    producer_revision: spec.producerRevision,
    resource_revision: null,
    observed_at: formatUtcSecond(host.now()),
  });
  return {
    run: async (spec, principal, call, key, notify) => {
      const runner = runnerOf(spec);
      if (runner === undefined) return inner.run(spec, principal, call, key, notify);
      // The handler's time: its timer goes once it answered (docs/tools.md: `signal` aborts when timeoutMs is over).
      const due = deadline(spec.timeoutMs);
      const signal = due.signal;
      let output: CheckedOutput;
      try {
        output = await untilAborted(
          runner.execute(call.arguments, context(spec, principal, call, key, signal)),
          signal,
        );
      } catch (error) {
        return failed(spec, "failed", handlerCause(error, signal), thrown(signal));
      } finally {
        due.clear();
      }
      if (!output.ok) return failed(spec, "answered data its output schema refuses", output.cause, "contract");
      return { kind: "result", result: result(spec, output) };
    },
    canQuery: (spec) => {
      const runner = runnerOf(spec);
      return runner === undefined ? inner.canQuery(spec) : runner.status !== undefined;
    },
    query: async (spec, principal, call, key): Promise<DownstreamEvidence> => {
      const runner = runnerOf(spec);
      if (runner === undefined) return inner.query(spec, principal, call, key);
      if (runner.status === undefined) return { kind: "unknown" };
      const due = deadline(spec.timeoutMs);
      const signal = due.signal;
      try {
        const found = await untilAborted(
          runner.status(call.arguments, context(spec, principal, call, key, signal)),
          signal,
        );
        if (found.state !== "committed") return { kind: found.state };
        if (!found.output.ok) {
          failed(spec, "status answered data its output schema refuses", found.output.cause, "contract");
          return { kind: "unknown" };
        }
        return { kind: "committed", result: result(spec, found.output) };
      } catch (error) {
        failed(spec, "status failed", handlerCause(error, signal), thrown(signal));
        return { kind: "unknown" };
      } finally {
        due.clear();
      }
    },
    target: (spec) => (runnerOf(spec) === undefined ? inner.target?.(spec) : undefined),
  };
}
