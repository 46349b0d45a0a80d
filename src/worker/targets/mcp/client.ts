/**
 * The gate's client of MCP servers (Streamable HTTP, protocol 2025-11-25 and the versions before
 * it back to 2024-11-05). One session per exchange: `initialize`, `notifications/initialized`,
 * the exchange's requests, then `DELETE` of the session (best effort). Every answer is read as
 * JSON or as an SSE stream, capped in bytes, bounded by the exchange's deadline, through the
 * strict JSON reader; no redirect is followed. Requests the server makes of the client on a
 * stream are answered (`ping`), handed to `onRequest` (on a `tools/call`'s answer, when the
 * exchange declared client capabilities), or refused.
 * @module
 */
import { canonicalJson, readJson, type Json, type JsonObject } from "../../../core/json";
import { err, ok, type Result } from "../../../core/result";
import * as z from "../../../core/zod";
import { JsonObjectValue } from "../../../contracts/registry";
import type { RelayReply } from "./requests";
import { mediaType } from "../../http/body";
import { describeFailure, lost, paramsOf, RpcMessage, type McpFailure, type McpReply } from "./rpc";
import { AnswerStop, readAnswer, readEvents } from "./sse";

/** The version the gate asks for; it accepts what the server answers if it is one of {@link MCP_PROTOCOL_VERSIONS}. */
export const MCP_PROTOCOL_VERSION = "2025-11-25";
/** Versions whose `tools/list` and `tools/call` the gate reads. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/** `notifications/tools/list_changed`: the server's tools changed since they were listed. */
export const LIST_CHANGED = "notifications/tools/list_changed";

const SMALL_ANSWER_BYTES = 65_536;
const MAX_SERVER_REQUESTS = 8;
const CLOSE_TIMEOUT_MS = 1_000;
const CLIENT_INFO = { name: "toolgate", version: "0.1.0" };
const SESSION_ID = /^[\x21-\x7e]{1,256}$/;

export { describeFailure, type McpFailure, type McpReply } from "./rpc";

/** Where and how one exchange reaches a server. */
export interface McpEndpoint {
  readonly url: string;
  /** Sent on every request (the `Authorization` of the target's `auth`). */
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch: (request: Request) => Promise<Response>;
  /** The identity headers of one request (signed afresh for each one sent), if the exchange carries them. */
  readonly sign?: (method: string, url: string, body: string) => Promise<Readonly<Record<string, string>>>;
  /** The exchange's deadline. */
  readonly signal: AbortSignal;
  /** Called (once per exchange) when the server announces `notifications/tools/list_changed`. */
  readonly onListChanged?: () => void;
  /** Called with every other notification the server sends in an answer (method, object params), in order. */
  readonly onNotification?: (method: string, params: JsonObject | undefined) => void;
  /** The client capabilities `initialize` declares (none by default). */
  readonly capabilities?: JsonObject;
  /** A request of the server's on a `tools/call`'s answer: `true` when taken (it answers through `reply`, once), `false` to refuse it. */
  readonly onRequest?: (method: string, params: JsonObject | undefined, reply: RelayReply) => boolean;
}

/** One session with one server (see the module's comment). */
export class McpSession {
  readonly #endpoint: McpEndpoint;
  readonly #aborted: Promise<never>;
  #sessionId: string | null = null;
  #version: string | null = null;
  #nextId = 0;
  #listChanged = false;
  #serverRequests = 0;
  #serverInfo: JsonObject = {};
  /** The answer being read is a `tools/call`'s: the server's requests may go to `onRequest`. */
  #relaying = false;
  #closed = false;

  private constructor(endpoint: McpEndpoint) {
    this.#endpoint = endpoint;
    this.#aborted = new Promise<never>((_, reject) => {
      const stop = () => reject(new AnswerStop("no answer in time"));
      if (endpoint.signal.aborted) stop();
      else endpoint.signal.addEventListener("abort", stop, { once: true });
    });
    this.#aborted.catch(() => undefined);
  }

  /** The negotiated protocol version. */
  get protocolVersion(): string {
    return this.#version ?? MCP_PROTOCOL_VERSION;
  }

  /** The server's `serverInfo` (name, version, …) as it answered it. */
  get serverInfo(): JsonObject {
    return this.#serverInfo;
  }

  /** `initialize`, then `notifications/initialized`; a failure says why the server cannot be used. */
  static async open(endpoint: McpEndpoint): Promise<Result<McpSession, McpFailure>> {
    const session = new McpSession(endpoint);
    const params = {
      protocolVersion: MCP_PROTOCOL_VERSION,
      capabilities: endpoint.capabilities ?? {},
      clientInfo: CLIENT_INFO,
    };
    const init = await session.request("initialize", params, { retry: true, maxBytes: SMALL_ANSWER_BYTES });
    if (init.kind !== "result") {
      await session.close();
      return err(init);
    }
    const version = init.result["protocolVersion"];
    if (typeof version !== "string" || !MCP_PROTOCOL_VERSIONS.includes(version)) {
      await session.close();
      return err(
        lost(
          `the server speaks an MCP protocol version the gate does not (${typeof version === "string" ? version.slice(0, 32) : "none"})`,
        ),
      );
    }
    session.#version = version;
    const info = init.result["serverInfo"];
    if (typeof info === "object" && info !== null && !Array.isArray(info)) session.#serverInfo = info as JsonObject;
    const sent = await session.#post(
      { jsonrpc: "2.0", method: "notifications/initialized" },
      null,
      true,
      SMALL_ANSWER_BYTES,
    );
    if (sent !== null) {
      await session.close();
      return err(sent.kind === "result" ? lost("the server answered a notification") : sent);
    }
    return ok(session);
  }

  /** One request of the session; `retry`: it may be sent once more after a connection failure (idempotent requests only). */
  async request(method: string, params: JsonObject, options: { retry: boolean; maxBytes: number }): Promise<McpReply> {
    const id = ++this.#nextId;
    this.#relaying = method === "tools/call";
    const reply = await this.#post({ jsonrpc: "2.0", id, method, params }, id, options.retry, options.maxBytes);
    return reply ?? lost("the server accepted a request without answering it");
  }

  /** Ends the session on the server (`DELETE`, best effort, its own short deadline). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#sessionId === null) return;
    const headers = await this.#headers("DELETE", "");
    this.#sessionId = null;
    try {
      const request = new Request(this.#endpoint.url, {
        method: "DELETE",
        headers,
        signal: AbortSignal.timeout(CLOSE_TIMEOUT_MS),
        redirect: "manual",
      });
      const response = await this.#endpoint.fetch(request);
      await response.body?.cancel();
    } catch {
      // The server forgets the session on its own.
    }
  }

  async #headers(method: string, body: string): Promise<Record<string, string>> {
    const headers: Record<string, string> = { ...this.#endpoint.headers };
    if (method === "POST") {
      headers["content-type"] = "application/json";
      headers["accept"] = "application/json, text/event-stream";
    }
    if (this.#sessionId !== null) headers["mcp-session-id"] = this.#sessionId;
    if (this.#version !== null) headers["mcp-protocol-version"] = this.#version;
    return { ...headers, ...((await this.#endpoint.sign?.(method, this.#endpoint.url, body)) ?? {}) };
  }

  async #send(body: string, retry: boolean): Promise<Response> {
    const { url, fetch, signal } = this.#endpoint;
    const make = async () =>
      new Request(url, {
        method: "POST",
        headers: await this.#headers("POST", body),
        body,
        signal,
        redirect: "manual",
      });
    try {
      return await fetch(await make());
    } catch (error) {
      if (!retry || signal.aborted) throw error;
      return fetch(await make());
    }
  }

  /** Sends one message; a request (`expectId`) answers its reply, a notification or response `null` once accepted. */
  async #post(
    message: JsonObject,
    expectId: number | null,
    retry: boolean,
    maxBytes: number,
  ): Promise<McpReply | null> {
    const body = canonicalJson(message);
    let response: Response;
    try {
      response = await this.#send(body, retry);
    } catch {
      return lost(this.#endpoint.signal.aborted ? "no answer in time" : "the connection failed");
    }
    const sessionId = response.headers.get("mcp-session-id");
    if (message["method"] === "initialize" && sessionId !== null && SESSION_ID.test(sessionId))
      this.#sessionId = sessionId;
    if (response.status === 429 || !response.ok || expectId === null || response.body === null) {
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 429) return { kind: "rate_limited" };
      if (!response.ok) return lost(`HTTP ${response.status}`);
      return expectId === null ? null : lost("an empty answer");
    }
    const type = mediaType(response.headers.get("content-type"));
    const answer = response.body as ReadableStream<Uint8Array>;
    try {
      if (type === "application/json") {
        const bytes = await readAnswer(answer, maxBytes, this.#aborted);
        // A fault in handling a parsed answer is a bug and propagates; only reading faults become `lost`.
        // eslint-disable-next-line @typescript-eslint/return-await
        return this.#fromJson(bytes, expectId, maxBytes);
      }
      if (type === "text/event-stream") return await this.#fromSse(answer, expectId, maxBytes);
      await response.body.cancel();
      return lost("an answer that is neither JSON nor an event stream");
    } catch (error) {
      return lost(
        error instanceof AnswerStop
          ? error.message
          : this.#endpoint.signal.aborted
            ? "no answer in time"
            : "the answer could not be read",
      );
    }
  }

  async #fromJson(bytes: Uint8Array, expectId: number, maxBytes: number): Promise<McpReply> {
    const read = readJson(bytes, { maxBytes });
    if (!read.ok) return lost("an answer that is not strict JSON");
    return (await this.#handle(read.value, expectId)) ?? lost("an answer without the request's id");
  }

  async #fromSse(body: ReadableStream<Uint8Array>, expectId: number, maxBytes: number): Promise<McpReply> {
    const reply = await readEvents(body, maxBytes, this.#aborted, async (data) => {
      const read = readJson(data, { maxBytes });
      return read.ok ? this.#handle(read.value, expectId) : lost("an event that is not strict JSON");
    });
    return reply ?? lost("the stream ended without the answer");
  }

  /** One JSON-RPC message (or a batch) of an answer: the awaited reply, or `null` to read on. */
  async #handle(value: Json, expectId: number): Promise<McpReply | null> {
    for (const item of Array.isArray(value) ? value : [value]) {
      const message = RpcMessage.safeParse(item);
      if (!message.success) return lost("a message that is not JSON-RPC 2.0");
      const { id, method, result, error } = message.data;
      if (method !== undefined) {
        if (id !== undefined && id !== null) await this.#answer(id, method, paramsOf(item));
        else if (method === LIST_CHANGED) {
          if (!this.#listChanged) this.#endpoint.onListChanged?.();
          this.#listChanged = true;
        } else this.#endpoint.onNotification?.(method, paramsOf(item));
        continue;
      }
      if (id !== expectId) continue;
      if (error !== undefined) return { kind: "error", code: error.code, message: error.message.slice(0, 256) };
      return result === undefined
        ? lost("a response without a result")
        : { kind: "result", result: result as JsonObject };
    }
    return null;
  }

  /**
   * A request of the server's: `ping` answers `{}`; on a `tools/call`'s answer `onRequest` may take
   * it (the answer is sent when it comes, while the stream is read on); anything else "method not found".
   */
  async #answer(id: string | number, method: string, params: JsonObject | undefined): Promise<void> {
    if (++this.#serverRequests > MAX_SERVER_REQUESTS) return;
    const send = (answer: JsonObject) =>
      this.#post({ jsonrpc: "2.0", id, ...answer }, null, false, SMALL_ANSWER_BYTES).then(() => undefined);
    const reply: RelayReply = async (answer) => (this.#closed ? undefined : send(answer));
    if (method !== "ping" && this.#relaying && this.#endpoint.onRequest?.(method, params, reply) === true) return;
    await send(
      method === "ping" ? { result: {} } : { error: { code: -32601, message: "The client offers no such method." } },
    );
  }
}

/** What `tools/list` answered, every page read (bounded). */
export interface ListedTools {
  readonly tools: readonly JsonObject[];
  /** The server has more pages, or more tools, than the bounds read. */
  readonly truncated: boolean;
  readonly protocolVersion: string;
  readonly serverInfo: JsonObject;
}

const ToolsPage = z.deferred(() =>
  z.object({
    tools: z.array(JsonObjectValue).check(z.maxLength(1_000)),
    nextCursor: z.optional(z.string().check(z.maxLength(4_096))),
  }),
);

/** Lists a server's tools in one session: pages until `maxTools` tools or `maxPages` pages, each answer at most `maxBytes`. */
export async function listTools(
  endpoint: McpEndpoint,
  bounds: { maxTools: number; maxPages: number; maxBytes: number },
): Promise<Result<ListedTools, string>> {
  const opened = await McpSession.open(endpoint);
  if (!opened.ok) return err(describeFailure(opened.error, "initialize"));
  const session = opened.value;
  try {
    const tools: JsonObject[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const reply = await session.request("tools/list", cursor === undefined ? {} : { cursor }, {
        retry: true,
        maxBytes: bounds.maxBytes,
      });
      if (reply.kind !== "result") return err(describeFailure(reply, "tools/list"));
      const page = ToolsPage.safeParse(reply.result);
      if (!page.success) return err("tools/list: an answer that is not a list of tools");
      tools.push(...(page.data.tools as JsonObject[]));
      cursor = page.data.nextCursor;
      pages += 1;
    } while (cursor !== undefined && tools.length < bounds.maxTools && pages < bounds.maxPages);
    const truncated = cursor !== undefined || tools.length > bounds.maxTools;
    return ok({
      tools: tools.slice(0, bounds.maxTools),
      truncated,
      protocolVersion: session.protocolVersion,
      serverInfo: session.serverInfo,
    });
  } finally {
    await session.close();
  }
}

/** What one `tools/call` exchange came to; `not_started`: the session failed before the call was sent. */
export type McpCallReply = McpReply | { readonly kind: "not_started"; readonly failure: McpFailure };

/** Calls one tool in its own session (`params`: `name`, `arguments`, `_meta`); `retry` for reads only. */
export async function callTool(
  endpoint: McpEndpoint,
  params: JsonObject,
  options: { retry: boolean; maxBytes: number },
): Promise<McpCallReply> {
  const opened = await McpSession.open(endpoint);
  if (!opened.ok) return { kind: "not_started", failure: opened.error };
  try {
    return await opened.value.request("tools/call", params, options);
  } finally {
    await opened.value.close();
  }
}

/**
 * One request of any other method (`resources/read`, `prompts/get`, `completion/complete`, …) in
 * its own session. These are reads: sent once more after a connection lost before any answer.
 */
export async function requestOnce(
  endpoint: McpEndpoint,
  method: string,
  params: JsonObject,
  maxBytes: number,
): Promise<McpCallReply> {
  const opened = await McpSession.open(endpoint);
  if (!opened.ok) return { kind: "not_started", failure: opened.error };
  try {
    return await opened.value.request(method, params, { retry: true, maxBytes });
  } finally {
    await opened.value.close();
  }
}
