import type { ToolRegistry, ToolSpec } from "../../../core/tool-result/tool-spec";
import type { Env } from "../../env";
import { ALL_TOOL_NAMES, registryFor } from "../../tools/catalog";
import { catalogRoute, downstreamOf, httpExecutor, type ExternalExecutor, type HttpToolRoute } from "../../tools/executor";
import type { AuditChain } from "../audit/plane";
import { SecretVault } from "../secrets/vault";
import type { BuiltTool } from "./build";
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
}

/**
 * Every tool a consumer can enable, from the three sources: the gate's catalog (built-in and
 * HTTP), the embedding Worker's code, and the consumer's own definitions (data); and how the
 * external ones are reached (their HTTP routes, with secret headers opened per request).
 */
export class ToolsHost {
  readonly data: DataTools;
  readonly vault: SecretVault;
  readonly #deps: ToolsHostDeps;

  constructor(deps: ToolsHostDeps) {
    this.#deps = deps;
    this.vault = new SecretVault(deps.sql, deps.consumer, deps.env.TOOLGATE_SECRETS_KEY);
    this.data = new DataTools({
      sql: deps.sql,
      audit: deps.audit,
      vault: this.vault,
      targets: { allowLoopback: deps.env.TOOLGATE_ALLOW_LOOPBACK_TARGETS === "1" },
      reserved: () => [...ALL_TOOL_NAMES, ...deps.codeTools().map((t) => t.name)],
    });
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

  /** The executor of external tools: the catalog's HTTP tools and the data tools' targets. */
  executor(): ExternalExecutor {
    return httpExecutor(downstreamOf(this.#deps.env), (spec) => catalogRoute(spec) ?? this.#route(spec));
  }

  #route(spec: ToolSpec): HttpToolRoute | undefined {
    const built: BuiltTool | undefined = this.data.built().find((b) => b.spec === spec);
    if (built === undefined) return undefined;
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
