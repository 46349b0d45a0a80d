/**
 * The consumer's events (contracts/events.ts), from the service where they happen to whoever
 * listens. Durable listeners (the webhook outbox) run inside the transaction that made the
 * event, so an event is stored exactly when its cause is; live listeners (a waiting request,
 * an approval stream, the console) hear it only once that transaction committed, never an
 * event that was rolled back.
 *
 * A live listener acts for the credential it was opened with: the bus admits it within that
 * credential's share of the consumer's slots (and a subject-bound agent credential within its
 * subject's share, so minting more credentials for one person does not multiply it), asks before each delivery whether the credential
 * still holds (live, and an approver still one of the consumer's), and ends it as soon as it
 * does not ({@link EventBus.recheck} after a revocation or a change of the approvers).
 * @module
 */
import type { GateEvent } from "../../../contracts/events";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";

/** Live listeners (waiting requests and streams, the console's included) one consumer holds at most. */
export const MAX_LIVE_LISTENERS = 256;

/** Live listeners one credential holds at most (its waits, its streams and its console sessions' streams). */
export const LISTENERS_PER_CREDENTIAL = 16;

/** Live listeners the subject-bound agent credentials of one subject hold at most, together (its OAuth grants included). */
export const LISTENERS_PER_SUBJECT = 16;

/**
 * Of {@link MAX_LIVE_LISTENERS}, the slots only approvers take (their streams and waits, console
 * sessions): agents together never hold more than the rest, so no agent flood locks approvers out.
 */
export const APPROVER_RESERVED_LISTENERS = 64;

/** `Retry-After` when the consumer's slots are taken (waits end within 60 s, streams within 300 s). */
export const LISTENERS_FULL_RETRY_SECONDS = 1;

/** `Retry-After` when a credential holds its own share: one of its own listeners must end first. */
export const CREDENTIAL_LISTENERS_RETRY_SECONDS = 5;

/** Takes an event inside its transaction (`now`: the transaction's Unix seconds). */
export type DurableListener = (event: GateEvent, now: number) => void;

/** Whose authority a live listener runs on. */
export interface ListenerOwner {
  /** The credential it was opened with (its share of the slots; its end at revocation). */
  readonly credentialId: string;
  /** An approver's stream or wait, or a console session's stream: it may take the reserved slots. */
  readonly approver: boolean;
  /** A subject-bound agent credential's subject: its listeners count in that subject's share too; absent or null for any other. */
  readonly subjectId?: string | null;
  /** Whether the credential still holds (live; an approver still one of the consumer's), asked before each delivery. */
  holds(): boolean;
}

/** A live listener: it hears committed events until it stops listening or the bus ends it. */
export interface LiveListener extends ListenerOwner {
  hear(event: GateEvent): void;
  /** The bus dropped it (its credential no longer holds): a stream closes, a wait answers. */
  end(): void;
}

/** Adds `delta` to a count, keeping entries only for keys that hold one. */
function add(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

/** The object's one event bus. */
export class EventBus {
  readonly #durable: DurableListener[] = [];
  readonly #live = new Set<LiveListener>();
  /** Live listeners per credential (entries only for credentials holding one). */
  readonly #held = new Map<string, number>();
  /** Live listeners per subject of subject-bound agent credentials (entries only for subjects holding one). */
  readonly #bySubject = new Map<string, number>();
  #pending: GateEvent[] = [];

  /** Adds a listener that stores events in the same transaction. */
  durable(listener: DurableListener): void {
    this.#durable.push(listener);
  }

  /**
   * Adds a live listener; the answer removes it. Refused (`QUOTA_EXCEEDED` with `Retry-After`)
   * when its credential holds {@link LISTENERS_PER_CREDENTIAL} already, or its subject (a
   * subject-bound agent credential's) {@link LISTENERS_PER_SUBJECT}, or when the consumer's
   * slots open to it are taken (an agent's: all but {@link APPROVER_RESERVED_LISTENERS}).
   */
  listen(listener: LiveListener): Outcome<() => void> {
    if ((this.#held.get(listener.credentialId) ?? 0) >= LISTENERS_PER_CREDENTIAL) {
      const detail = `This credential already holds ${LISTENERS_PER_CREDENTIAL} waiting requests and streams; end one first.`;
      return fail(problem("QUOTA_EXCEEDED", detail, CREDENTIAL_LISTENERS_RETRY_SECONDS));
    }
    const subject = listener.subjectId ?? null;
    if (subject !== null && (this.#bySubject.get(subject) ?? 0) >= LISTENERS_PER_SUBJECT) {
      const detail = `This credential's subject already holds ${LISTENERS_PER_SUBJECT} waiting requests and streams across its credentials; end one first.`;
      return fail(problem("QUOTA_EXCEEDED", detail, CREDENTIAL_LISTENERS_RETRY_SECONDS));
    }
    const open = listener.approver ? MAX_LIVE_LISTENERS : MAX_LIVE_LISTENERS - APPROVER_RESERVED_LISTENERS;
    if (this.#live.size >= open) {
      return fail(
        problem(
          "QUOTA_EXCEEDED",
          "Too many requests wait or stream on this consumer's approvals; retry shortly.",
          LISTENERS_FULL_RETRY_SECONDS,
        ),
      );
    }
    this.#live.add(listener);
    add(this.#held, listener.credentialId, 1);
    if (subject !== null) add(this.#bySubject, subject, 1);
    return ok(() => {
      this.#drop(listener);
    });
  }

  /** A service's event, inside its transaction. */
  emit(event: GateEvent, now: number): void {
    for (const listener of this.#durable) listener(event, now);
    this.#pending.push(event);
  }

  /** The transaction committed: live listeners whose credential still holds hear its events; the others end. */
  committed(): void {
    if (this.#pending.length === 0) return;
    const events = this.#pending;
    this.#pending = [];
    for (const listener of [...this.#live]) {
      if (!this.#live.has(listener)) continue;
      if (!listener.holds()) {
        this.#end(listener);
        continue;
      }
      for (const event of events) if (this.#live.has(listener)) listener.hear(event);
    }
  }

  /** The transaction rolled back: its events never happened. */
  rolledBack(): void {
    this.#pending = [];
  }

  /** Ends every live listener whose credential no longer holds (after a revocation, a change of approvers, a session's end). */
  recheck(): void {
    for (const listener of [...this.#live]) if (this.#live.has(listener) && !listener.holds()) this.#end(listener);
  }

  /** Live listeners now (the object's memory counts them). */
  get listeners(): number {
    return this.#live.size;
  }

  #end(listener: LiveListener): void {
    if (this.#drop(listener)) listener.end();
  }

  #drop(listener: LiveListener): boolean {
    if (!this.#live.delete(listener)) return false;
    add(this.#held, listener.credentialId, -1);
    const subject = listener.subjectId ?? null;
    if (subject !== null) add(this.#bySubject, subject, -1);
    return true;
  }
}
