import type { ToolSpec } from "../../core/tool-result/tool-spec";
import type { DownstreamEvidence } from "../../core/tool-result/query-status";
import type { Principal, ToolCall } from "../../core/tool-result/types";
import type { Env } from "../env";
import { HTTP_TOOLS } from "./catalog";
import {
  callHttpTool,
  queryHttpToolStatus,
  type DownstreamService,
  type HttpToolDefinition,
  type HttpToolOutcome,
} from "./http/tool";
import type { McpNotifySink } from "./mcp/notify";
import { callMcpTool, type McpToolHost, type McpToolRoute } from "./mcp/tool";
import { downstreamSigner } from "./http/signature";
import { causeOf } from "./cause";

/** What running an external tool came to; `not_sent`: nothing left the gate (a failure may say why, for operators). */
export type ExternalOutcome = HttpToolOutcome;

// The refusals are made when they happen, not when the module starts (a cause's detail is made
// safe by causeOf, work the isolate's start need not do).
const noSigner = (): ExternalOutcome => ({
  kind: "not_sent",
  cause: causeOf("refused", "the gate has no signing key (TOOLGATE_SIGNING_KEY): nothing is sent unsigned"),
});
const noBase = (): ExternalOutcome => ({
  kind: "not_sent",
  cause: causeOf("refused", "the tool's path has no downstream base URL (TOOLGATE_DOWNSTREAM_URL)"),
});
const noSecret = (): ExternalOutcome => ({
  kind: "not_sent",
  cause: causeOf("refused", "a secret of the tool's headers cannot be opened"),
});

/** Where a run of an external tool is sent (traces keep the method and the host only). */
export interface ExternalTarget {
  readonly kind: "http" | "mcp";
  readonly method: string;
  readonly url: string;
}

/** The host's side of tools whose execution kind is `external`. */
export interface ExternalExecutor {
  /**
   * Runs the tool once for `principal` (a write is never re-sent); the request carries their
   * identity. `notify`: where this call's downstream progress and log messages go (MCP targets only).
   */
  run(
    spec: ToolSpec,
    principal: Principal,
    call: ToolCall,
    idempotencyKey: string | null,
    notify?: McpNotifySink,
  ): Promise<ExternalOutcome>;
  /** Whether the executor can ask what happened to a write of this tool. */
  canQuery(spec: ToolSpec): boolean;
  /** Asks, for `principal` and the status query's `call`, what happened to a write (and fences its key if the downstream never saw it). */
  query(spec: ToolSpec, principal: Principal, call: ToolCall, idempotencyKey: string): Promise<DownstreamEvidence>;
  /** Where `run` sends this tool's request, when it can be said (a trace's downstream span). */
  target?(spec: ToolSpec): ExternalTarget | undefined;
}

/** The bindings {@link downstreamOf} reads. */
export type DownstreamEnv = Pick<Env, "DOWNSTREAM" | "TOOLGATE_DOWNSTREAM_URL" | "TOOLGATE_SIGNING_KEY">;

/**
 * The downstream HTTP tools call: the `DOWNSTREAM` service binding, or `fetch` to
 * `TOOLGATE_DOWNSTREAM_URL`, every request signed with the consumer's key derived from
 * `TOOLGATE_SIGNING_KEY`. Without a signing key of at least 32 characters there is no
 * downstream: HTTP tools fail closed
 * (`not_sent`, the catalog `TOOL_ERROR`) and never send an unsigned request. `nowMs` is the wall
 * clock of the signatures' `created` (see `downstreamSigner`).
 */
export function downstreamOf(env: DownstreamEnv, nowMs: () => number = Date.now): DownstreamService | undefined {
  const signer = downstreamSigner(env.TOOLGATE_SIGNING_KEY, nowMs);
  if (signer === undefined) return undefined;
  const base = env.TOOLGATE_DOWNSTREAM_URL;
  if (env.DOWNSTREAM !== undefined) return { fetcher: env.DOWNSTREAM, baseUrl: base ?? "http://downstream", signer };
  if (base !== undefined && base !== "") return { fetcher: { fetch: (r) => fetch(r) }, baseUrl: base, signer };
  // No downstream for the built-in HTTP tools (they are not sent); data tools' absolute targets still are.
  return { fetcher: { fetch: () => Promise.reject(new Error("no downstream is configured")) }, baseUrl: "", signer };
}

/** Whether a request to this URL can be sent at all (a path needs the downstream's base URL). */
function reachable(downstream: DownstreamService, definition: HttpToolDefinition): boolean {
  return !definition.url.startsWith("/") || downstream.baseUrl !== "";
}

/** How the executor finds an external tool: its HTTP definition and the headers of one request. */
export interface HttpToolRoute {
  readonly definition: HttpToolDefinition;
  /** Extra headers (a target's own and its secrets), read per request; `undefined` if a secret cannot be opened. */
  headers(): Promise<Readonly<Record<string, string>> | undefined>;
}

const NO_HEADERS = async () => ({});

/** The built-in HTTP tools' routes (the catalog's, under the downstream's base URL). */
export function catalogRoute(spec: ToolSpec): HttpToolRoute | undefined {
  const definition = HTTP_TOOLS.get(spec.name);
  return definition === undefined ? undefined : { definition, headers: NO_HEADERS };
}

/**
 * External tools over HTTP: each tool's endpoint comes from `routeOf` (the catalog's HTTP tools
 * and the consumer's data-defined tools). Nothing is sent without a signer, or when a secret
 * header cannot be opened: the call then certainly did not start (`not_sent`).
 */
export function httpExecutor(
  downstream: DownstreamService | undefined,
  routeOf: (spec: ToolSpec) => HttpToolRoute | undefined = catalogRoute,
): ExternalExecutor {
  const route = (spec: ToolSpec) => {
    const found = routeOf(spec);
    if (found === undefined) throw new Error(`external tool without an HTTP definition: ${spec.name}`);
    return found;
  };
  return {
    run: async (spec, principal, call, key) => {
      if (downstream === undefined) return noSigner();
      const { definition, headers } = route(spec);
      if (!reachable(downstream, definition)) return noBase();
      const extra = await headers();
      return extra === undefined ? noSecret() : callHttpTool(definition, downstream, principal, call, key, extra);
    },
    canQuery: (spec) => {
      const definition = routeOf(spec)?.definition;
      return downstream !== undefined && definition?.statusUrl !== undefined && reachable(downstream, definition);
    },
    query: async (spec, principal, call, key) => {
      if (downstream === undefined) return { kind: "unknown" };
      const { definition, headers } = route(spec);
      const extra = await headers();
      return extra === undefined
        ? { kind: "unknown" }
        : queryHttpToolStatus(definition, downstream, principal, call, key, extra);
    },
    target: (spec) => {
      const definition = routeOf(spec)?.definition;
      if (downstream === undefined || definition === undefined || !reachable(downstream, definition)) return undefined;
      return {
        kind: "http",
        method: definition.method ?? "POST",
        url: definition.url.startsWith("/") ? downstream.baseUrl + definition.url : definition.url,
      };
    },
  };
}

/**
 * A consumer's external tools: those whose target is an MCP server run through `tools/call`
 * (`mcpRouteOf` finds them), every other through `http`. MCP has no status query: an MCP
 * write's unknown outcome is never queried (`canQuery` false) and stays `OUTCOME_UNKNOWN`.
 */
export function toolsExecutor(
  http: ExternalExecutor,
  mcpRouteOf: (spec: ToolSpec) => McpToolRoute | undefined,
  host: McpToolHost,
): ExternalExecutor {
  return {
    run: (spec, principal, call, key, notify) => {
      const route = mcpRouteOf(spec);
      return route === undefined
        ? http.run(spec, principal, call, key)
        : callMcpTool(route, host, spec, principal, call, key, notify);
    },
    canQuery: (spec) => mcpRouteOf(spec) === undefined && http.canQuery(spec),
    query: async (spec, principal, call, key) =>
      mcpRouteOf(spec) === undefined ? http.query(spec, principal, call, key) : { kind: "unknown" },
    target: (spec) => {
      const route = mcpRouteOf(spec);
      return route === undefined ? http.target?.(spec) : { kind: "mcp", method: "POST", url: route.target.url };
    },
  };
}
