/**
 * A `tools/call` answered as an event stream (docs/mcp.md, "Progress and log messages"): while
 * the call runs, the downstream MCP server's progress (rewritten to the client's token) and log
 * messages (at or above the session's level, `logger` the tool's name) are written as `message`
 * events as they arrive, at most {@link MAX_RELAYED_NOTIFICATIONS} and
 * {@link MAX_RELAYED_BYTES} per call; the JSON-RPC response is the last event, then the stream
 * closes. A downstream's sampling and elicitation requests, when relayed (mcp/requests.ts), are
 * written on it too, as requests with ids of the gate's. The stream leaves the object over RPC;
 * the call goes on in the object meanwhile.
 * @module
 */
import { canonicalJson, type JsonObject } from "../../../core/json";
import {
  admitsLevel,
  LOG_LEVELS,
  LOG_MESSAGE,
  PROGRESS,
  type LogLevel,
  type McpNotification,
  type McpNotifySink,
} from "../../targets/mcp/notify";
import type { McpRequestSink } from "../../targets/mcp/requests";
import { sseMessage } from "../../targets/mcp/sse";
import type { CallRequests } from "./requests";

/** Notifications relayed per call at most; later ones are dropped. */
export const MAX_RELAYED_NOTIFICATIONS = 64;

/** Bytes of relayed notification events per call at most; once one would pass it, the rest are dropped. */
export const MAX_RELAYED_BYTES = 65_536;

/** The longest string progress token relayed (a longer one asks for no progress). */
const MAX_TOKEN_CHARS = 256;

/** What a relaying call sends on: progress for the client's token, log messages from a level. */
export interface RelayPlan {
  readonly token: string | number | null;
  readonly level: LogLevel | null;
  /** The `logger` of relayed log messages: the tool's name as the client called it. */
  readonly logger: string;
  /** The client capabilities of the session that requests may be relayed for (none: `{}`). */
  readonly capabilities: McpRequestSink["capabilities"];
}

function tokenOf(params: JsonObject | undefined): string | number | null {
  const meta = params?.["_meta"];
  if (typeof meta !== "object" || meta === null || Array.isArray(meta) || !Object.hasOwn(meta, "progressToken"))
    return null;
  const token = (meta as JsonObject)["progressToken"];
  if (typeof token === "string") return token.length <= MAX_TOKEN_CHARS ? token : null;
  return typeof token === "number" && Number.isFinite(token) ? token : null;
}

/**
 * How a `tools/call` relays, or `null` when it does not: it asks for progress
 * (`params._meta.progressToken`), its session set a logging level (`logging/setLevel`), or its
 * client declared sampling or elicitation (a downstream that opted in may then ask it).
 */
export function relayPlan(
  params: JsonObject | undefined,
  sessionLevel: string | null,
  capabilities: RelayPlan["capabilities"] = {},
): RelayPlan | null {
  const token = tokenOf(params);
  const level = (LOG_LEVELS as readonly (string | null)[]).includes(sessionLevel) ? (sessionLevel as LogLevel) : null;
  if (token === null && level === null && Object.keys(capabilities).length === 0) return null;
  const name = params?.["name"];
  return { token, level, logger: typeof name === "string" ? name : "", capabilities };
}

const encoder = new TextEncoder();

/** One SSE `message` event (canonical JSON has no raw line break: one `data:` line). */
function event(message: JsonObject): Uint8Array {
  return encoder.encode(sseMessage(canonicalJson(message)));
}

/** The sink of one call's notifications and the stream they are written to. */
export class McpRelay implements McpNotifySink {
  readonly body: ReadableStream<Uint8Array>;
  readonly progress: boolean;
  readonly requests: CallRequests | undefined;
  readonly #plan: RelayPlan;
  #controller: ReadableByteStreamController | undefined;
  #open = true;
  #count = 0;
  #bytes = 0;

  /** `requests`: makes the call's request relay, given how it writes on this stream (none: no request is relayed). */
  constructor(plan: RelayPlan, requests?: (write: (message: JsonObject) => boolean) => CallRequests) {
    this.#plan = plan;
    this.progress = plan.token !== null;
    this.requests = requests?.((message) => this.#write(message));
    this.body = new ReadableStream({
      type: "bytes",
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        this.#open = false;
      },
    });
  }

  /** The client's notification for a downstream one, or `null` when the session does not want it. */
  #message(notification: McpNotification): JsonObject | null {
    const { token, level, logger } = this.#plan;
    if (notification.kind === "log") {
      return admitsLevel(level, notification.level)
        ? {
            jsonrpc: "2.0",
            method: LOG_MESSAGE,
            params: { level: notification.level, logger, data: notification.data },
          }
        : null;
    }
    if (token === null) return null;
    const params: JsonObject = { progressToken: token, progress: notification.progress };
    if (notification.total !== null) params["total"] = notification.total;
    if (notification.message !== null) params["message"] = notification.message;
    return { jsonrpc: "2.0", method: PROGRESS, params };
  }

  notify(notification: McpNotification): void {
    if (!this.#open || this.#count >= MAX_RELAYED_NOTIFICATIONS) return;
    const message = this.#message(notification);
    if (message === null) return;
    const bytes = event(message);
    if (this.#bytes + bytes.byteLength > MAX_RELAYED_BYTES) {
      this.#count = MAX_RELAYED_NOTIFICATIONS;
      return;
    }
    this.#count += 1;
    this.#bytes += bytes.byteLength;
    this.#controller?.enqueue(bytes);
  }

  /** A relayed request, outside the notification bounds (mcp/requests.ts bounds it); `false` when the stream is gone. */
  #write(message: JsonObject): boolean {
    if (!this.#open || this.#controller === undefined) return false;
    this.#controller.enqueue(event(message));
    return true;
  }

  /**
   * A request of the gate's own to the client (an approval's URL elicitation), under an id of the
   * gate's; its answer is not awaited (it is dropped like any unknown id). `false` when the stream is gone.
   */
  ask(method: string, params: JsonObject): boolean {
    return this.#write({ jsonrpc: "2.0", id: `toolgate-${crypto.randomUUID()}`, method, params });
  }

  /** The JSON-RPC response (canonical JSON text) as the last event; the stream closes. */
  end(response: string): void {
    this.requests?.end();
    if (!this.#open) return;
    this.#open = false;
    this.#controller?.enqueue(encoder.encode(sseMessage(response)));
    this.#controller?.close();
  }

  /** The call failed with a bug: the stream errors (the client sees it cut, as it would see a 500). */
  fail(error: unknown): void {
    this.requests?.end();
    if (!this.#open) return;
    this.#open = false;
    this.#controller?.error(error);
  }
}
