import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { DownstreamEvidence } from "../../core/tool-result/query-status";
import type { Principal, ToolCall } from "../../core/tool-result/types";
import type { Env } from "../env";
import { HTTP_TOOLS } from "./catalog";
import { callHttpTool, queryHttpToolStatus, type DownstreamService, type HttpToolOutcome } from "./http-tool";
import { downstreamSigner } from "./signature";

/** What running an external tool came to; `not_sent`: nothing left the gate. */
export type ExternalOutcome = HttpToolOutcome | { readonly kind: "not_sent" };

/** The host's side of tools whose execution kind is `external`. */
export interface ExternalExecutor {
  /** Runs the tool once for `principal` (a write is never re-sent); the request carries their identity. */
  run(spec: ToolSpec, principal: Principal, call: ToolCall, idempotencyKey: string | null): Promise<ExternalOutcome>;
  /** Whether the executor can ask what happened to a write of this tool. */
  canQuery(spec: ToolSpec): boolean;
  /** Asks, for `principal` and the status query's `call`, what happened to a write (and fences its key if the downstream never saw it). */
  query(spec: ToolSpec, principal: Principal, call: ToolCall, idempotencyKey: string): Promise<DownstreamEvidence>;
}

/** The bindings {@link downstreamOf} reads. */
export type DownstreamEnv = Pick<Env, "DOWNSTREAM" | "TOOLGATE_DOWNSTREAM_URL" | "TOOLGATE_SIGNING_KEY">;

/**
 * The downstream HTTP tools call: the `DOWNSTREAM` service binding, or `fetch` to
 * `TOOLGATE_DOWNSTREAM_URL`, every request signed under `TOOLGATE_SIGNING_KEY`. Without a
 * signing key of at least 32 characters there is no downstream: HTTP tools fail closed
 * (`not_sent`, the catalog `TOOL_ERROR`) and never send an unsigned request. `nowMs` is the wall
 * clock of the signatures' `created` (see `downstreamSigner`).
 */
export function downstreamOf(env: DownstreamEnv, nowMs: () => number = Date.now): DownstreamService | undefined {
  const signer = downstreamSigner(env.TOOLGATE_SIGNING_KEY, nowMs);
  if (signer === undefined) return undefined;
  const base = env.TOOLGATE_DOWNSTREAM_URL;
  if (env.DOWNSTREAM !== undefined) return { fetcher: env.DOWNSTREAM, baseUrl: base ?? "http://downstream", signer };
  if (base !== undefined && base !== "") return { fetcher: { fetch: (r) => fetch(r) }, baseUrl: base, signer };
  return undefined;
}

/** External tools over HTTP: each tool's service path comes from the catalog. */
export function httpExecutor(downstream: DownstreamService | undefined): ExternalExecutor {
  const definition = (spec: ToolSpec) => {
    const def = HTTP_TOOLS.get(spec.name);
    if (def === undefined) throw new Error(`external tool without an HTTP definition: ${spec.name}`);
    return def;
  };
  return {
    // No downstream (or no signing key): nothing was sent, so the call certainly did not start.
    run: async (spec, principal, call, key) => (downstream === undefined ? { kind: "not_sent" } : callHttpTool(definition(spec), downstream, principal, call, key)),
    canQuery: (spec) => downstream !== undefined && HTTP_TOOLS.has(spec.name),
    query: async (spec, principal, call, key) => (downstream === undefined ? { kind: "unknown" } : queryHttpToolStatus(definition(spec), downstream, principal, call, key)),
  };
}
