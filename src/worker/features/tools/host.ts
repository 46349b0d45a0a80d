import type { ToolRegistry, ToolSpec } from "../../../core/tool-result/tool-spec";
import { ALL_TOOL_NAMES, registryFor } from "../../targets/catalog";
import {
  catalogRoute,
  downstreamOf,
  httpExecutor,
  toolsExecutor,
  type ExternalExecutor,
  type HttpToolRoute,
} from "../../targets/executor";
import type { McpToolRoute } from "../../targets/mcp/tool";
import { codeExecutor } from "../../targets/code/executor";
import type { ObjectKernel } from "../../kernel/kernel";
import { SecretVault } from "../secrets/vault";
import type { BuiltTool } from "./build";
import { McpServers } from "../mcp-servers/service";
import { DataTools } from "./service";
import { ShadowPolicies } from "./shadow";

/** What the tools host uses of the kernel (the consumer's name seals its secrets; the clock dates MCP answers). */
type ToolsKernel = Pick<
  ObjectKernel,
  "sql" | "audit" | "env" | "targets" | "fetch" | "now" | "transaction" | "consumerName" | "onRollback"
>;

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
  /** The data tools' shadow rules: evaluated beside the enforced ones on every call. */
  readonly shadow: ShadowPolicies;
  readonly #kernel: ToolsKernel;
  /** The embedding Worker's in-process tools (`createGate({ tools })`). */
  readonly #codeTools: () => readonly ToolSpec[];
  /** The fetch of every consumer-defined target (HTTP and MCP): the target rule again before each request. */
  readonly #outbound: (request: Request) => Promise<Response>;

  constructor(kernel: ToolsKernel, codeTools: () => readonly ToolSpec[]) {
    this.#kernel = kernel;
    this.#codeTools = codeTools;
    this.vault = new SecretVault(kernel.sql, () => kernel.consumerName() ?? "", kernel.env.TOOLGATE_SECRETS_KEY);
    this.data = new DataTools(kernel, this.vault, () => [...ALL_TOOL_NAMES, ...codeTools().map((t) => t.name)]);
    this.#outbound = kernel.fetch;
    this.mcp = new McpServers(kernel, this.data, this.vault, this.#outbound);
    this.shadow = new ShadowPolicies(kernel.sql, () => this.data.built());
    // A rolled-back definition must not stay built in memory.
    kernel.onRollback(() => this.data.reset());
  }

  /** The registry of the consumer's enabled tools. */
  registry(enabled: readonly string[]): ToolRegistry {
    return registryFor(enabled, [...this.#codeTools(), ...this.data.built().map((b) => b.spec)]);
  }

  /** Every name a consumer may enable now. */
  knownNames(): string[] {
    return [...ALL_TOOL_NAMES, ...this.#codeTools().map((t) => t.name), ...this.data.built().map((b) => b.spec.name)];
  }

  /** The names of `enabled` that no source defines. */
  unknownNames(enabled: readonly string[]): string[] {
    const known = new Set(this.knownNames());
    return [...new Set(enabled)].filter((name) => !known.has(name)).sort();
  }

  /**
   * The executor of external tools: the code tools defined with `execute`, the catalog's HTTP
   * tools and the data tools' targets (HTTP and MCP).
   */
  executor(): ExternalExecutor {
    const configured = downstreamOf(this.#kernel.env);
    const downstream = configured === undefined ? undefined : { ...configured, external: { fetch: this.#outbound } };
    const http = httpExecutor(downstream, (spec) => catalogRoute(spec) ?? this.#route(spec));
    const host = {
      signer: downstream?.signer,
      fetch: this.#outbound,
      now: () => this.#kernel.now(),
      listChanged: (url: string) => this.mcp.listChanged(url, this.#kernel.now()),
    };
    const code = { env: this.#kernel.env, signer: configured?.signer, now: () => this.#kernel.now() };
    return codeExecutor(
      toolsExecutor(http, (spec) => this.#mcpRoute(spec), host),
      code,
    );
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
   * transaction rebuilds the tools from storage while a service may still hold the specs it was
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
