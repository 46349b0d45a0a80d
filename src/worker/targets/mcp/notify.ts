/**
 * The notifications of a downstream MCP server that one `tools/call` may hand on to the gate's
 * own MCP client while it runs: progress (`notifications/progress` carrying the token the gate
 * sent) and log messages (`notifications/message`). Everything else a server sends is not
 * relayed. docs/mcp.md, "Progress and log messages", is the contract.
 * @module
 */
import { PyFloat, type Json, type JsonObject } from "../../../core/json";
import type { McpRequestSink } from "./requests";

/** MCP's log levels, least severe first (RFC 5424 severities). */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;

/** One log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A downstream notification worth relaying, checked (its token and logger are the gate's to set). */
export type McpNotification =
  | {
      readonly kind: "progress";
      readonly progress: number;
      readonly total: number | null;
      readonly message: string | null;
    }
  | { readonly kind: "log"; readonly level: LogLevel; readonly data: Json };

/** Where one call's downstream notifications go (given for that call only). */
export interface McpNotifySink {
  /** Whether progress is wanted: the downstream `tools/call` then carries a progress token. */
  readonly progress: boolean;
  /** One notification, in the order the server sent them. */
  notify(notification: McpNotification): void;
  /** Where the server's sampling and elicitation requests go; absent: none is relayed. */
  readonly requests?: McpRequestSink;
  /** The server answered `isError`: its content blocks (reduced as a result's are), which the gate's MCP client is shown. */
  readonly refused?: (content: Json[]) => void;
}

/** `notifications/progress`. */
export const PROGRESS = "notifications/progress";
/** `notifications/message` (a log message). */
export const LOG_MESSAGE = "notifications/message";

/** The longest progress message relayed (longer ones are cut). */
const MAX_MESSAGE_CHARS = 1_024;

function numberOf(value: Json | undefined): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  return value instanceof PyFloat ? value.value : null;
}

function isLevel(value: Json | undefined): value is LogLevel {
  return typeof value === "string" && (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * A downstream notification as the sink takes it, or `null` when it is not one to relay: progress
 * must carry `token` (the one the gate sent) and a number; a log message a known level.
 */
export function relayable(
  method: string,
  params: JsonObject | undefined,
  token: string | null,
): McpNotification | null {
  if (params === undefined) return null;
  if (method === PROGRESS) {
    const progress = numberOf(params["progressToken"] === token && token !== null ? params["progress"] : undefined);
    if (progress === null) return null;
    const message = params["message"];
    return {
      kind: "progress",
      progress,
      total: numberOf(params["total"]),
      message: typeof message === "string" ? message.slice(0, MAX_MESSAGE_CHARS) : null,
    };
  }
  if (method === LOG_MESSAGE && isLevel(params["level"]) && Object.hasOwn(params, "data")) {
    return { kind: "log", level: params["level"], data: params["data"] ?? null };
  }
  return null;
}

/** Whether a message at `level` passes a session's minimum level (`null`: logging is off). */
export function admitsLevel(minimum: LogLevel | null, level: LogLevel): boolean {
  return minimum !== null && LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(minimum);
}
