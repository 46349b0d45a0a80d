import { canonicalJson } from "../../../core/json";
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
} from "../../../core/wire";
import { problem, UNAUTHENTICATED, type Problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { ConsumerRecord } from "../consumers/service";
import type { CredentialService } from "../credentials/service";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import type { ObjectKernel } from "../../kernel/kernel";
import { sessionPolicy, type SessionPolicy } from "../sockets/sessions";
import { IN_PROGRESS_RETRY_SECONDS } from "../tool-calls/outcome";
import type { ToolCallServices } from "../tool-calls/services";
import { outboxBounds, purgeRefusal, speaksFor } from "./binding";
import { handleFacadeRequest } from "./facade";
import type { FacadeAnswer } from "./facade-answer";
import { replyMessageId } from "./identity";
import { OUTBOX_RETRY_SECONDS, OutboxDelivery } from "./outbox";
import { CheckpointPurger } from "./purge";
import { RuntimeStore, type FacadeTargets } from "./store";

/** Largest envelope accepted, in UTF-8 bytes (over HTTP and per WebSocket message). */
export const MAX_ENVELOPE_BYTES = 1_048_576;

/** Hibernation tag of runtime WebSockets. */
export const RUNTIME_SOCKET_TAG = "runtime";

/** The gate's answer to one envelope: one envelope (200), or none (202, kept or acknowledged). */
export type RuntimeReply = { status: 200; envelope: string } | { status: 202; envelope: null };

/** Where an envelope came from: the credential that sent it, and its WebSocket (`null` over HTTP). */
export interface EnvelopeOrigin {
  credentialId: string;
  socket: WebSocket | null;
}

/** What the transport uses of the kernel: the runtime sockets, its tables, the checkpoint bucket, the audit chain, the clock, one transaction step, the consumer's configuration and limits. */
type RuntimeKernel = Pick<ObjectKernel, "ctx" | "sql" | "env" | "audit" | "now" | "transaction" | "config" | "limits">;

/** The problem code of each codec refusal (the codec's own codes, in the problem catalog's case). */
const REFUSALS = {
  invalid_json: "INVALID_JSON",
  unknown_field: "UNKNOWN_FIELD",
  unsupported_version: "UNSUPPORTED_VERSION",
  missing_identifier: "MISSING_IDENTIFIER",
  invalid_binding: "INVALID_BINDING",
} as const satisfies Record<string, Problem["code"]>;

/** A refused envelope as a problem carrying the codec's code (and path, for `unknown_field`). */
function refusal(error: { code: keyof typeof REFUSALS; message: string; path: string | null }): Problem {
  const code = REFUSALS[error.code];
  return error.path === null ? { code, detail: error.message } : { code, detail: error.message, path: error.path };
}

/** The canonical JSON view of the facade-target map answered by the admin routes. */
function targetsJson(value: FacadeTargets): string {
  return canonicalJson({ targets: Object.fromEntries(value.targets), revision: value.revision });
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
  readonly store: RuntimeStore;
  readonly #purger: CheckpointPurger;
  readonly #outbox: OutboxDelivery;
  /** Commits of App Facade actions awaiting their write, by action id (a reject waits for them). */
  readonly #committing = new Map<string, number>();

  constructor(
    private readonly kernel: RuntimeKernel,
    /** The consumer's tool-call service (App Facade calls run on it). */
    private readonly toolCalls: ToolCallServices,
    /** A live credential's caller (its principal rules and tool scope); `null` once revoked or expired. */
    private readonly credentials: CredentialService,
    /** Who may post an envelope (`runtimeEnvelope` of the access table). */
    private readonly gate: Gatekeeper,
  ) {
    this.store = new RuntimeStore(kernel.sql);
    this.#purger = new CheckpointPurger(this.store, kernel.env.CHECKPOINTS);
    this.#outbox = new OutboxDelivery(this.store, () => kernel.ctx.getWebSockets(RUNTIME_SOCKET_TAG));
  }

  /** The consumer as configured: a runtime caller was authenticated against it, so it exists. */
  #config(): ConsumerRecord {
    const config = this.kernel.config.current();
    if (config === undefined) throw new Error("a runtime envelope reached an unconfigured consumer");
    return config;
  }

  /** Admin: reads (`targets` null) or replaces the App Facade target map, answered as JSON. */
  facadeTargets(targets: Readonly<Record<string, string>> | null): string {
    if (targets === null) return targetsJson(this.store.targets());
    const now = this.kernel.now();
    const saved = this.kernel.transaction(() => {
      const value = this.store.saveTargets(targets);
      this.kernel.audit.append("runtime.facade_targets", now, {
        targets: Object.fromEntries(value.targets),
        revision: value.revision,
      });
      return value;
    });
    return targetsJson(saved);
  }

  /** A runtime socket just accepted: sends it the oldest batch of unacknowledged events. */
  openSession(ws: WebSocket, policy: SessionPolicy): void {
    this.#outbox.open(ws, policy);
  }

  /** One envelope of `POST …/runtime/envelopes`: the credential authenticates for `runtimeEnvelope`, then {@link envelope}. */
  async post(consumer: string, token: string, body: Uint8Array): Promise<Outcome<RuntimeReply>> {
    const auth = this.gate.authenticate(consumer, token, "runtimeEnvelope");
    if (!auth.ok) return auth;
    const origin = { credentialId: auth.value.caller.credentialId, socket: null };
    return this.envelope(body, origin, sessionPolicy(this.kernel.limits(), this.credentials));
  }

  /**
   * Handles one envelope of a credential (`origin.socket`: the WebSocket it came on, never sent
   * its own event back). `policy` carries the consumer's limits (the outbox bounds and batch).
   */
  async envelope(
    input: Uint8Array | string,
    origin: EnvelopeOrigin,
    policy: SessionPolicy,
  ): Promise<Outcome<RuntimeReply>> {
    const decoded = decodeEnvelope(input, { maxBytes: MAX_ENVELOPE_BYTES });
    if (!decoded.ok) return fail(refusal(decoded.error));
    const request = decoded.envelope;
    const consumer = this.#config().name;
    const now = this.kernel.now();
    const meta = replyMetadata(
      request,
      replyMessageId(consumer, request.metadata.message_id, request.metadata.dispatch.dispatch_id),
      now * 1000,
    );
    const payload = request.payload;
    switch (payload.family) {
      case "app_facade_request": {
        const caller = this.credentials.liveCaller(origin.credentialId);
        if (caller === null) return fail(UNAUTHENTICATED);
        const deps = {
          caller,
          store: this.store,
          toolCalls: this.toolCalls.for(this.#config()),
          consumer,
          now,
          committing: this.#committing,
          transaction: <T>(step: () => T) => this.kernel.transaction(step),
          audit: (record: Record<string, unknown>) => void this.kernel.audit.append("runtime.facade", now, record),
        };
        const answer = await handleFacadeRequest(deps, payload.payload, request.metadata.dispatch);
        return ok({ status: 200, envelope: encoded(facadeEnvelope(meta, answer)) });
      }
      case "event": {
        const caller = this.credentials.liveCaller(origin.credentialId);
        if (caller === null) return fail(UNAUTHENTICATED);
        const userId = payload.payload.event.context.actor.user_id;
        const mismatch = speaksFor(caller, userId);
        if (mismatch !== null) return fail(mismatch);
        const text = encoded(request);
        const bounds = outboxBounds(policy.limits);
        const owner = { credentialId: origin.credentialId, subjectId: userId };
        const added = this.kernel.transaction(() =>
          this.store.addEvent(payload.payload.event.id, text, now, bounds, owner),
        );
        if (added.status === "full") {
          const share = bounds.perCredential;
          const detail = `The runtime outbox is full (at most ${bounds.maxEvents} events, ${bounds.maxBytes} bytes; one credential at most ${share.maxEvents} events, ${share.maxBytes} bytes): acknowledge delivered events, then retry.`;
          return fail(problem("QUOTA_EXCEEDED", detail, OUTBOX_RETRY_SECONDS));
        }
        if (added.status === "stored") this.#outbox.deliver(added.seq, text, origin.socket, policy);
        return ok({ status: 202, envelope: null });
      }
      case "event_ack": {
        const caller = this.credentials.liveCaller(origin.credentialId);
        if (caller === null) return fail(UNAUTHENTICATED);
        const eventId = payload.payload.event_id;
        // Read and cleared without an await between: the event's user cannot change meanwhile.
        const subject = this.store.eventSubject(eventId);
        const mismatch = subject === undefined ? null : speaksFor(caller, subject);
        if (mismatch !== null) return fail(mismatch);
        const acked = this.kernel.transaction(() => this.store.ackEvent(eventId));
        if (acked) this.#outbox.refill(policy);
        return ok({ status: 202, envelope: null });
      }
      case "checkpoint_purge": {
        const caller = this.credentials.liveCaller(origin.credentialId);
        if (caller === null) return fail(UNAUTHENTICATED);
        const mismatch = purgeRefusal(caller, payload.payload.surface_id);
        if (mismatch !== null) return fail(mismatch);
        const purged = await this.#purger.purge(consumer, payload.payload, now, this.kernel, origin.credentialId);
        if (purged.status === "in_progress") {
          return fail(
            problem(
              "IDEMPOTENCY_IN_PROGRESS",
              "The same purge is still running; retry later.",
              IN_PROGRESS_RETRY_SECONDS,
            ),
          );
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
}
