import {
  checkpointPurgeDeleted,
  checkpointPurgeFailed,
  decodeEnvelope,
  encodeChecked,
  facadeFailed,
  facadePrepared,
  facadeRejected,
  facadeResult,
  replyMetadata,
  type Envelope,
  type Metadata,
} from "../../core/wire";
import { problem, type Problem } from "../problem";
import { fail, ok, type Outcome } from "../result";
import type { AuditChain } from "./audit-chain";
import { handleFacadeRequest, type FacadeAnswer } from "./runtime-facade";
import { replyMessageId } from "./runtime-identity";
import { RuntimeOutbox } from "./runtime-outbox";
import { CheckpointPurger } from "./runtime-purge";
import { IN_PROGRESS_RETRY_SECONDS, type ToolCallPlane } from "./tool-calls";

/** Largest envelope accepted, in UTF-8 bytes (over HTTP and per WebSocket message). */
export const MAX_ENVELOPE_BYTES = 1_048_576;

/** Hibernation tag of runtime WebSockets. */
export const RUNTIME_SOCKET_TAG = "runtime";

/** The gate's answer to one envelope: one envelope (200), or none (202, kept or acknowledged). */
export type RuntimeReply = { status: 200; envelope: string } | { status: 202; envelope: null };

/** What the transport uses of the consumer object. */
export interface RuntimeHost {
  readonly ctx: DurableObjectState;
  readonly sql: SqlStorage;
  readonly audit: AuditChain;
  readonly bucket: R2Bucket | undefined;
  /** Unix seconds. */
  now(): number;
  transaction<T>(step: () => T): T;
  /** The configured consumer and its tool-call plane. */
  plane(): { consumer: string; plane: ToolCallPlane };
}

/** A refused envelope as a problem carrying the codec's code (and path, for `unknown_field`). */
function refusal(error: { code: Problem["code"]; message: string; path: string | null }): Problem {
  return error.path === null ? { code: error.code, detail: error.message } : { code: error.code, detail: error.message, path: error.path };
}

function encoded(value: Envelope): string {
  const checked = encodeChecked(value);
  if (!checked.ok) throw new Error(`the gate built an invalid envelope: ${checked.error.message}`);
  return checked.text;
}

function facadeEnvelope(meta: Metadata, answer: FacadeAnswer): Envelope {
  switch (answer.type) {
    case "result":
      return facadeResult(meta, answer.value);
    case "prepared":
      return facadePrepared(meta, answer.action);
    case "rejected":
      return facadeRejected(meta);
    case "failed":
      return facadeFailed(meta, answer.code, answer.message, answer.retryAfterMs);
  }
}

/**
 * The runtime transport of one consumer: every envelope in goes through the codec's strict
 * decoder, every envelope out through its builders and canonical encoder. Shared by
 * `POST …/runtime/envelopes` and the runtime WebSocket.
 */
export class RuntimeTransport {
  readonly outbox: RuntimeOutbox;
  readonly #purger: CheckpointPurger;

  constructor(private readonly host: RuntimeHost) {
    this.outbox = new RuntimeOutbox(host.sql);
    this.#purger = new CheckpointPurger(host.sql, host.bucket);
  }

  /** Handles one envelope; `sender` is the WebSocket it came on (never echoed an event back). */
  async envelope(input: Uint8Array | string, sender: WebSocket | null): Promise<Outcome<RuntimeReply>> {
    const decoded = decodeEnvelope(input, { maxBytes: MAX_ENVELOPE_BYTES });
    if (!decoded.ok) return fail(refusal(decoded.error));
    const request = decoded.envelope;
    const { consumer, plane } = this.host.plane();
    const now = this.host.now();
    const meta = replyMetadata(request, replyMessageId(consumer, request.metadata.message_id, request.metadata.dispatch.dispatch_id), now * 1000);
    const payload = request.payload;
    switch (payload.family) {
      case "app_facade_request": {
        const answer = await handleFacadeRequest({ sql: this.host.sql, plane, consumer, now }, payload.payload, request.metadata.dispatch);
        return ok({ status: 200, envelope: encoded(facadeEnvelope(meta, answer)) });
      }
      case "event": {
        const text = encoded(request);
        const added = this.host.transaction(() => this.outbox.add(payload.payload.event.id, text, now));
        if (added === "stored") this.#broadcast(text, sender);
        return ok({ status: 202, envelope: null });
      }
      case "event_ack": {
        this.host.transaction(() => this.outbox.ack(payload.payload.event_id));
        return ok({ status: 202, envelope: null });
      }
      case "checkpoint_purge": {
        const purged = await this.#purger.purge(consumer, payload.payload, now, (step) => this.host.transaction(step));
        if (purged.status === "in_progress") {
          return fail(problem("IDEMPOTENCY_IN_PROGRESS", "The same purge is still running; retry later.", IN_PROGRESS_RETRY_SECONDS));
        }
        const ack =
          purged.status === "deleted"
            ? checkpointPurgeDeleted(meta, payload.payload, purged.deletedObjects)
            : checkpointPurgeFailed(meta, payload.payload, purged.code, purged.message);
        return ok({ status: 200, envelope: encoded(ack) });
      }
      default:
        return fail(problem("UNSUPPORTED_FAMILY", `The gate does not accept '${payload.family}' envelopes.`));
    }
  }

  /** Sends an event to every runtime WebSocket but the one it came on. */
  #broadcast(text: string, sender: WebSocket | null): void {
    for (const ws of this.host.ctx.getWebSockets(RUNTIME_SOCKET_TAG)) {
      if (ws === sender) continue;
      try {
        ws.send(text);
      } catch {
        // A socket closing right now gets the event on its next connect: it is still unacknowledged.
      }
    }
  }
}
