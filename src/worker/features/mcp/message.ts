/**
 * Reading one MCP message in the Worker: the `Accept` the answer must fit, the media type, the
 * size cap, the strict JSON reader, and the JSON-RPC envelope (zod), each refusal answered as
 * the JSON-RPC error MCP clients expect.
 * @module
 */
import { readJson, type Json } from "../../../core/json";
import { JsonRpcMessage, RPC_ERRORS, type JsonRpcId } from "../../../contracts/mcp";
import { isJsonMediaType, MAX_BODY_BYTES, readCappedBytes } from "../../http/body";
import { carried, type Carried } from "../../kernel/rpc";
import { problem } from "../../http/problem";
import { rpcProblem, type AnswerFraming } from "./answer";

/** Largest message accepted, in bytes (the cap of every JSON body of the gate). */
export const MCP_MAX_BODY_BYTES = MAX_BODY_BYTES;

/**
 * How a POST's answer is framed, from its `Accept`: JSON when `application/json` (or a range
 * covering it) is acceptable, else one SSE event when `text/event-stream` is; `null` (406)
 * when neither is, or when `Accept` is missing (MCP clients must send it).
 */
export function answerFraming(accept: string | null): AnswerFraming | null {
  const types = acceptedTypes(accept);
  if (types.some((type) => type === "application/json" || type === "application/*" || type === "*/*")) return "json";
  return acceptsEventStream(accept) ? "sse" : null;
}

/** The last `Accept` read and its acceptable types: a client sends the same one with each message, and the route reads it twice. */
let lastAccept: { accept: string | null; types: readonly string[] } | undefined;

/** The media ranges of an `Accept` that are acceptable (a zero `q` is not), lowercase. */
function acceptedTypes(accept: string | null): readonly string[] {
  if (lastAccept?.accept === accept) return lastAccept.types;
  const types = typesOf(accept);
  lastAccept = { accept, types };
  return types;
}

/** {@link acceptedTypes}, read from the header's text. */
function typesOf(accept: string | null): readonly string[] {
  const types: string[] = [];
  for (const range of (accept ?? "").split(",")) {
    const [type = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    if (type !== "" && !params.some((p) => /^q=0(\.0{0,3})?$/.test(p.replace(/\s/g, "")))) types.push(type);
  }
  return types;
}

/**
 * Whether an `Accept` names an event stream (`text/event-stream` or `text/*`, not the bare wildcard): a
 * `tools/call` that relays progress or log messages is then answered as one, whatever else is
 * accepted (MCP clients send `application/json, text/event-stream`).
 */
export function acceptsEventStream(accept: string | null): boolean {
  return acceptedTypes(accept).some((type) => type === "text/event-stream" || type === "text/*");
}

/** The id of a message that failed the envelope, when it has a usable one (else null). */
function idOf(value: Json): JsonRpcId | null {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !Object.hasOwn(value, "id")) return null;
  const id = (value as Record<string, Json>)["id"];
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null;
}

/** What is wrong with a JSON value that is not one JSON-RPC message of MCP (no value echoed). */
function envelopeIssue(value: Json): string {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return "A JSON-RPC message is a JSON object.";
  const record = value as Record<string, Json>;
  if (record["jsonrpc"] !== "2.0") return '$.jsonrpc must be "2.0".';
  if (Object.hasOwn(record, "id") && idOf(value) === null && !Object.hasOwn(record, "error"))
    return "$.id must be a string or an integer.";
  if (!Object.hasOwn(record, "method") && !Object.hasOwn(record, "result") && !Object.hasOwn(record, "error"))
    return "$.method is required.";
  if (Object.hasOwn(record, "method") && typeof record["method"] !== "string") return "$.method must be a string.";
  if (
    Object.hasOwn(record, "params") &&
    (typeof record["params"] !== "object" || record["params"] === null || Array.isArray(record["params"]))
  ) {
    return "$.params must be an object.";
  }
  return "The message is not a JSON-RPC 2.0 request, notification or response of MCP (unknown or misplaced members).";
}

/** One message read and checked, and the value the object receives (read once, here). */
export interface ReadMessage {
  readonly message: JsonRpcMessage;
  readonly carried: Carried<JsonRpcMessage>;
}

/**
 * Reads the body of a POST: `application/json`, at most {@link MCP_MAX_BODY_BYTES} (413), the
 * strict reader (-32700), one message (a batch is -32600), the envelope (-32600). Refusals are
 * answered here, never forwarded.
 */
export async function readMcpMessage(request: Request): Promise<ReadMessage | Response> {
  if (!isJsonMediaType(request.headers.get("content-type"))) {
    return rpcProblem(
      problem("UNSUPPORTED_MEDIA_TYPE", "Send the message as application/json."),
      RPC_ERRORS.invalidRequest,
    );
  }
  const bytes = await readCappedBytes(request, MCP_MAX_BODY_BYTES);
  if (!bytes.ok) return rpcProblem(bytes.error, RPC_ERRORS.invalidRequest);
  const read = readJson(bytes.value, { maxBytes: MCP_MAX_BODY_BYTES });
  if (!read.ok)
    return rpcProblem(
      problem("INVALID_JSON", `Parse error: ${read.error.code}: ${read.error.message}`),
      RPC_ERRORS.parse,
    );
  if (Array.isArray(read.value)) {
    return rpcProblem(
      problem(
        "INVALID_REQUEST",
        "JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message per request.",
      ),
      RPC_ERRORS.invalidRequest,
    );
  }
  const parsed = JsonRpcMessage.safeParse(read.value);
  if (!parsed.success)
    return rpcProblem(
      problem("INVALID_REQUEST", envelopeIssue(read.value)),
      RPC_ERRORS.invalidRequest,
      idOf(read.value),
    );
  const value = carried(parsed.data);
  // The reader applied the value domain: a message outside it is a bug.
  if ("outside" in value) throw new Error(`a read MCP message outside the JSON domain: ${value.outside}`);
  return { message: parsed.data, carried: value };
}
