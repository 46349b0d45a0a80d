import { declareTools, type DeclarationFormat } from "../../../core/adapters/declarations";
import { canonicalJson } from "../../../core/json";
import { ToolDefinition } from "../../../contracts/tool-definition";
import { problem } from "../../problem";
import { fail, ok, type Outcome } from "../../result";
import { listPage } from "../list-page";
import type { AuditChain } from "../audit/plane";
import { toolsInScope, type Scope } from "../identity/scope";
import { fromWorker } from "../rpc";
import { MAX_SECRETS } from "../secrets/vault";
import { declarationInputs } from "./declare";
import type { McpServersCall } from "../mcp-servers/plane";
import type { ToolsHost } from "./host";

/** One call of the tools plane, as the Worker hands it to the consumer's object; `kind` is its operation. */
export type ToolsCall =
  | { kind: "defineTool"; name: string; /** The definition as canonical JSON (RPC keeps floats exact as text). */ definition: string }
  | { kind: "getTool"; name: string }
  | { kind: "listTools"; format: DeclarationFormat | null; cursor: string | null }
  | { kind: "disableTool"; name: string }
  | { kind: "putSecret"; name: string; value: string }
  | { kind: "deleteSecret"; name: string }
  | { kind: "listSecrets"; cursor: string | null }
  | McpServersCall;

/** What a tools call uses of its object. */
export interface ToolsCallDeps {
  readonly host: ToolsHost;
  readonly audit: AuditChain;
  /** The consumer's enabled tool names. */
  readonly enabled: readonly string[];
  /** The caller's tool scope (identity/scope.ts): a tool list shows only the tools it admits; `null` for the admin. */
  readonly scope: Scope;
  readonly now: number;
  /** Items on one page of a list (the consumer's `page_items`). */
  readonly pageItems: number;
  transaction<T>(step: () => T): T;
  /** The tool registry changed: rebuild it before the next call. */
  invalidate(): void;
}

/**
 * Runs one tools-plane call. `admin` says whether the caller is the admin (an agent may only
 * read the enabled tools' declarations).
 */
export async function toolsCall(deps: ToolsCallDeps, admin: boolean, call: ToolsCall): Promise<Outcome<string | null>> {
  const { host, now } = deps;
  switch (call.kind) {
    case "defineTool": {
      const definition = fromWorker(call.definition, ToolDefinition);
      const defined = deps.transaction(() => host.data.define(call.name, definition, now));
      if (!defined.ok) return defined;
      deps.invalidate();
      return ok(defined.value.view);
    }
    case "getTool":
      return host.data.view(call.name);
    case "listTools": {
      const registry = host.registry(deps.enabled);
      // Pages by tool name: the declarations of a model's format (those the caller's scope admits, as in MCP's
      // tools/list), or the admin's defined tools (`enabled`, the configuration, whole on each page).
      if (call.format !== null || !admin) {
        const format = call.format ?? "json-schema";
        const page = listPage("tools", toolsInScope(deps.scope, declarationInputs(registry)), (t) => t.name, call.cursor, deps.pageItems);
        return page.ok ? ok(canonicalJson({ format, tools: declareTools(page.value.items, format), next_cursor: page.value.next_cursor })) : page;
      }
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- stored definitions were validated: name is a string
      const page = listPage("tools", host.data.list(), (t) => String(t["name"]), call.cursor, deps.pageItems);
      return page.ok ? ok(canonicalJson({ enabled: [...registry.keys()].sort(), defined: page.value.items, next_cursor: page.value.next_cursor })) : page;
    }
    case "disableTool": {
      const disabled = deps.transaction(() => host.data.disable(call.name, now));
      if (disabled.ok) deps.invalidate();
      return disabled.ok ? ok(null) : disabled;
    }
    case "putSecret": {
      if (!host.vault.enabled) return fail(problem("INVALID_REQUEST", "The gate has no TOOLGATE_SECRETS_KEY: secrets cannot be stored."));
      if (!host.vault.has(call.name) && host.vault.names().length >= MAX_SECRETS) return fail(problem("QUOTA_EXCEEDED", `A consumer holds at most ${MAX_SECRETS} secrets.`));
      const sealed = await host.vault.seal(call.name, call.value);
      deps.transaction(() => {
        host.vault.store(call.name, sealed, now);
        deps.audit.append("secret.set", now, { name: call.name });
      });
      return ok(null);
    }
    case "deleteSecret": {
      const deleted = deps.transaction(() => {
        const had = host.vault.delete(call.name);
        if (had) deps.audit.append("secret.deleted", now, { name: call.name });
        return had;
      });
      return deleted ? ok(null) : fail(problem("NOT_FOUND", "No such secret."));
    }
    case "listSecrets": {
      const page = listPage("secrets", host.vault.names(), (name) => name, call.cursor, deps.pageItems);
      return page.ok ? ok(canonicalJson({ secrets: page.value.items, next_cursor: page.value.next_cursor })) : page;
    }
    case "registerMcpServer":
    case "importMcpServer":
    case "deleteMcpServer": {
      const done = await host.mcp.call(call, now);
      if (done.ok) deps.invalidate();
      return done;
    }
    case "listMcpServers":
    case "getMcpServer":
      return host.mcp.call(call, now, deps.pageItems);
  }
}
