/**
 * The consumer's events (contracts/events.ts), from the plane where they happen to whoever
 * listens. Durable listeners (the webhook outbox) run inside the transaction that made the
 * event, so an event is stored exactly when its cause is; live listeners (a waiting request,
 * an approval stream, the console) hear it only once that transaction committed, never an
 * event that was rolled back.
 * @module
 */
import type { GateEvent } from "../../../contracts/events";

/** Takes an event inside its transaction (`now`: the transaction's Unix seconds). */
export type DurableListener = (event: GateEvent, now: number) => void;

/** Hears a committed event. */
export type LiveListener = (event: GateEvent) => void;

/** The object's one event bus. */
export class EventBus {
  readonly #durable: DurableListener[] = [];
  readonly #live = new Set<LiveListener>();
  #pending: GateEvent[] = [];

  /** Adds a listener that stores events in the same transaction. */
  durable(listener: DurableListener): void {
    this.#durable.push(listener);
  }

  /** Adds a live listener; the answer removes it. */
  listen(listener: LiveListener): () => void {
    this.#live.add(listener);
    return () => this.#live.delete(listener);
  }

  /** A plane's event, inside its transaction. */
  emit(event: GateEvent, now: number): void {
    for (const listener of this.#durable) listener(event, now);
    this.#pending.push(event);
  }

  /** The transaction committed: live listeners hear its events. */
  committed(): void {
    if (this.#pending.length === 0) return;
    const events = this.#pending;
    this.#pending = [];
    for (const event of events) for (const listener of [...this.#live]) listener(event);
  }

  /** The transaction rolled back: its events never happened. */
  rolledBack(): void {
    this.#pending = [];
  }

  /** Live listeners now (the limit of open streams reads it). */
  get listeners(): number {
    return this.#live.size;
  }
}
