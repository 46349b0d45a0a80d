import { declareTools, type DeclarationFormat } from "../../../core/adapters/declarations";
import { canonicalJson } from "../../../core/json";
import { ToolDefinition } from "../../../contracts/tool-definition";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import { listPage } from "../../kernel/list-page";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import type { ObjectKernel } from "../../kernel/kernel";
import type { ToolCallServices } from "../tool-calls/services";
import { toolsInScope } from "../identity/scope";
import { received, type Carried } from "../../kernel/rpc";
import { MAX_SECRETS } from "../secrets/vault";
import { declarationInputs } from "./declare";
import type { McpServersCall } from "../mcp-servers/service";
import type { ToolsHost } from "./host";
import { REPLAY_SCAN, replayCalls } from "./replay";
import { REPLAY_DEFAULT_CALLS, ToolReplayRequest } from "../../../contracts/tool-shadow";

/** One call of the tools service, as the Worker hands it to the consumer's object; `kind` is its operation. */
export type ToolsCall =
  | {
      kind: "defineTool";
      name: string;
      /** The definition the Worker read and validated, as RPC carries it (../rpc.ts). */
      definition: Carried<ToolDefinition>;
    }
  | { kind: "getTool"; name: string }
  | { kind: "listTools"; format: DeclarationFormat | null; cursor: string | null }
  | { kind: "deleteTool"; name: string }
  | { kind: "toolShadow"; name: string }
  | {
      kind: "replayTool";
      name: string;
      /** The candidate and the limit the Worker read and validated, as RPC carries them. */
      request: Carried<ToolReplayRequest>;
    }
  | { kind: "putSecret"; name: string; value: string }
  | { kind: "deleteSecret"; name: string }
  | { kind: "listSecrets"; cursor: string | null }
  | McpServersCall;

/** The tools service's calls: tools as data, consumer secrets, MCP servers and the tool list. */
export class ToolsCalls {
  constructor(
    private readonly kernel: Pick<ObjectKernel, "audit" | "now" | "limits" | "transaction">,
    private readonly gate: Gatekeeper,
    private readonly host: ToolsHost,
    /** Rebuilt after the tool registry changed. */
    private readonly toolCalls: ToolCallServices,
  ) {}

  /**
   * Runs one tools-service call (`token` null: the admin secret, checked by the Worker). An agent
   * may only read the enabled tools' declarations, within its tool scope (identity/scope.ts).
   */
  async call(consumer: string, token: string | null, call: ToolsCall): Promise<Outcome<string | null>> {
    const who = this.gate.either(consumer, token, call.kind);
    if (!who.ok) return who;
    const { kernel, host } = this;
    const admin = who.value.caller === null;
    const [enabled, scope, now, pageItems] = [
      who.value.config.tools,
      who.value.caller?.tools ?? null,
      kernel.now(),
      kernel.limits().page_items,
    ];
    switch (call.kind) {
      case "defineTool": {
        const definition = received(call.definition, ToolDefinition);
        const defined = kernel.transaction(() => host.data.define(call.name, definition, now));
        if (!defined.ok) return defined;
        this.toolCalls.invalidate();
        return ok(defined.value.view);
      }
      case "getTool":
        return host.data.view(call.name, enabled);
      case "listTools": {
        const registry = host.registry(enabled);
        // Pages by tool name: the declarations of a model's format (those the caller's scope admits, as in MCP's
        // tools/list), or the admin's defined tools (`enabled`, the configuration, whole on each page).
        if (call.format !== null || !admin) {
          const format = call.format ?? "json-schema";
          const page = listPage(
            "tools",
            toolsInScope(scope, declarationInputs(registry)),
            (t) => t.name,
            call.cursor,
            pageItems,
          );
          return page.ok
            ? ok(
                canonicalJson({
                  format,
                  tools: declareTools(page.value.items, format),
                  next_cursor: page.value.next_cursor,
                }),
              )
            : page;
        }
        // eslint-disable-next-line @typescript-eslint/no-base-to-string -- stored definitions were validated: name is a string
        const page = listPage("tools", host.data.list(enabled), (t) => String(t["name"]), call.cursor, pageItems);
        return page.ok
          ? ok(
              canonicalJson({
                enabled: [...registry.keys()].sort(),
                defined: page.value.items,
                next_cursor: page.value.next_cursor,
              }),
            )
          : page;
      }
      case "deleteTool": {
        const disabled = kernel.transaction(() => host.data.disable(call.name, now));
        if (disabled.ok) this.toolCalls.invalidate();
        return disabled.ok ? ok(null) : disabled;
      }
      case "toolShadow":
        return host.shadow.view(call.name, host.data.current(call.name)?.definition);
      case "replayTool":
        return this.#replay(consumer, call.name, received(call.request, ToolReplayRequest), now);
      case "putSecret": {
        if (!host.vault.enabled)
          return fail(problem("INVALID_REQUEST", "The gate has no TOOLGATE_SECRETS_KEY: secrets cannot be stored."));
        if (!host.vault.has(call.name) && host.vault.names().length >= MAX_SECRETS)
          return fail(problem("QUOTA_EXCEEDED", `A consumer holds at most ${MAX_SECRETS} secrets.`));
        const sealed = await host.vault.seal(call.name, call.value);
        kernel.transaction(() => {
          host.vault.store(call.name, sealed, now);
          kernel.audit.append("secret.set", now, { name: call.name });
        });
        return ok(null);
      }
      case "deleteSecret": {
        const deleted = kernel.transaction(() => {
          const had = host.vault.delete(call.name);
          if (had) kernel.audit.append("secret.deleted", now, { name: call.name });
          return had;
        });
        return deleted ? ok(null) : fail(problem("NOT_FOUND", "No such secret."));
      }
      case "listSecrets": {
        const page = listPage("secrets", host.vault.names(), (name) => name, call.cursor, pageItems);
        return page.ok ? ok(canonicalJson({ secrets: page.value.items, next_cursor: page.value.next_cursor })) : page;
      }
      case "registerMcpServer":
      case "importMcpServer":
      case "deleteMcpServer": {
        const done = await host.mcp.call(call, now);
        if (done.ok) this.toolCalls.invalidate();
        return done;
      }
      case "listMcpServers":
      case "getMcpServer":
        return host.mcp.call(call, now, pageItems);
    }
  }

  /**
   * A candidate definition (checked as a PUT would check it, never stored) replayed against the
   * tool's newest calls still held in the audit chain within the retention window (./replay.ts).
   */
  #replay(consumer: string, name: string, request: ToolReplayRequest, now: number): Outcome<string> {
    const { kernel, host } = this;
    if (host.data.current(name) === undefined) return fail(problem("NOT_FOUND", "No such tool."));
    const candidate = host.data.check(name, request.definition);
    if (!candidate.ok) return fail({ ...candidate.error, path: `/definition${candidate.error.path ?? ""}` });
    const since = now - kernel.limits().retention_seconds;
    const bounds = { afterSeq: (kernel.audit.store.head()?.seq ?? 0) - REPLAY_SCAN, since };
    const limit = request.limit ?? REPLAY_DEFAULT_CALLS;
    const entries = kernel.audit.store.newestWith("tool_call", "tool", name, bounds, limit);
    return ok(canonicalJson(replayCalls(name, consumer, candidate.value.rules, entries, since)));
  }
}
