import { canonicalJson } from "../../../core/json";
import type { ConsumerConfig } from "../../../contracts/consumer";
import type { AuditChain } from "../audit/plane";
import { loadConsumer, saveConsumer, type ConsumerRecord } from "./store";

export type { ConsumerRecord };

/** The consumer's configuration: its enabled tools and approvers, cached between calls. */
export class ConsumerPlane {
  #current: ConsumerRecord | undefined;

  constructor(
    private readonly sql: SqlStorage,
    private readonly audit: AuditChain,
  ) {}

  /** Reads the stored configuration (on start; `undefined` until an admin creates the consumer). */
  load(): ConsumerRecord | undefined {
    this.#current = loadConsumer(this.sql);
    return this.#current;
  }

  /** The configuration as last loaded or saved. */
  current(): ConsumerRecord | undefined {
    return this.#current;
  }

  /** Creates or updates the consumer and audits it; inside the caller's transaction. Answers the stored view. */
  configure(consumer: string, config: ConsumerConfig, now: number): string {
    const created = saveConsumer(this.sql, { name: consumer, tools: config.tools, approverSubjects: config.approver_subjects }, now);
    const stored = this.load();
    if (stored === undefined) throw new Error("consumer row missing right after it was saved");
    this.audit.append("consumer.configured", now, { consumer, tools: stored.tools, approver_subjects: stored.approverSubjects });
    return canonicalJson({ consumer, tools: stored.tools, approver_subjects: stored.approverSubjects, created });
  }
}
