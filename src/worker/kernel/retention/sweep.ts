/**
 * Retention: what the consumer object stops keeping, and when (docs/storage.md, "Retention").
 * Each feature declares in its `store.ts` which rows expire ({@link ExpiryRule}: a table, the rows
 * a rule may touch, the age column or expression and how long a row is kept past it), as it
 * declares its migrations, and registers them (../features); the sweep runs every rule from the object's shared alarm, at most
 * {@link SWEEP_BATCH} rows per rule per run, each rule in its own transaction. A call's path
 * only asks for the alarm when it is not set yet ({@link Retention.stored}): one map lookup.
 * @module
 */
import type { AlarmSlots } from "../alarms";
import { FEATURES } from "../features";
import type { ObjectKernel } from "../kernel";
import type { ExpiryRule } from "../schema";
import { intOrNull, one } from "../sql";

export type { ExpiryRule } from "../schema";

/** Every feature's rules, in the order the sweep runs them. */
export const EXPIRY_RULES: readonly ExpiryRule[] = FEATURES.flatMap((feature) => feature.expiry ?? []);

/** Rows one rule deletes at most per run; a full batch asks for the next run at once. */
export const SWEEP_BATCH = 500;

/** Seconds between two runs when no batch was full: rows live at most this long past their expiry. */
export const SWEEP_SPACING_SECONDS = 60;

/**
 * What the sweep uses of the kernel: its tables, the object's clock (Unix seconds), the consumer's
 * `retention_seconds` (read at each use), wall milliseconds (the alarm's time base), one
 * transaction step per rule, and the alarm's retention slot.
 */
export type RetentionKernel = Pick<
  ObjectKernel,
  "sql" | "now" | "limits" | "approvalWindow" | "wallMs" | "transaction"
> & {
  readonly alarms: Pick<AlarmSlots, "set" | "has">;
};

/** What one sweep deleted: rows per rule, in {@link EXPIRY_RULES} order. */
export type SweepReport = readonly number[];

function filter(rule: ExpiryRule): string {
  return rule.where === undefined ? "" : `${rule.where} AND `;
}

/** Deletes at most `limit` rows of one rule whose age is at most `cutoff`; answers how many. */
function prune(sql: SqlStorage, rule: ExpiryRule, cutoff: number, limit: number): number {
  const query = `DELETE FROM ${rule.table} WHERE ${rule.key} IN (SELECT ${rule.key} FROM ${rule.table} WHERE ${filter(rule)}${rule.age} <= ? LIMIT ?) RETURNING 1 AS gone`;
  return sql.exec(query, cutoff, limit).toArray().length;
}

/** The Unix second the first row of any rule expires (`null`: no row will). */
export function nextExpiry(sql: SqlStorage, window: number, approvalWindow: number): number | null {
  let due: number | null = null;
  for (const rule of EXPIRY_RULES) {
    const where = rule.where === undefined ? "" : ` WHERE ${rule.where}`;
    const row = one(sql, `SELECT MIN(${rule.age}) AS first FROM ${rule.table}${where}`);
    const first = row === undefined ? null : intOrNull(row, "first");
    if (first !== null) due = Math.min(due ?? Infinity, first + rule.keep(window, approvalWindow));
  }
  return due;
}

/**
 * The consumer's retention: stamps stored rows with the object's clock, runs the sweep from the
 * alarm, and keeps the alarm's retention slot set while any row will expire. Idempotent: a
 * second sweep at the same second deletes nothing more.
 */
export class Retention {
  /** No slot set yet by this instance: the alarm stored before a restart may be another service's deadline. */
  #fresh = true;
  /** The windows the slot was last set for, retention's and approvals' (a changed configuration sets it again). */
  #window: string | undefined;

  constructor(private readonly kernel: RetentionKernel) {}

  /** The second stored rows are stamped with (the object's clock, which tests pin). */
  now(): number {
    return this.kernel.now();
  }

  /**
   * The cheap step after a call stored rows: when the slot is not set (a new instance, or the
   * last sweep left nothing to expire) or the window changed, it is set for the first expiry;
   * otherwise nothing.
   */
  stored(): void {
    const window = this.kernel.limits().retention_seconds;
    const approvalWindow = this.kernel.approvalWindow();
    if (this.kernel.alarms.has("retention") && `${window}/${approvalWindow}` === this.#window) return;
    // A new instance's first slot runs the sweep within SWEEP_SPACING_SECONDS whatever expires
    // first (see #arm), so its first call need not look: the sweep finds the first expiry then.
    this.#arm(
      this.#fresh ? this.kernel.now() + SWEEP_SPACING_SECONDS : nextExpiry(this.kernel.sql, window, approvalWindow),
      false,
      `${window}/${approvalWindow}`,
    );
  }

  /** One run: each rule deletes at most {@link SWEEP_BATCH} expired rows, then the slot is set again. */
  sweep(): SweepReport {
    const now = this.kernel.now();
    const window = this.kernel.limits().retention_seconds;
    const approvalWindow = this.kernel.approvalWindow();
    const deleted = EXPIRY_RULES.map((rule) =>
      this.kernel.transaction(() => prune(this.kernel.sql, rule, now - rule.keep(window, approvalWindow), SWEEP_BATCH)),
    );
    const full = deleted.some((n) => n >= SWEEP_BATCH);
    this.#arm(full ? now : nextExpiry(this.kernel.sql, window, approvalWindow), full, `${window}/${approvalWindow}`);
    return deleted;
  }

  #arm(due: number | null, atOnce: boolean, window: string): void {
    this.#window = window;
    if (due === null) {
      if (this.kernel.alarms.has("retention")) this.kernel.alarms.set("retention", null);
      return;
    }
    const now = this.kernel.now();
    let at = atOnce ? now : Math.max(due, now + SWEEP_SPACING_SECONDS);
    // The first slot of an instance replaces the stored alarm, which may hold a deadline another
    // service set before a restart: run soon, so every service's handler runs and asks again.
    if (this.#fresh) at = Math.min(at, now + SWEEP_SPACING_SECONDS);
    this.#fresh = false;
    this.kernel.alarms.set("retention", this.kernel.wallMs() + (at - now) * 1000);
  }
}
