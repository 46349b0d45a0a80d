/**
 * The object's one alarm, shared by the services that need a wake-up: the capability engine's
 * next deadline, the audit log's periodic checkpoint, the next webhook delivery and the
 * retention sweep (retention/sweep.ts), which runs first (../features lists the handlers in order). Each service
 * asks for its own deadline; the object keeps the earliest. When the alarm runs every service's
 * handler runs (each is idempotent and asks again for what it still needs), so an alarm set
 * earlier than a service needed, or after a restart that forgot the others' deadlines, only costs
 * one idle run.
 * @module
 */

/** A service that sets the object's alarm. */
export type AlarmSlot = "capability" | "audit" | "webhooks" | "retention";

/** The deadlines (wall-clock milliseconds) of each service, and the alarm set for the earliest. */
export class AlarmSlots {
  readonly #deadlines = new Map<AlarmSlot, number>();

  constructor(private readonly storage: DurableObjectStorage) {}

  /** A service's next deadline (`null`: none); the alarm moves to the earliest of all. */
  set(slot: AlarmSlot, ms: number | null): void {
    if (ms === null) this.#deadlines.delete(slot);
    else this.#deadlines.set(slot, ms);
    const next = Math.min(...this.#deadlines.values());
    void (Number.isFinite(next) ? this.storage.setAlarm(next) : this.storage.deleteAlarm());
  }

  /** The alarm ran: deadlines that are due are forgotten (their handlers run now). */
  fired(nowMs: number): void {
    for (const [slot, ms] of this.#deadlines) if (ms <= nowMs) this.#deadlines.delete(slot);
  }

  /** Whether a service's slot is set in this instance's memory. */
  has(slot: AlarmSlot): boolean {
    return this.#deadlines.has(slot);
  }
}
