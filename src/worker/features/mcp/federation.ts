/**
 * Which registered MCP servers a credential's session federates, and how their names map
 * (docs/mcp.md, "Resources, prompts and completion"):
 *
 * - **Scope.** A session sees a server's resources, templates and prompts only when the
 *   credential may call at least one of that server's tools: a tool its last import defined,
 *   enabled in the consumer's `tools` and admitted by the credential's tool scope. The grant
 *   model stays the tool scope; nothing else grants a server.
 * - **Names.** As for tools, the server's `prefix` is put before each prompt name, resource URI
 *   and URI template; a name the client sends is routed to the servers whose prefix starts it,
 *   the longest prefix first (then by server name), with the prefix taken off.
 * @module
 */
import { compareCodePoints, type Json, type JsonObject } from "../../../core/json";
import type { ToolRegistry } from "../../../core/tool-result/tool-spec";
import { askServer, type FederatedReply, type FederatedServer } from "../../targets/mcp/federated";
import { admitsTool, type Scope } from "../identity/scope";

const METHOD_NOT_FOUND = -32601;

/** Servers one name is tried on, at most (each try is one session within the server's `timeout_ms`). */
export const MAX_OWNERS_TRIED = 4;
/** Items a federated list answers, every server together; past it the answer says `truncated`. */
export const MAX_LISTED_ITEMS = 256;
/** Pages read of each server's list. */
export const MAX_LIST_PAGES = 4;
/** Bytes read of one answer of a server (a list page, a resource, a prompt). */
export const MAX_ANSWER_BYTES = 1_048_576;

/** The servers a credential's session federates (the module's scope rule). */
export function serversInScope(
  servers: readonly FederatedServer[],
  registry: ToolRegistry,
  scope: Scope,
): FederatedServer[] {
  return servers.filter((server) =>
    server.tools.some((tool) => registry.get(tool) !== undefined && admitsTool(scope, tool)),
  );
}

/** A server that may own a gate name, with the server's own name for it. */
export interface Owner {
  readonly server: FederatedServer;
  readonly downstream: string;
}

/** The servers a gate name may belong to, in the order they are tried. */
export function ownersOf(servers: readonly FederatedServer[], name: string): Owner[] {
  return servers
    .filter((server) => name.length > server.prefix.length && name.startsWith(server.prefix))
    .sort((a, b) => b.prefix.length - a.prefix.length || compareCodePoints(a.name, b.name))
    .slice(0, MAX_OWNERS_TRIED)
    .map((server) => ({ server, downstream: name.slice(server.prefix.length) }));
}

/** What asking the owners came to: the owner that answered a result, or the first owner's refusal. */
export type Asked =
  | { readonly kind: "result"; readonly owner: Owner; readonly result: JsonObject }
  | { readonly kind: "refused"; readonly reply: Exclude<FederatedReply, { kind: "result" }> | null };

/**
 * Asks each owner in turn (`params` of its own name) until one answers a result: a server that
 * answers an error does not hold the name. None answering: the first owner's error, or `null`
 * when no server may own the name.
 */
export async function askOwners(
  owners: readonly Owner[],
  method: string,
  params: (downstream: string) => JsonObject,
  onUpdated: (server: FederatedServer, uri: string) => void,
): Promise<Asked> {
  let first: Exclude<FederatedReply, { kind: "result" }> | null = null;
  for (const owner of owners) {
    const reply = await askServer(owner.server, method, params(owner.downstream), MAX_ANSWER_BYTES, (uri) =>
      onUpdated(owner.server, uri),
    );
    if (reply.kind === "result") return { kind: "result", owner, result: reply.result };
    first ??= reply;
  }
  return { kind: "refused", reply: first };
}

/** A federated list: the items of every server, renamed; `unavailable` names the servers that did not answer. */
export interface Listed {
  readonly items: JsonObject[];
  readonly truncated: boolean;
  readonly unavailable: string[];
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Lists `member` (`resources`, `resourceTemplates`, `prompts`) of each server at once, up to
 * {@link MAX_LIST_PAGES} pages each, keeping the items whose `key` is a string, with the server's
 * prefix put before it; at most {@link MAX_LISTED_ITEMS} together, in the servers' order.
 */
export async function listAll(
  servers: readonly FederatedServer[],
  method: string,
  member: string,
  key: string,
  onUpdated: (server: FederatedServer, uri: string) => void,
): Promise<Listed> {
  const lists = await Promise.all(
    servers.map(async (server) => {
      const items: JsonObject[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const reply = await askServer(server, method, cursor === undefined ? {} : { cursor }, MAX_ANSWER_BYTES, (uri) =>
          onUpdated(server, uri),
        );
        // A server that offers no such list (method not found) has none; any other failure leaves it out.
        if (reply.kind === "error" && reply.code === METHOD_NOT_FOUND && pages === 0) return { items, more: false };
        if (reply.kind !== "result") return pages === 0 ? null : { items, more: true };
        const page = reply.result[member];
        if (!Array.isArray(page)) return pages === 0 ? null : { items, more: true };
        for (const item of page) {
          const name = isObject(item) ? item[key] : undefined;
          if (isObject(item) && typeof name === "string") items.push({ ...item, [key]: server.prefix + name });
        }
        const next = reply.result["nextCursor"];
        cursor = typeof next === "string" && next.length <= 4_096 ? next : undefined;
        pages += 1;
      } while (cursor !== undefined && pages < MAX_LIST_PAGES && items.length < MAX_LISTED_ITEMS);
      return { items, more: cursor !== undefined };
    }),
  );
  const items: JsonObject[] = [];
  const unavailable: string[] = [];
  const cut: boolean[] = [];
  servers.forEach((server, index) => {
    const list = lists[index] ?? null;
    if (list === null) unavailable.push(server.name);
    else {
      cut.push(list.more);
      items.push(...list.items);
    }
  });
  const truncated = cut.includes(true) || items.length > MAX_LISTED_ITEMS;
  return { items: items.slice(0, MAX_LISTED_ITEMS), truncated, unavailable };
}

/** The `_meta` a federated list answers when it is not whole (servers that did not answer, or cut at a bound). */
export function partialMeta(listed: Listed): JsonObject {
  return listed.truncated || listed.unavailable.length > 0
    ? { _meta: { "io.toolgate/partial": { truncated: listed.truncated, unavailable: listed.unavailable } } }
    : {};
}

/** A content item as the client sees it: its `uri` (and an embedded resource's) with the server's prefix. */
export function prefixedContent(item: Json, prefix: string): Json {
  if (!isObject(item) || prefix === "") return item;
  const out: JsonObject = { ...item };
  const uri = item["uri"];
  if (typeof uri === "string") out["uri"] = prefix + uri;
  const resource = item["resource"];
  if (isObject(resource) && typeof resource["uri"] === "string")
    out["resource"] = { ...resource, uri: prefix + resource["uri"] };
  const content = item["content"];
  if (isObject(content)) out["content"] = prefixedContent(content, prefix);
  return out;
}
