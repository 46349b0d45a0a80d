/**
 * The per-consumer limits of the gate: each has a documented default (docs/security.md) and
 * may be changed in the consumer's configuration (`limits`). Every limit bounds the work or the
 * storage one caller can cause; each refusal is a catalog problem (`RATE_LIMITED`,
 * `QUOTA_EXCEEDED`) or a WebSocket close code.
 */
export interface Limits {
  /** Tool calls per credential per second (token bucket refill rate). */
  readonly calls_per_second: number;
  /** Token bucket size: calls a credential may make at once after a quiet period. */
  readonly call_burst: number;
  /** Pending approvals one subject may have open at once. */
  readonly pending_approvals_per_subject: number;
  /** Pending approvals one agent credential may have opened at once, whatever subjects it named (a host credential names any). */
  readonly pending_approvals_per_credential: number;
  /** Undelivered runtime outbox events (count) of the consumer. */
  readonly outbox_max_events: number;
  /** Undelivered runtime outbox events (bytes of their JSON) of the consumer. */
  readonly outbox_max_bytes: number;
  /** Events one runtime connect (or one batch on a live socket) sends at most. */
  readonly outbox_batch_events: number;
  /** Open WebSockets (provider and runtime) per credential. */
  readonly sockets_per_credential: number;
  /** Largest WebSocket message accepted, in bytes (larger closes the socket with 1009). */
  readonly socket_message_bytes: number;
  /** WebSocket messages per socket per second (more closes the socket with 1008). */
  readonly socket_messages_per_second: number;
  /** Items on one page of any list (approvals, audit entries, …). */
  readonly page_items: number;
  /**
   * Seconds call identities, idempotency records and decided approvals are kept before the
   * alarm's retention sweep deletes them (retention/sweep.ts, docs/storage.md "Retention").
   */
  readonly retention_seconds: number;
}

/** The defaults, documented in docs/security.md. */
export const DEFAULT_LIMITS: Limits = {
  calls_per_second: 50,
  call_burst: 100,
  pending_approvals_per_subject: 20,
  pending_approvals_per_credential: 100,
  outbox_max_events: 1000,
  outbox_max_bytes: 1_048_576,
  outbox_batch_events: 100,
  sockets_per_credential: 4,
  socket_message_bytes: 65_536,
  socket_messages_per_second: 50,
  page_items: 100,
  retention_seconds: 86_400,
};

/**
 * Entries after the latest signed audit checkpoint at which the object's alarm signs the next
 * one (docs/audit.md): a log is signed at least every this many entries, never on a call's path.
 */
export const AUDIT_CHECKPOINT_EVERY = 256;

/**
 * The least time a write's result (its idempotency record and receipt) is kept, whatever
 * `retention_seconds` says: the longest an approval may stay valid after its decision (a data
 * tool's `approval_valid_seconds` is at most 3600), so a write never runs twice under one approval.
 */
export const RESULT_MIN_KEEP_SECONDS = 3_600;

/**
 * How long an unknown outcome not yet reconciled (its status reference, and a receipt waiting
 * for the status query) is kept: deleting it would let the same key run again although the
 * first write may have committed, so it outlives any window (the longest is 30 days).
 */
export const UNRECONCILED_KEEP_SECONDS = 30 * 86_400;

/**
 * How long after it was prepared an App Facade action never committed nor rejected counts as
 * open: its approval waits 900 s for a decision and stays valid at most 3600 s after it.
 */
export const PREPARED_ACTION_SECONDS = 900 + 3_600;
