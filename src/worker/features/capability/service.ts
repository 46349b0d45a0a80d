import {
  applyInPlace,
  U64_MAX,
  type CapabilityCompletionEnvelope,
  type CapabilityEngineState,
  type CapabilityError,
  type CapabilityOperation,
  type ProviderRuntimeEnvelope,
} from "../../../core/capability";
import type { Result } from "../../../core/result";
import type { AuditChain } from "../audit/service";
import type { CredentialService } from "../credentials/service";
import type { ObjectKernel } from "../../kernel/kernel";
import { attachmentOf } from "./attachment";
import { providerSockets } from "./socket";
import { collectCompletions } from "./completions";
import { drainEffects, pushEffects } from "./egress";
import { CompletionMailbox } from "./mailbox";
import { alarmTime, auditRecord, nextDeadline } from "./schedule";
import { Waiters } from "./waiters";
import { CapabilityStore, type OutboxRow } from "./store";
import { outOfU64 } from "./u64";

/** Operations logged after a checkpoint before the next full checkpoint. */
export const CHECKPOINT_EVERY = 256;

/** Operations that only read the engine (never journaled). */
const QUERIES = new Set([
  "snapshot",
  "instance-ids",
  "provider-runtime-snapshot",
  "request-snapshot",
  "provider-descriptor",
  "provider-exists",
]);

/** The key of a request's claim: its actor and local id (the consumer is the object's). */
export function claimKey(actorId: string, localId: bigint): string {
  return `${localId.toString()} ${actorId}`;
}

/** How long a long-poll attachment lives without a poll, in milliseconds. */
export const LEASE_MS = 60_000;

/** What the host needs from its Durable Object. */
export interface CapabilityServiceDeps {
  readonly sql: SqlStorage;
  readonly audit: AuditChain;
  /** Runs one synchronous SQLite transaction (rolled back if `step` throws). */
  transaction<T>(step: () => T): T;
  /** Seconds for the audit chain's `at`. */
  nowSeconds(): number;
  /** Hibernatable WebSockets accepted with this tag (the provider id). */
  sockets(tag: string): WebSocket[];
  /** Sets the object's alarm, or deletes it (`null`). */
  setAlarm(ms: number | null): void;
}

/**
 * Hosts one consumer's capability engine inside its Durable Object. Every operation is one
 * synchronous transaction: load (cached) state, advance the engine's clock to the object's
 * millisecond clock, apply, bind drained effects to their provider's binding in the outbox,
 * move queued completions to their actor's mailbox, append the new engine audit events to the
 * consumer's audit chain, and persist: the applied engine operations are appended to a log
 * (the engine is deterministic, so checkpoint + log replay is the state), with a full
 * checkpoint every {@link CHECKPOINT_EVERY} operations.
 * After the commit, queued effects are pushed to attached sockets and the alarm is set to the
 * next deadline.
 */
export class CapabilityService {
  /** Tests pin the clock (milliseconds) through `runInDurableObject`; never reachable over HTTP. */
  pinnedMillis: number | undefined;
  readonly store: CapabilityStore;
  /** Per-actor completion mailboxes (a drain takes one actor's). */
  readonly mailbox: CompletionMailbox;
  #state: CapabilityEngineState | undefined;
  #reconciled = false;
  #logLength = 0;
  #journal: CapabilityOperation[] | "checkpoint" = [];
  /** The deadline the alarm is set for (`undefined`: unknown, e.g. after a restart or a run). */
  #scheduled: bigint | null | undefined;
  readonly #waiters = new Waiters();
  /** Tool calls waiting for their request's completion, by request key (tool-call.ts): memory only. */
  readonly #claims = new Map<string, (completion: CapabilityCompletionEnvelope) => void>();
  /** Claimed completions of the running step, handed over once it commits. */
  #handed: [(completion: CapabilityCompletionEnvelope) => void, CapabilityCompletionEnvelope][] = [];
  /** Providers with a long-poll waiting now. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /** What the host needs from its object (readable by the service's modules and by failure-injection tests). */
  readonly deps: CapabilityServiceDeps;

  constructor(deps: CapabilityServiceDeps) {
    this.deps = deps;
    this.store = new CapabilityStore(deps.sql);
    this.mailbox = new CompletionMailbox(deps.sql);
  }

  /** The consumer object's host: the kernel's tables, audit chain, clock and alarm slot; a provider's sockets while its credential is live. */
  static of(kernel: ObjectKernel, credentials: CredentialService): CapabilityService {
    return new CapabilityService({
      sql: kernel.sql,
      audit: kernel.audit,
      transaction: (step) => kernel.transaction(step),
      nowSeconds: () => kernel.now(),
      sockets: (provider) => providerSockets(kernel.ctx, provider, (id) => credentials.isLive(id)),
      setAlarm: (ms) => kernel.alarms.set("capability", ms),
    });
  }

  /**
   * Claims the completion of one request (`key`: its actor and local id): it is handed to
   * `take` once the step that produced it commits, instead of going to the actor's mailbox.
   * Answers the release (the claim ends; a later completion goes to the mailbox).
   */
  claim(key: string, take: (completion: CapabilityCompletionEnvelope) => void): () => void {
    this.#claims.set(key, take);
    return () => {
      if (this.#claims.get(key) === take) this.#claims.delete(key);
    };
  }

  /** The claim of a completion, if a waiting tool call holds one (it ends with the hand-over). */
  handOver(completion: CapabilityCompletionEnvelope): boolean {
    const key = claimKey(completion.request_key.actor_id, completion.request_key.local_id);
    const take = this.#claims.get(key);
    if (take === undefined) return false;
    this.#claims.delete(key);
    this.#handed.push([take, completion]);
    return true;
  }

  /** The object's clock in milliseconds: one engine tick. */
  nowMs(): number {
    return this.pinnedMillis ?? Date.now();
  }

  #load(): CapabilityEngineState {
    if (this.#state === undefined) {
      const state = this.store.loadCheckpoint();
      const log = this.store.loadLog();
      for (const operation of log) applyInPlace(state, operation);
      this.#logLength = log.length;
      this.#state = state;
    }
    return this.#state;
  }

  /**
   * Applies one engine operation inside the current step and journals it. An operation holding
   * a value outside u64 is a bug (the service refuses such input first): it throws, so the step
   * rolls back and the log never holds a value that would not decode after a restart.
   */
  apply(state: CapabilityEngineState, operation: CapabilityOperation): Result<unknown, CapabilityError> {
    const bad = outOfU64(operation);
    if (bad !== null) throw new Error(`an engine operation holds ${bad}, outside u64`);
    const outcome = applyInPlace(state, operation);
    if (
      this.#journal !== "checkpoint" &&
      !QUERIES.has(typeof operation === "string" ? operation : (Object.keys(operation)[0] as string))
    ) {
      this.#journal.push(operation);
    }
    return outcome;
  }

  /** A read-only view of the current state (tests and queries; do not mutate). */
  peek(): CapabilityEngineState {
    return this.deps.transaction(() => this.#load());
  }

  /**
   * One timed step: the clock advances to now, then `step` runs; effects go to the outbox,
   * completions to their actor's mailbox.
   * Returns what `step` returns.
   */
  timed<T>(step: (state: CapabilityEngineState) => T): T {
    const result = this.#transaction((state) => {
      if (!this.#reconciled) this.#reconcile(state);
      const now = BigInt(this.nowMs());
      if (now > state.current_tick) this.apply(state, { "advance-time": { tick: now } });
      // Collected before `step` as well: a request `step` adds may evict a record that just
      // ended, and each completion is filed under its request's capability (completions.ts).
      collectCompletions(this, state);
      const value = step(state);
      this.#expireLeases(state);
      drainEffects(this, state);
      collectCompletions(this, state);
      return value;
    });
    this.#afterCommit();
    return result;
  }

  /** One timed engine operation. */
  operate(operation: CapabilityOperation): Result<unknown, CapabilityError> {
    return this.timed((state) => this.apply(state, operation));
  }

  /**
   * One raw operation (scenario conformance): no clock, no effect draining, no alarm —
   * exactly the engine's own semantics, persisted and audited like any other step.
   */
  operateRaw(operation: CapabilityOperation): Result<unknown, CapabilityError> {
    return this.#transaction((state) => this.apply(state, operation));
  }

  /** Test hook: mutates the state directly (then persisted by a full checkpoint). */
  mutateRaw<T>(step: (state: CapabilityEngineState) => T): T {
    return this.#transaction((state) => {
      this.#journal = "checkpoint";
      return step(state);
    });
  }

  /** Replaces the whole state (test hook for scenarios with an `initial_state`). */
  replaceRaw(state: CapabilityEngineState): void {
    this.mutateRaw((current) => {
      Object.assign(current, structuredClone(state));
    });
  }

  /** A provider-runtime command under the next provider-lane sequence. */
  runtime(
    state: CapabilityEngineState,
    command: (sequence: bigint) => ProviderRuntimeEnvelope["command"],
  ): Result<unknown, CapabilityError> {
    const last = state.provider_runtime.last_sequence;
    const sequence = last >= U64_MAX ? U64_MAX : last + 1n;
    return this.apply(state, { "provider-runtime": { sequence, command: command(sequence) } });
  }

  /** The provider's current binding id, or `null`. */
  bindingOf(state: CapabilityEngineState, providerId: string): bigint | null {
    return state.provider_runtime.bindings.find((b) => b.provider_id === providerId)?.binding_id ?? null;
  }

  /** Alarm: advance time to now (expiring deadlines and stale leases) and reschedule. Idempotent. */
  alarm(): void {
    this.#scheduled = undefined;
    this.timed(() => null);
  }

  #transaction<T>(step: (state: CapabilityEngineState) => T): T {
    try {
      return this.deps.transaction(() => {
        const state = this.#load();
        this.#journal = [];
        const auditFrom = state.audit_sequence_exhausted ? null : state.next_audit_sequence;
        const value = step(state);
        if (auditFrom !== null) this.#audit(state, auditFrom);
        this.#persist(state);
        return value;
      });
    } catch (error) {
      // Rolled back: the state is reloaded, and a restart's reconciliation (rolled back with
      // it) must run again in the next step.
      this.#state = undefined;
      this.#reconciled = false;
      this.#handed = [];
      throw error;
    } finally {
      this.#journal = [];
    }
  }

  #persist(state: CapabilityEngineState): void {
    const journal = this.#journal;
    if (journal !== "checkpoint" && this.#logLength + journal.length <= CHECKPOINT_EVERY) {
      this.store.appendLog(journal);
      this.#logLength += journal.length;
    } else {
      this.store.saveCheckpoint(state);
      this.#logLength = 0;
    }
  }

  // New engine audit events join the consumer's hash chain, in engine order.
  #audit(state: CapabilityEngineState, from: bigint): void {
    const at = this.deps.nowSeconds();
    for (const event of state.audit_events) {
      if (event.sequence < from) continue;
      const kind = typeof event.event === "string" ? event.event : (Object.keys(event.event)[0] as string);
      // A completion the engine could not queue is lost for its actor: its drain reports it.
      if (kind === "completion-dropped" && event.subject !== null)
        this.mailbox.countDrop(event.subject.request_key.actor_id);
      this.deps.audit.append(`capability.${kind}`, at, auditRecord(event));
    }
  }

  // After a restart, bindings whose socket or lease is gone are detached (requests in flight
  // end as provider-detached): nobody can answer them any more.
  #reconcile(state: CapabilityEngineState): void {
    this.#reconciled = true;
    for (const binding of [...state.provider_runtime.bindings]) {
      const id = binding.binding_id.toString();
      const socket = this.deps.sockets(binding.provider_id).some((ws) => attachmentOf(ws)?.bindingId === id);
      const lease = this.store.lease(binding.provider_id);
      if (socket || (lease !== undefined && lease.bindingId === id)) continue;
      this.runtime(state, () => ({ detach: { binding_id: binding.binding_id, provider_id: binding.provider_id } }));
    }
  }

  #expireLeases(state: CapabilityEngineState): void {
    const now = this.nowMs();
    for (const lease of this.store.leases()) {
      const current = this.bindingOf(state, lease.providerId);
      if (current === null || current.toString() !== lease.bindingId) {
        this.store.dropLease(lease.providerId);
      } else if (lease.expiresMs <= now) {
        this.runtime(state, () => ({ detach: { binding_id: current, provider_id: lease.providerId } }));
        this.store.dropLease(lease.providerId);
      }
    }
  }

  #afterCommit(): void {
    const handed = this.#handed;
    this.#handed = [];
    for (const [take, completion] of handed) take(completion);
    const state = this.#state;
    if (state === undefined) return;
    for (const provider of this.store.providersWithPending()) {
      const binding = this.bindingOf(state, provider);
      if (binding !== null) pushEffects(this, provider, binding);
      this.#waiters.wake(provider);
    }
    // Only a changed deadline costs an alarm write.
    const next = nextDeadline(state, this.store.leases());
    if (next !== this.#scheduled) {
      this.#scheduled = next;
      this.deps.setAlarm(next === null ? null : alarmTime(next, this.nowMs(), Date.now()));
    }
  }

  /** Pushes whatever is queued for a socket's binding (right after it attached). */
  flush(providerId: string): void {
    const state = this.#state ?? this.peek();
    const binding = this.bindingOf(state, providerId);
    if (binding !== null) pushEffects(this, providerId, binding);
  }

  /**
   * Long-poll: acknowledges effects up to `after`, then answers the queued ones, waiting up
   * to `waitMs` for the first. Renews the lease.
   */
  async poll(providerId: string, bindingId: bigint, after: bigint | null, waitMs: number): Promise<OutboxRow[] | null> {
    const renew = (): OutboxRow[] | null =>
      this.deps.transaction(() =>
        this.bindingOf(this.#load(), providerId) === bindingId
          ? this.store.renewPoll(providerId, bindingId, after, this.nowMs() + LEASE_MS)
          : null,
      );
    const first = renew();
    if (first === null || first.length > 0 || waitMs <= 0) return first;
    await this.#waiters.wait(providerId, waitMs);
    return renew();
  }
}
