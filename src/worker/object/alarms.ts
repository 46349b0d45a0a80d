/**
 * The object's one alarm, shared by the planes that need a wake-up: the capability engine's
 * next deadline, the audit log's periodic checkpoint, the next webhook delivery and the
 * retention sweep (retention/sweep.ts), which the slots own and run first. Each plane
 * asks for its own deadline; the object keeps the earliest. When the alarm runs every plane's
 * handler runs (each is idempotent and asks again for what it still needs), so an alarm set
 * earlier than a plane needed, or after a restart that forgot the others' deadlines, only costs
 * one idle run.
 * @module
 */
import { Retention, type RetentionClock } from "./retention/sweep";

/** A plane that sets the object's alarm. */
export type AlarmSlot = "capability" | "audit" | "webhooks" | "retention";

/** The deadlines (wall-clock milliseconds) of each plane, and the alarm set for the earliest. */
export class AlarmSlots {
  readonly #deadlines = new Map<AlarmSlot, number>();
  /** The consumer's retention (its slot is "retention"): the tool-call plane stamps rows with its clock and asks it after a call. */
  readonly retention: Retention;

  constructor(
    private readonly storage: DurableObjectStorage,
    clock: RetentionClock,
  ) {
    this.retention = new Retention({
      sql: storage.sql,
      clock,
      transaction: (step) => storage.transactionSync(step),
      wallMs: () => Date.now(),
      arm: (ms) => this.set("retention", ms),
      armed: () => this.#deadlines.has("retention"),
    });
  }

  /** A plane's next deadline (`null`: none); the alarm moves to the earliest of all. */
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

  /** The alarm ran: {@link fired}, then one retention sweep (bounded, idempotent; it sets its slot again). */
  ran(nowMs: number): void {
    this.fired(nowMs);
    this.retention.sweep();
  }
}
