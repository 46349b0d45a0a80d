/**
 * What every service of a consumer object shares: its SQLite database, its clock, one transaction
 * step (which keeps the in-memory caches true to what committed), the audit chain, the events
 * bus, the consumer's configuration and limits, the outbound fetch under the target rule, the
 * Worker's environment and the shared alarm. A service takes the kernel (and the service objects
 * of the other services it uses) instead of closures back into the object.
 * @module
 */
import { auditSigner } from "../features/audit/keys";
import type { Env } from "../env";
import { targetFetch } from "../targets/fetch";
import { AlarmSlots } from "./alarms";
import { AuditChain } from "../features/audit/service";
import { ObjectClock } from "./clock";
import { approvalWindowOf, ConsumerService, limitsOf } from "../features/consumers/service";
import { EventBus } from "../features/events/bus";
import { AUDIT_CHECKPOINT_EVERY, type Limits } from "./limits";
import { Retention } from "./retention/sweep";
import type { TargetPolicy } from "../features/tools/build";

export class ObjectKernel {
  readonly sql: SqlStorage;
  /** Unix seconds (tests pin it through `runInDurableObject`) and wall milliseconds for rates. */
  readonly clock = new ObjectClock();
  /** The consumer's events (events/bus.ts): webhooks store them in their transaction, streams hear them once committed. */
  readonly events = new EventBus();
  /** The object's one alarm, a slot per service (./alarms). */
  readonly alarms: AlarmSlots;
  /** The consumer's retention (retention/sweep.ts): stored rows are stamped with its clock; it keeps the alarm's retention slot. */
  readonly retention: Retention;
  /** The audit log's chain every service appends to; its periodic checkpoint asks for the audit slot. */
  readonly audit: AuditChain;
  /** The consumer's configuration, cached between calls. */
  readonly config: ConsumerService;
  /** Where outbound requests may go (tools/build.ts `checkUrl`): loopback only under `npm start`. */
  readonly targets: TargetPolicy;
  /** Outbound fetch under the target rule (the issuer's JWKS, webhook deliveries). */
  readonly fetch: (request: Request) => Promise<Response>;
  /** In-memory state that must forget what a rolled-back transaction wrote (besides the audit head). */
  readonly #rollbacks: Array<() => void> = [];

  constructor(
    readonly ctx: DurableObjectState,
    readonly env: Env,
  ) {
    this.sql = ctx.storage.sql;
    this.alarms = new AlarmSlots(ctx.storage);
    this.retention = new Retention(this);
    const schedule =
      auditSigner(env) === null
        ? undefined
        : { every: AUDIT_CHECKPOINT_EVERY, schedule: () => this.alarms.set("audit", Date.now()) };
    this.audit = new AuditChain(this.sql, schedule, env.AUDIT_TILES);
    this.config = new ConsumerService(this.sql, this.audit);
    this.targets = { allowLoopback: env.TOOLGATE_ALLOW_LOOPBACK_TARGETS === "1" };
    this.fetch = targetFetch(this.targets, (request) => fetch(request));
  }

  /** Unix seconds (the object's clock). */
  now(): number {
    return this.clock.now();
  }

  /** Wall-clock milliseconds for rate limits (pinned only by the call rate's own tests). */
  rateMs(): number {
    return this.clock.rateMs();
  }

  /** Wall-clock milliseconds (the alarm's time base). */
  wallMs(): number {
    return Date.now();
  }

  /** The consumer's limits (its configuration's overrides of the documented defaults). */
  limits(): Limits {
    return limitsOf(this.config.current());
  }

  /** The consumer's approval window: seconds an approval admits the repeated call when its tool sets none. */
  approvalWindow(): number {
    return approvalWindowOf(this.config.current());
  }

  /** The consumer's name, once an admin configured it. */
  consumerName(): string | undefined {
    return this.config.current()?.name;
  }

  /** Keeps work running after the response (trace exports). */
  waitUntil(promise: Promise<unknown>): void {
    this.ctx.waitUntil(promise);
  }

  /** Registers a cache to reset when a transaction rolls back. */
  onRollback(reset: () => void): void {
    this.#rollbacks.push(reset);
  }

  /** Runs `step` as one SQLite transaction: committed events reach their listeners; a rollback resets the caches. */
  transaction<T>(step: () => T): T {
    try {
      const done = this.ctx.storage.transactionSync(step);
      this.events.committed();
      return done;
    } catch (error) {
      this.events.rolledBack();
      this.audit.reset();
      for (const reset of this.#rollbacks) reset();
      throw error;
    }
  }
}
