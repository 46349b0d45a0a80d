/**
 * The MCP endpoint's resources, prompts and completion, federated from the consumer's registered
 * MCP servers (docs/mcp.md, "Resources, prompts and completion"): each list asks every server in
 * the session's scope (mcp/federation.ts), each read, get or completion the server that owns the
 * name. Resource reads and prompt gets are audited (digests, never the content).
 * @module
 */
import { canonicalJson, sha256Hex, type Json, type JsonObject } from "../../../core/json";
import * as z from "../../../core/zod";
import { ListParams, RPC_ERRORS } from "../../../contracts/mcp";
import type { FederatedServer } from "../../targets/mcp/federated";
import type { McpContext, McpKernel } from "./context";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { McpReply } from "./service";
import { askOwners, listAll, ownersOf, partialMeta, prefixedContent, serversInScope, type Asked } from "./federation";
import * as jsonRpc from "./rpc";
import { ServerStreams } from "./streams";

/** The methods this module answers. */
export const FEDERATED_METHODS: readonly string[] = [
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "prompts/list",
  "prompts/get",
  "completion/complete",
];

/** The server capabilities of what this module answers (updates of subscribed resources go to the GET stream). */
export const FEDERATED_CAPABILITIES: JsonObject = {
  resources: { subscribe: true, listChanged: false },
  prompts: { listChanged: false },
  completions: {},
};

/**
 * `2025-03-26`, the first version of Streamable HTTP, is taken in a session's `MCP-Protocol-Version`
 * header (clients send it, and the reference SDK server accepts it); the session keeps the
 * version it negotiated.
 */
export const MCP_STREAMABLE_HTTP_VERSION = "2025-03-26";

/** MCP's "resource not found". */
const RESOURCE_NOT_FOUND = -32002;
const Text = z.deferred(() => z.string().check(z.minLength(1), z.maxLength(4_096)));
const UriParams = z.deferred(() => z.looseObject({ uri: Text }));
const GetPromptParams = z.deferred(() =>
  z.looseObject({
    name: Text,
    arguments: z.optional(z.record(z.string(), z.string().check(z.maxLength(65_536)))),
  }),
);
const CompleteParams = z.deferred(() =>
  z.looseObject({
    ref: z.union([
      z.looseObject({ type: z.literal("ref/prompt"), name: Text }),
      z.looseObject({ type: z.literal("ref/resource"), uri: Text }),
    ]),
    argument: z.looseObject({ name: z.string().check(z.maxLength(256)), value: z.string().check(z.maxLength(4_096)) }),
  }),
);
const Completion = z.deferred(() =>
  z.looseObject({
    values: z.array(z.string().check(z.maxLength(4_096))).check(z.maxLength(100)),
    total: z.optional(z.int().check(z.gte(0))),
    hasMore: z.optional(z.boolean()),
  }),
);

/** What the methods use of the MCP service. */
export interface FederationHost {
  /** The consumer's registered servers (mcp-servers/service.ts `federated`). */
  servers(): readonly FederatedServer[];
  /** Appends one audit entry in its own transaction. */
  audit(kind: string, record: JsonObject): void;
  readonly streams: ServerStreams;
  /** Whether a session is still open (an update goes to live sessions only). */
  live(sessionId: string): boolean;
}

/** Where the registered servers come from (mcp-servers/service.ts). */
export interface FederatedServers {
  federated(): FederatedServer[];
}

/** The federated methods and the GET streams of one consumer object. */
export class McpFederation {
  readonly streams = new ServerStreams();
  readonly #host: FederationHost;

  constructor(servers: FederatedServers, kernel: McpKernel, live: (sessionId: string) => boolean) {
    this.#host = {
      servers: () => servers.federated(),
      audit: (kind, record) => {
        const now = kernel.now();
        kernel.transaction(() => kernel.audit.append(kind, now, record));
      },
      streams: this.streams,
      live,
    };
  }

  /** One request of a federated method. */
  handle(ctx: McpContext, method: string, params: JsonObject | undefined): Promise<jsonRpc.Answer> {
    return federated(this.#host, ctx, method, params);
  }

  /** `GET`: a server-to-client stream of the session; `QUOTA_EXCEEDED` when the object holds all it may. */
  open(sessionId: string): Outcome<McpReply> {
    const body = this.streams.open(sessionId);
    if (body === null)
      return fail(problem("QUOTA_EXCEEDED", "The consumer holds as many MCP streams as it may: retry later.", 60));
    return ok({ kind: "stream", body, sessionId });
  }
}

const LISTS: Readonly<Record<string, { member: string; key: string }>> = {
  "resources/list": { member: "resources", key: "uri" },
  "resources/templates/list": { member: "resourceTemplates", key: "uriTemplate" },
  "prompts/list": { member: "prompts", key: "name" },
};

/** One request of a federated method (one of {@link FEDERATED_METHODS}). */
export async function federated(
  host: FederationHost,
  ctx: McpContext,
  method: string,
  params: JsonObject | undefined,
): Promise<jsonRpc.Answer> {
  const servers = serversInScope(host.servers(), ctx.registry, ctx.auth.caller.tools);
  const updated = (server: FederatedServer, uri: string) => host.streams.updated(server.prefix + uri, host.live);
  const list = LISTS[method];
  if (list !== undefined) {
    const parsed = jsonRpc.params(ListParams, params);
    if (!parsed.ok) return parsed.answer;
    if (parsed.value.cursor !== undefined) return jsonRpc.invalidParams(`Invalid cursor: ${method} answers one page.`);
    const listed = await listAll(servers, method, list.member, list.key, updated);
    return jsonRpc.result({ [list.member]: listed.items, ...partialMeta(listed) });
  }
  const who = { credential_id: ctx.auth.caller.credentialId, subject_id: ctx.auth.caller.subjectId };
  switch (method) {
    case "resources/read": {
      const parsed = jsonRpc.params(UriParams, params);
      if (!parsed.ok) return parsed.answer;
      const uri = parsed.value.uri;
      const asked = await askOwners(ownersOf(servers, uri), method, (downstream) => ({ uri: downstream }), updated);
      if (asked.kind !== "result") return refused(asked, method, "Resource not found.");
      const contents = asked.result["contents"];
      if (!Array.isArray(contents)) return unreadable(method);
      const shown = contents.map((item) => prefixedContent(item, asked.owner.server.prefix));
      host.audit("mcp.resource.read", {
        server: asked.owner.server.name,
        uri,
        ...who,
        contents_sha256: sha256Hex(canonicalJson(shown)),
      });
      return jsonRpc.result({ contents: shown });
    }
    case "resources/subscribe": {
      const parsed = jsonRpc.params(UriParams, params);
      if (!parsed.ok) return parsed.answer;
      const uri = parsed.value.uri;
      if (host.streams.subscribed(ctx.session.sessionId, uri)) return jsonRpc.result({});
      const asked = await askOwners(ownersOf(servers, uri), method, (downstream) => ({ uri: downstream }), updated);
      if (asked.kind !== "result") return refused(asked, method, "Resource not found.");
      return host.streams.subscribe(ctx.session.sessionId, uri)
        ? jsonRpc.result({})
        : jsonRpc.error(RPC_ERRORS.refused, "A session subscribes to at most 64 resources.", {
            code: "QUOTA_EXCEEDED",
          });
    }
    case "resources/unsubscribe": {
      const parsed = jsonRpc.params(UriParams, params);
      if (!parsed.ok) return parsed.answer;
      host.streams.unsubscribe(ctx.session.sessionId, parsed.value.uri);
      return jsonRpc.result({});
    }
    case "prompts/get": {
      const parsed = jsonRpc.params(GetPromptParams, params);
      if (!parsed.ok) return parsed.answer;
      const args = parsed.value.arguments;
      const asked = await askOwners(
        ownersOf(servers, parsed.value.name),
        method,
        (downstream) => ({ name: downstream, ...(args === undefined ? {} : { arguments: args }) }),
        updated,
      );
      if (asked.kind !== "result") return refused(asked, method, "Prompt not found.");
      const messages = asked.result["messages"];
      if (!Array.isArray(messages)) return unreadable(method);
      const shown = messages.map((item) => prefixedContent(item, asked.owner.server.prefix));
      const description = asked.result["description"];
      host.audit("mcp.prompt.get", {
        server: asked.owner.server.name,
        name: parsed.value.name,
        ...who,
        arguments_sha256: sha256Hex(canonicalJson(args ?? {})),
        messages_sha256: sha256Hex(canonicalJson(shown)),
      });
      return jsonRpc.result({ ...(typeof description === "string" ? { description } : {}), messages: shown });
    }
    case "completion/complete": {
      const parsed = jsonRpc.params(CompleteParams, params);
      if (!parsed.ok) return parsed.answer;
      const ref = parsed.value.ref;
      const name = ref.type === "ref/prompt" ? ref.name : ref.uri;
      // The request's own members only (its `_meta` stays with the gate); `context` carries earlier arguments.
      const context = params?.["context"];
      const forwarded = (downstream: string): JsonObject => ({
        ref: ref.type === "ref/prompt" ? { type: ref.type, name: downstream } : { type: ref.type, uri: downstream },
        argument: { name: parsed.value.argument.name, value: parsed.value.argument.value },
        ...(context === undefined ? {} : { context }),
      });
      const asked = await askOwners(ownersOf(servers, name), method, forwarded, updated);
      if (asked.kind !== "result") return refused(asked, method, "Nothing to complete for this reference.");
      const completion = Completion.safeParse(asked.result["completion"]);
      return completion.success ? jsonRpc.result({ completion: completion.data as Json }) : unreadable(method);
    }
    default:
      throw new Error(`${method} is not a federated method`);
  }
}

/** No server answered a result: the owner's own error, else why none could answer. */
function refused(asked: Exclude<Asked, { kind: "result" }>, method: string, notFound: string): jsonRpc.Answer {
  const reply = asked.reply;
  if (reply === null)
    return jsonRpc.error(method.startsWith("resources/") ? RESOURCE_NOT_FOUND : RPC_ERRORS.invalidParams, notFound);
  if (reply.kind === "error") return jsonRpc.error(reply.code, reply.message);
  return jsonRpc.error(RPC_ERRORS.refused, `The MCP server did not answer ${method}: ${reply.reason}.`, {
    code: "MCP_SERVER_UNREACHABLE",
  });
}

function unreadable(method: string): jsonRpc.Answer {
  return jsonRpc.error(RPC_ERRORS.refused, `The MCP server's answer to ${method} is not one MCP defines.`, {
    code: "MCP_SERVER_UNREACHABLE",
  });
}
