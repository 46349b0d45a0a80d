import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { DownstreamEvidence } from "../../core/tool-result/query-status";
import type { ToolCall } from "../../core/tool-result/types";
import type { Env } from "../env";
import { HTTP_TOOLS } from "./catalog";
import { callHttpTool, queryHttpToolStatus, type DownstreamService, type HttpToolOutcome } from "./http-tool";

/** What running an external tool came to; `not_sent`: nothing left the gate. */
export type ExternalOutcome = HttpToolOutcome | { readonly kind: "not_sent" };

/** The host's side of tools whose execution kind is `external`. */
export interface ExternalExecutor {
  /** Runs the tool once (a write is never re-sent). */
  run(spec: ToolSpec, call: ToolCall, idempotencyKey: string | null): Promise<ExternalOutcome>;
  /** Whether the executor can ask what happened to a write of this tool. */
  canQuery(spec: ToolSpec): boolean;
  /** Asks what happened to a write (and fences its key if the downstream never saw it). */
  query(spec: ToolSpec, idempotencyKey: string): Promise<DownstreamEvidence>;
}

/** The downstream HTTP tools call: the `DOWNSTREAM` service binding, or `fetch` to `TOOLGATE_DOWNSTREAM_URL`. */
export function downstreamOf(env: Env): DownstreamService | undefined {
  const base = env.TOOLGATE_DOWNSTREAM_URL;
  if (env.DOWNSTREAM !== undefined) return { fetcher: env.DOWNSTREAM, baseUrl: base ?? "http://downstream" };
  if (base !== undefined && base !== "") return { fetcher: { fetch: (r) => fetch(r) }, baseUrl: base };
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
    // No downstream configured: nothing was sent, so the call certainly did not start.
    run: async (spec, call, key) => (downstream === undefined ? { kind: "not_sent" } : callHttpTool(definition(spec), downstream, call, key)),
    canQuery: (spec) => downstream !== undefined && HTTP_TOOLS.has(spec.name),
    query: async (spec, key) => (downstream === undefined ? { kind: "unknown" } : queryHttpToolStatus(definition(spec), downstream, key)),
  };
}
