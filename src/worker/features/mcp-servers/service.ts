import { canonicalJson, readJson, type Json, type JsonObject } from "../../../core/json";
import { compareCodePoints } from "../../../core/json";
import { McpServerRegistration } from "../../../contracts/mcp-server";
import type { ToolDefinition } from "../../../contracts/tool-definition";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import { DEFAULT_LIMITS } from "../../kernel/limits";
import { listPage } from "../../kernel/list-page";
import { listTools, type ListedTools, type McpEndpoint } from "../../targets/mcp/client";
import type { McpToolRelay } from "../../targets/mcp/requests";
import type { FederatedServer } from "../../targets/mcp/federated";
import type { ObjectKernel } from "../../kernel/kernel";
import { received, type Carried } from "../../kernel/rpc";
import type { SecretVault } from "../secrets/vault";
import { STORED_JSON } from "../../kernel/sql";
import { checkUrl } from "../tools/build";
import type { DataTools } from "../tools/service";
import { isImportOf, mergeImported, planImport, type ImportSource, type RefusedTool } from "./import";
import { McpServerStore, RELAY_ELICITATION, RELAY_SAMPLING, type StoredMcpServer } from "./store";

/** Servers a consumer may register. */
export const MAX_MCP_SERVERS = 16;
/** Tools one import reads from a server (more are reported as `truncated`). */
export const MAX_IMPORTED_TOOLS = 128;
const MAX_LIST_PAGES = 16;
const MAX_LIST_BYTES = 1_048_576;
const IMPORT_TIMEOUT_MS = 15_000;

/** One call of the MCP servers service, as the Worker hands it to the consumer's object; `kind` is its operation. */
export type McpServersCall =
  | {
      kind: "registerMcpServer";
      /** The registration the Worker read and validated, as RPC carries it (../rpc.ts). */
      registration: Carried<McpServerRegistration>;
    }
  | { kind: "listMcpServers"; cursor: string | null }
  | { kind: "getMcpServer"; name: string }
  | { kind: "importMcpServer"; name: string }
  | { kind: "deleteMcpServer"; name: string };

/** What the registered servers use of the kernel: their table, the audit chain, the target rule, one transaction step. */
type McpServersKernel = Pick<ObjectKernel, "sql" | "audit" | "targets" | "transaction">;

interface ImportedTool {
  name: string;
  downstream: string;
  risk: "read" | "write";
  revision: number;
  change: "new" | "updated" | "unchanged";
}

function stored(text: string): Json {
  const read = readJson(text, STORED_JSON);
  if (!read.ok) throw new Error("a stored MCP server is not strict JSON");
  return read.value;
}

function storedTools(server: StoredMcpServer): Array<{ name: string; downstream: string }> {
  return stored(server.tools) as Array<{ name: string; downstream: string }>;
}

/** The relay bits as the admin reads them. */
function relayView(bits: number): { sampling: boolean; elicitation: boolean } {
  return { sampling: (bits & RELAY_SAMPLING) !== 0, elicitation: (bits & RELAY_ELICITATION) !== 0 };
}

function view(server: StoredMcpServer): JsonObject {
  return {
    name: server.name,
    url: server.url,
    prefix: server.prefix,
    auth: server.auth === null ? null : stored(server.auth),
    timeout_ms: server.timeoutMs,
    relay: relayView(server.relay),
    protocol_version: server.protocolVersion,
    server_info: stored(server.serverInfo),
    tools: stored(server.tools),
    registered_at: server.registeredAt,
    imported_at: server.importedAt,
    stale: server.listChangedAt !== null,
    list_changed_at: server.listChangedAt,
  };
}

const byDownstream = (a: { downstream: string }, b: { downstream: string }) =>
  compareCodePoints(a.downstream, b.downstream);

/**
 * Downstream MCP servers of a consumer: registration imports a server's `tools/list` as tool
 * definitions (stored, not enabled), a re-import stores what changed as new versions, and a
 * server that announces `notifications/tools/list_changed` is marked stale until re-imported.
 */
export class McpServers {
  readonly #table: McpServerStore;
  readonly #kernel: McpServersKernel;
  readonly #data: DataTools;
  readonly #vault: SecretVault;
  /** The fetch of every consumer-defined target: the target rule again before each request. */
  readonly #fetch: (request: Request) => Promise<Response>;

  constructor(
    kernel: McpServersKernel,
    data: DataTools,
    vault: SecretVault,
    fetch: (request: Request) => Promise<Response>,
  ) {
    this.#kernel = kernel;
    this.#data = data;
    this.#vault = vault;
    this.#fetch = fetch;
    this.#table = new McpServerStore(kernel.sql);
  }

  /**
   * Runs one call of the service (the admin's; the object checked who calls). Definitions it wrote
   * need a registry rebuild. `pageItems`: the consumer's page size (the list's).
   */
  async call(
    call: McpServersCall,
    now: number,
    pageItems: number = DEFAULT_LIMITS.page_items,
  ): Promise<Outcome<string | null>> {
    switch (call.kind) {
      case "registerMcpServer":
        return this.#register(received(call.registration, McpServerRegistration), now);
      case "listMcpServers": {
        const page = listPage("mcp-servers", this.#table.list(), (server) => server.name, call.cursor, pageItems);
        return page.ok
          ? ok(canonicalJson({ servers: page.value.items.map(view), next_cursor: page.value.next_cursor }))
          : page;
      }
      case "getMcpServer": {
        const server = this.#table.get(call.name);
        return server === undefined
          ? fail(problem("NOT_FOUND", "No such MCP server."))
          : ok(canonicalJson(view(server)));
      }
      case "importMcpServer": {
        const server = this.#table.get(call.name);
        if (server === undefined) return fail(problem("NOT_FOUND", "No such MCP server."));
        const source: ImportSource = {
          name: server.name,
          url: server.url,
          prefix: server.prefix,
          auth: server.auth === null ? null : (stored(server.auth) as ImportSource["auth"]),
          timeoutMs: server.timeoutMs,
          relay: server.relay,
        };
        return this.#import(source, server.registeredAt, now, false);
      }
      case "deleteMcpServer":
        return this.#delete(call.name, now);
    }
  }

  /**
   * The relay setting of the gate tool `name` whose target is tool `downstream` at `url`, read at
   * call time (a re-import or a new registration is reflected at once); `null` when no registered
   * server's last import defined it.
   */
  relayOf(name: string, url: string, downstream: string): McpToolRelay | null {
    for (const server of this.#table.atUrl(url)) {
      if (storedTools(server).some((t) => t.name === name && t.downstream === downstream))
        return { server: server.name, ...relayView(server.relay) };
    }
    return null;
  }

  /**
   * The registered servers as the MCP endpoint federates their resources and prompts, each with
   * the enabled tools its last import still defines (who may see a server: mcp/federation.ts).
   */
  federated(): FederatedServer[] {
    return this.#table.list().map((server) => {
      const auth = server.auth === null ? null : (stored(server.auth) as { secret: string; prefix: string });
      const tools = storedTools(server).filter((tool) => {
        const current = this.#data.current(tool.name);
        return current?.enabled === true && isImportOf(current.definition, server.url, tool.downstream);
      });
      return {
        name: server.name,
        url: server.url,
        prefix: server.prefix,
        timeoutMs: server.timeoutMs,
        tools: tools.map((tool) => tool.name),
        fetch: this.#fetch,
        authorization: async () => {
          if (auth === null) return null;
          const secret = await this.#vault.open(auth.secret);
          return secret === undefined ? undefined : auth.prefix + secret;
        },
      };
    });
  }

  /** A server at `url` announced a changed tool list: mark it stale (once, audited) until it is imported again. */
  listChanged(url: string, now: number): void {
    this.#kernel.transaction(() => {
      for (const name of this.#table.markListChanged(url, now))
        this.#kernel.audit.append("mcp_server.list_changed", now, { name });
    });
  }

  #register(registration: McpServerRegistration, now: number): Promise<Outcome<string>> | Outcome<string> {
    const refusedUrl = checkUrl(registration.url, "/url", this.#kernel.targets);
    if (refusedUrl !== null)
      return fail({ ...problem("INVALID_REQUEST", refusedUrl.message), path: refusedUrl.pointer });
    const auth = registration.auth ?? null;
    if (auth !== null && !this.#vault.has(auth.secret))
      return fail({
        ...problem("INVALID_REQUEST", `No secret named "${auth.secret}" (PUT …/secrets/${auth.secret} first).`),
        path: "/auth/secret",
      });
    const admissible = this.#admissible(registration.name);
    if (!admissible.ok) return admissible;
    const relay =
      (registration.relay.sampling ? RELAY_SAMPLING : 0) | (registration.relay.elicitation ? RELAY_ELICITATION : 0);
    const source: ImportSource = {
      name: registration.name,
      url: registration.url,
      prefix: registration.prefix,
      auth,
      timeoutMs: registration.timeout_ms,
      relay,
    };
    return this.#import(source, now, now, true);
  }

  #admissible(name: string): Outcome<null> {
    if (this.#table.get(name) !== undefined)
      return fail(
        problem(
          "MCP_SERVER_EXISTS",
          `An MCP server named "${name}" is registered (POST …/mcp-servers/${name}/import imports it again).`,
        ),
      );
    if (this.#table.count() >= MAX_MCP_SERVERS)
      return fail(problem("QUOTA_EXCEEDED", `A consumer registers at most ${MAX_MCP_SERVERS} MCP servers.`));
    return ok(null);
  }

  /** Lists the server's tools (outside any transaction), then stores the server and its definitions in one. */
  async #import(
    source: ImportSource,
    registeredAt: number,
    now: number,
    registering: boolean,
  ): Promise<Outcome<string>> {
    let authorization: string | null = null;
    if (source.auth !== null) {
      const secret = await this.#vault.open(source.auth.secret);
      if (secret === undefined)
        return fail(
          problem(
            "INVALID_REQUEST",
            `The secret "${source.auth.secret}" cannot be opened (PUT …/secrets/${source.auth.secret} again).`,
          ),
        );
      authorization = source.auth.prefix + secret;
    }
    let changed = false;
    const endpoint: McpEndpoint = {
      url: source.url,
      headers: authorization === null ? {} : { authorization },
      fetch: this.#fetch,
      signal: AbortSignal.timeout(IMPORT_TIMEOUT_MS),
      onListChanged: () => {
        changed = true;
      },
    };
    const listed = await listTools(endpoint, {
      maxTools: MAX_IMPORTED_TOOLS,
      maxPages: MAX_LIST_PAGES,
      maxBytes: MAX_LIST_BYTES,
    });
    if (!listed.ok)
      return fail(
        problem("MCP_SERVER_UNREACHABLE", `The MCP server "${source.name}" could not be imported: ${listed.error}.`),
      );
    return this.#kernel.transaction(() => this.#store(source, listed.value, registeredAt, now, registering, changed));
  }

  #store(
    source: ImportSource,
    listed: ListedTools,
    registeredAt: number,
    now: number,
    registering: boolean,
    changed: boolean,
  ): Outcome<string> {
    const previous = this.#table.get(source.name);
    if (registering) {
      const admissible = this.#admissible(source.name);
      if (!admissible.ok) return admissible;
    } else if (previous === undefined) {
      return fail(problem("NOT_FOUND", "No such MCP server."));
    }
    const { planned, refused } = planImport(source, listed.tools);
    const imported: ImportedTool[] = [];
    for (const tool of planned) {
      const result = this.#define(source, tool.name, tool.downstream, tool.definition, now);
      if ("reason" in result) refused.push(result);
      else imported.push(result);
    }
    const listedNames = new Set(listed.tools.map((t) => t["name"]));
    const gone = previous === undefined ? [] : storedTools(previous).filter((t) => !listedNames.has(t.downstream));
    for (const list of [imported, refused, gone]) list.sort(byDownstream);
    const server: StoredMcpServer = {
      name: source.name,
      url: source.url,
      prefix: source.prefix,
      auth: source.auth === null ? null : canonicalJson({ ...source.auth }),
      timeoutMs: source.timeoutMs,
      relay: source.relay ?? 0,
      protocolVersion: listed.protocolVersion,
      serverInfo: canonicalJson(listed.serverInfo),
      tools: canonicalJson(imported.map((t) => ({ name: t.name, downstream: t.downstream }))),
      registeredAt,
      importedAt: now,
      listChangedAt: changed ? now : null,
    };
    this.#table.put(server);
    if (registering)
      this.#kernel.audit.append("mcp_server.registered", now, {
        name: source.name,
        prefix: source.prefix,
        protocol_version: listed.protocolVersion,
        relay: relayView(source.relay ?? 0),
      });
    this.#kernel.audit.append("mcp_server.imported", now, {
      name: source.name,
      imported: imported.map((t) => ({ name: t.name, version: t.revision })),
      refused: refused.map((t) => t.downstream),
      gone: gone.map((t) => t.name),
    });
    return ok(canonicalJson({ server: view(server), imported, refused, gone, truncated: listed.truncated }));
  }

  /** Defines one imported tool over what is stored under its name (this server's tool only), keeping the admin's rules. */
  #define(
    source: ImportSource,
    name: string,
    downstream: string,
    fresh: ToolDefinition,
    now: number,
  ): ImportedTool | RefusedTool {
    const data = this.#data;
    const current = data.current(name);
    if (current !== undefined && !isImportOf(current.definition, source.url, downstream))
      return { downstream, reason: `the name "${name}" is another tool's` };
    const definition = current === undefined ? fresh : mergeImported(current.definition, fresh);
    const defined = data.define(name, definition, now);
    if (!defined.ok)
      return {
        downstream,
        reason:
          defined.error.path === undefined || defined.error.path === ""
            ? defined.error.detail
            : `${defined.error.path}: ${defined.error.detail}`,
      };
    const version = data.current(name)?.version ?? 0;
    const change = current === undefined ? "new" : version === current.version ? "unchanged" : "updated";
    return { name, downstream, risk: definition.risk, revision: version, change };
  }

  /** Unregisters a server and disables the definitions its last import wrote (their history stays). */
  #delete(name: string, now: number): Outcome<string> {
    return this.#kernel.transaction((): Outcome<string> => {
      const server = this.#table.get(name);
      if (server === undefined) return fail(problem("NOT_FOUND", "No such MCP server."));
      const disabled: string[] = [];
      for (const tool of storedTools(server)) {
        const current = this.#data.current(tool.name);
        if (current === undefined || !current.enabled || !isImportOf(current.definition, server.url, tool.downstream))
          continue;
        if (this.#data.disable(tool.name, now).ok) disabled.push(tool.name);
      }
      this.#table.delete(name);
      this.#kernel.audit.append("mcp_server.deleted", now, { name, disabled });
      return ok(canonicalJson({ name, disabled }));
    });
  }
}
