/**
 * Sampling and elicitation requests of a downstream MCP server relayed to the MCP client that
 * made the call (docs/mcp.md, "Sampling and elicitation (opt-in)"): each is checked (at most
 * {@link MAX_RELAYED_REQUESTS} per call, params at most {@link MAX_RELAYED_PARAMS_BYTES}, the
 * method's contract), written on the call's event stream under an id of the gate's, and waits in
 * the object's memory for the client's response, which a later POST of the same session brings;
 * the response goes to the downstream with its own id. Every relayed request is audited
 * (`mcp.relayed`, a digest of its params, never their content).
 * @module
 */
import { canonicalJson, sha256Hex, type JsonObject } from "../../../core/json";
import { CreateMessageParams, ElicitParams, RPC_ERRORS, type JsonRpcId } from "../../../contracts/mcp";
import { describeIssues } from "../../http/body";
import {
  RELAYED_METHODS,
  type McpRequestSink,
  type RelayedAnswer,
  type RelayedMethod,
  type RelayReply,
} from "../../targets/mcp/requests";

/** Requests one call relays at most; later ones are refused. */
export const MAX_RELAYED_REQUESTS = 4;

/** The largest params of a relayed request, as canonical JSON bytes. */
export const MAX_RELAYED_PARAMS_BYTES = 65_536;

/** One relayed request awaiting the client's response. */
interface Pending {
  readonly reply: RelayReply;
  /** Concludes the request (audited once): `answered` when the client's response goes downstream. */
  readonly done: (answered: boolean) => void;
}

/** The relayed requests of every session that await a response, by session and gate id (memory only: a call never outlives its object). */
export class PendingRelays {
  readonly #pending = new Map<string, Pending>();

  /** Requests awaiting a response now (each call's are dropped when it ends). */
  get size(): number {
    return this.#pending.size;
  }

  add(sessionId: string, id: string, pending: Pending): void {
    this.#pending.set(`${sessionId} ${id}`, pending);
  }

  /** Removes and answers the entry of a session's gate id. */
  take(sessionId: string, id: string): Pending | undefined {
    const key = `${sessionId} ${id}`;
    const pending = this.#pending.get(key);
    this.#pending.delete(key);
    return pending;
  }

  /** A response the client POSTed in `sessionId`: forwarded (then `true`) only when its id is a pending request of that session. */
  async answer(sessionId: string, id: JsonRpcId | null, answer: RelayedAnswer): Promise<boolean> {
    const pending = typeof id === "string" ? this.take(sessionId, id) : undefined;
    if (pending === undefined) return false;
    pending.done(true);
    await pending.reply(answer);
    return true;
  }
}

/** What one call's requests use of the service and of its stream. */
export interface CallRequestsHost {
  readonly pending: PendingRelays;
  readonly sessionId: string;
  /** Writes one message on the call's event stream; `false` when the stream is gone. */
  write(message: JsonObject): boolean;
  /** Appends the `mcp.relayed` audit entry of one request. */
  audit(record: JsonObject): void;
}

const encoder = new TextEncoder();

function refuse(reply: RelayReply, code: number, message: string): void {
  void reply({ error: { code, message } });
}

/** The requests of one relaying call (the sink `callMcpTool` hands them to). */
export class CallRequests implements McpRequestSink {
  readonly capabilities: McpRequestSink["capabilities"];
  readonly #host: CallRequestsHost;
  /** Gate id → drops the request unanswered. */
  readonly #open = new Map<string, () => void>();
  #count = 0;
  #ended = false;

  constructor(capabilities: McpRequestSink["capabilities"], host: CallRequestsHost) {
    this.capabilities = capabilities;
    this.#host = host;
  }

  request(
    method: RelayedMethod,
    params: JsonObject | undefined,
    origin: { readonly server: string; readonly tool: string },
    reply: RelayReply,
  ): void {
    if (this.#ended || this.capabilities[RELAYED_METHODS[method]] === undefined)
      return refuse(reply, RPC_ERRORS.methodNotFound, "The client offers no such method.");
    if (++this.#count > MAX_RELAYED_REQUESTS)
      return refuse(
        reply,
        RPC_ERRORS.refused,
        `The gate relays at most ${MAX_RELAYED_REQUESTS} requests per tool call.`,
      );
    const given = params ?? {};
    if (encoder.encode(canonicalJson(given)).byteLength > MAX_RELAYED_PARAMS_BYTES) {
      return refuse(reply, RPC_ERRORS.invalidParams, `Invalid params: larger than ${MAX_RELAYED_PARAMS_BYTES} bytes.`);
    }
    const checked = (method === "sampling/createMessage" ? CreateMessageParams : ElicitParams).safeParse(given);
    if (!checked.success)
      return refuse(reply, RPC_ERRORS.invalidParams, `Invalid params: ${describeIssues(checked.error)}`);
    // The downstream's own `_meta` (its progress token, its task) stays downstream.
    const relayed: JsonObject = {};
    for (const [key, value] of Object.entries(given)) if (key !== "_meta" && key !== "task") relayed[key] = value;
    const id = `toolgate-${crypto.randomUUID()}`;
    const record: JsonObject = {
      server: origin.server,
      tool: origin.tool,
      method,
      request_sha256: sha256Hex(canonicalJson(relayed)),
    };
    let concluded = false;
    const done = (answered: boolean) => {
      if (concluded) return;
      concluded = true;
      this.#open.delete(id);
      this.#host.audit({ ...record, answered });
    };
    const { pending, sessionId } = this.#host;
    pending.add(sessionId, id, { reply, done });
    this.#open.set(id, () => {
      pending.take(sessionId, id);
      done(false);
    });
    if (!this.#host.write({ jsonrpc: "2.0", id, method, params: relayed })) {
      pending.take(sessionId, id);
      this.#open.delete(id);
      refuse(reply, RPC_ERRORS.methodNotFound, "The client is no longer listening.");
    }
  }

  /** The call ended: requests still unanswered are forgotten (audited as unanswered); later ones are refused. */
  end(): void {
    this.#ended = true;
    for (const drop of [...this.#open.values()]) drop();
  }
}
