/**
 * The auditor's calls on the audit log (one RPC method of the consumer object, like the
 * capability and tools calls): a page of the chain, the latest signed checkpoint, the two RFC
 * 9162 proofs, and the export (its head, then its pages). Each kind maps to one operation of
 * the access table.
 * @module
 */
import type { Operation } from "../../../contracts/access";
import { auditOrigin, auditSigner } from "../../audit-keys";
import type { Env } from "../../env";
import { ok, type Outcome } from "../../result";
import type { AlarmSlots } from "../alarms";
import { AUDIT_CHECKPOINT_EVERY, type Limits } from "../limits";
import { checkpointView, consistency, exportPage, inclusion, periodicCheckpoint, type AuditLogDeps } from "./log";
import { AuditChain, type AuditPageRequest } from "./plane";

/** One auditor call on the verifiable log. */
export type AuditCall =
  | { readonly kind: "page"; readonly request: AuditPageRequest }
  | { readonly kind: "checkpoint" }
  | { readonly kind: "inclusion"; readonly seq: number; readonly size?: number | undefined }
  | { readonly kind: "consistency"; readonly from: number; readonly to: number }
  /** The export's checkpoint (signed first if the tree grew), answered as the checkpoint route's view. */
  | { readonly kind: "exportHead" }
  /** The export lines of the entries after `after`, at most up to entry `until` (a page). */
  | { readonly kind: "exportPage"; readonly after: number; readonly until: number };

/** The access-table operation of each call. */
export const AUDIT_CALL_OPERATION: Record<AuditCall["kind"], Operation> = {
  page: "auditPage",
  checkpoint: "auditCheckpoint",
  inclusion: "auditInclusion",
  consistency: "auditConsistency",
  exportHead: "auditExport",
  exportPage: "auditExport",
};

/** Runs one authenticated call; answers JSON text (export pages: NDJSON lines). */
export async function auditCall(deps: AuditLogDeps, call: Exclude<AuditCall, { kind: "page" }>): Promise<Outcome<string>> {
  switch (call.kind) {
    case "checkpoint":
    case "exportHead":
      return checkpointView(deps);
    case "inclusion":
      return inclusion(deps, call.seq, call.size);
    case "consistency":
      return deps.transaction(() => consistency(deps, call.from, call.to));
    case "exportPage":
      return ok(exportPage(deps, call.after, call.until));
  }
}

/** What the audit log uses of its object. */
export interface AuditHostDeps {
  readonly sql: SqlStorage;
  readonly env: Env;
  readonly alarms: AlarmSlots;
  /** Unix seconds. */
  now(): number;
  transaction<T>(step: () => T): T;
}

/**
 * The object's audit log: the chain (with its tree) every plane appends to, the periodic
 * checkpoint's alarm (asked for only where a key signs, `AUDIT_CHECKPOINT_EVERY` entries after
 * the latest checkpoint), and the auditor's calls.
 */
export class AuditHost {
  readonly chain: AuditChain;

  constructor(private readonly deps: AuditHostDeps) {
    const schedule = auditSigner(deps.env) === null ? undefined : { every: AUDIT_CHECKPOINT_EVERY, schedule: () => deps.alarms.set("audit", Date.now()) };
    this.chain = new AuditChain(deps.sql, schedule);
  }

  /** Builds the tree of a chain stored before it (schema v9), one bounded transaction per step; a restart resumes. */
  backfill(): void {
    while (this.deps.transaction(() => this.chain.tree.backfill())) continue;
  }

  #log(consumer: string): AuditLogDeps {
    const { env, now, transaction } = this.deps;
    return { chain: this.chain, signer: auditSigner(env), consumer, origin: auditOrigin(env, consumer), witness: env.AUDIT_WITNESS, now, transaction };
  }

  /** One authenticated auditor call (`limits`: the consumer's, for pages). */
  call(consumer: string, call: AuditCall, limits: Limits): Promise<Outcome<string>> {
    return call.kind === "page" ? Promise.resolve(this.chain.page(call.request, limits)) : auditCall(this.#log(consumer), call);
  }

  /** The alarm ran: the periodic checkpoint, if due (idempotent). */
  async alarm(consumer: string | undefined): Promise<void> {
    if (consumer !== undefined) await periodicCheckpoint(this.#log(consumer), AUDIT_CHECKPOINT_EVERY);
  }
}
