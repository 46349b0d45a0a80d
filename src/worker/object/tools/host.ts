import type { ToolRegistry, ToolSpec } from "../../../core/tool-result/tool-spec";
import type { Env } from "../../env";
import { ALL_TOOL_NAMES, registryFor } from "../../tools/catalog";
import { targetFetch } from "../../tools/target-fetch";
import { catalogRoute, downstreamOf, httpExecutor, toolsExecutor, type ExternalExecutor, type HttpToolRoute } from "../../tools/executor";
import type { McpToolRoute } from "../../tools/mcp-tool";
import type { AuditChain } from "../audit/plane";
import { SecretVault } from "../secrets/vault";
import type { BuiltTool } from "./build";
import { McpServers } from "../mcp-servers/plane";
import { DataTools } from "./plane";

/** What the tools host uses of its object. */
export interface ToolsHostDeps {
  readonly sql: SqlStorage;
  readonly audit: AuditChain;
  readonly env: Env;
  /** The consumer's name (secrets are sealed for it). */
  readonly consumer: () => string;
  /** The embedding Worker's in-process tools (`createGate({ tools })`). */
  readonly codeTools: () => readonly ToolSpec[];
  /** The object's clock (Unix seconds): when an MCP target's answer was observed, a server marked stale. */
  readonly now: () => number;
  transaction<T>(step: () => T): T;
}

/**
 * Every tool a consumer can enable, from the three sources: the gate's catalog (built-in and
 * HTTP), the embedding Worker's code, and the consumer's own definitions (data); and how the
 * external ones are reached (their HTTP routes, with secret headers opened per request).
 */
export class ToolsHost {
  readonly data: DataTools;
  readonly vault: SecretVault;
  /** The downstream MCP servers whose tools the consumer imported. */
  readonly mcp: McpServers;
  readonly #deps: ToolsHostDeps;
  /** The fetch of every consumer-defined target (HTTP and MCP): the target rule again before each request. */
  readonly #outbound: (request: Request) => Promise<Response>;

  constructor(deps: ToolsHostDeps) {
    this.#deps = deps;
    this.vault = new SecretVault(deps.sql, deps.consumer, deps.env.TOOLGATE_SECRETS_KEY);
    const targets = { allowLoopback: deps.env.TOOLGATE_ALLOW_LOOPBACK_TARGETS === "1" };
    this.data = new DataTools({
      sql: deps.sql,
      audit: deps.audit,
      vault: this.vault,
      targets,
      reserved: () => [...ALL_TOOL_NAMES, ...deps.codeTools().map((t) => t.name)],
    });
    this.#outbound = targetFetch(targets, (request) => fetch(request));
    this.mcp = new McpServers({ sql: deps.sql, audit: deps.audit, data: this.data, vault: this.vault, targets, fetch: this.#outbound, transaction: (step) => deps.transaction(step) });
  }

  /** The registry of the consumer's enabled tools. */
  registry(enabled: readonly string[]): ToolRegistry {
    return registryFor(enabled, [...this.#deps.codeTools(), ...this.data.built().map((b) => b.spec)]);
  }

  /** Every name a consumer may enable now. */
  knownNames(): string[] {
    return [...ALL_TOOL_NAMES, ...this.#deps.codeTools().map((t) => t.name), ...this.data.built().map((b) => b.spec.name)];
  }

  /** The names of `enabled` that no source defines. */
  unknownNames(enabled: readonly string[]): string[] {
    const known = new Set(this.knownNames());
    return [...new Set(enabled)].filter((name) => !known.has(name)).sort();
  }

  /** The executor of external tools: the catalog's HTTP tools and the data tools' targets (HTTP and MCP). */
  executor(): ExternalExecutor {
    const configured = downstreamOf(this.#deps.env);
    const downstream = configured === undefined ? undefined : { ...configured, external: { fetch: this.#outbound } };
    const http = httpExecutor(downstream, (spec) => catalogRoute(spec) ?? this.#route(spec));
    const host = { signer: downstream?.signer, fetch: this.#outbound, now: this.#deps.now, listChanged: (url: string) => this.mcp.listChanged(url, this.#deps.now()) };
    return toolsExecutor(http, (spec) => this.#mcpRoute(spec), host);
  }

  #mcpRoute(spec: ToolSpec): McpToolRoute | undefined {
    const target = this.#built(spec)?.target;
    if (target?.kind !== "mcp") return undefined;
    const auth = target.auth;
    return {
      target,
      authorization: async () => {
        if (auth === undefined) return null;
        const value = await this.vault.open(auth.secret);
        return value === undefined ? undefined : auth.prefix + value;
      },
      relay: () => this.mcp.relayOf(spec.name, target.url, target.tool),
    };
  }

  /**
   * The built tool a spec came from. By name and revisions, not identity: a rolled-back
   * transaction rebuilds the tools from storage while a plane may still hold the specs it was
   * built with (the same definitions, new objects).
   */
  #built(spec: ToolSpec): BuiltTool | undefined {
    return this.data.built().find((b) => b.spec === spec || (b.spec.name === spec.name && sameRevisions(b.spec, spec)));
  }

  #route(spec: ToolSpec): HttpToolRoute | undefined {
    const built = this.#built(spec);
    if (built === undefined || built.target.kind !== "http") return undefined;
    const target = built.target;
    return {
      definition: {
        spec,
        url: target.url,
        method: target.method,
        maxResponseBytes: target.max_response_bytes,
        ...(target.status_url === undefined ? {} : { statusUrl: target.status_url }),
        ...(target.fence_url === undefined ? {} : { fenceUrl: target.fence_url }),
      },
      headers: async () => {
        const headers: Record<string, string> = { ...target.headers };
        for (const [header, ref] of Object.entries(target.secret_headers)) {
          const value = await this.vault.open(ref.secret);
          if (value === undefined) return undefined;
          headers[header] = ref.prefix + value;
        }
        return headers;
      },
    };
  }
}

function sameRevisions(a: ToolSpec, b: ToolSpec): boolean {
  return (
    a.inputSchemaRevision === b.inputSchemaRevision &&
    a.policyRevision === b.policyRevision &&
    a.outputSchemaRevision === b.outputSchemaRevision &&
    a.effectRevision === b.effectRevision &&
    a.handlerRevision === b.handlerRevision
  );
}
