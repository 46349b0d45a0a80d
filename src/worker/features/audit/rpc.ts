/**
 * The auditor's calls on the audit log (one RPC method of the consumer object, like the
 * capability and tools calls): a page of the chain, the latest signed checkpoint, the two RFC
 * 9162 proofs, and the export (its head, then its pages). Each kind maps to one operation of
 * the access table.
 * @module
 */
import type { Operation } from "../../../contracts/access";
import { auditOrigin, auditSigner, auditVerifiers } from "./keys";
import { ok, type Outcome } from "../../result";
import type { Gatekeeper } from "../../kernel/gatekeeper";
import type { ObjectKernel } from "../../kernel/kernel";
import { AUDIT_CHECKPOINT_EVERY } from "../../kernel/limits";
import { archiveLimit, archiveRun, keepEntries } from "./archive";
import { checkpointView, consistency, exportPage, inclusion, periodicCheckpoint, type AuditLogDeps } from "./log";
import type { AuditChain, AuditPageRequest } from "./service";

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
export async function auditCall(
  deps: AuditLogDeps,
  call: Exclude<AuditCall, { kind: "page" }>,
): Promise<Outcome<string>> {
  switch (call.kind) {
    case "checkpoint":
    case "exportHead":
      return checkpointView(deps);
    case "inclusion":
      return inclusion(deps, call.seq, call.size);
    case "consistency":
      return consistency(deps, call.from, call.to);
    case "exportPage":
      return ok(await exportPage(deps, call.after, call.until));
  }
}

/** What the audit log uses of the kernel: the chain itself (the kernel builds it: every service appends to it), the environment's keys and buckets, the clock, one transaction step, the alarm's audit slot and the consumer's limits (page sizes). */
type AuditKernel = Pick<ObjectKernel, "audit" | "env" | "alarms" | "now" | "transaction" | "limits">;

/** How long the alarm waits before retrying an archive run that failed (R2 unavailable), in ms. */
export const ARCHIVE_RETRY_MS = 60_000;

/**
 * The object's audit log: the chain (with its tree) every service appends to, the periodic
 * checkpoint's alarm (asked for only where a key signs, `AUDIT_CHECKPOINT_EVERY` entries after
 * the latest checkpoint), the archive of witnessed tiles (./archive.ts, from the same alarm),
 * and the auditor's calls.
 */
export class AuditHost {
  readonly chain: AuditChain;
  #archiving = false;

  constructor(
    private readonly deps: AuditKernel,
    /** Who may read the log: each call's operation of the access table. */
    private readonly gate: Gatekeeper,
  ) {
    this.chain = deps.audit;
  }

  /**
   * Moves a tree stored before schema v22 to its new key, then builds the tree of a chain stored
   * before it (schema v9): one bounded transaction per step of each, so a restart resumes.
   */
  backfill(): void {
    while (this.deps.transaction(() => this.chain.store.rekeyStep())) continue;
    while (this.deps.transaction(() => this.chain.tree.backfill())) continue;
  }

  #log(consumer: string): AuditLogDeps {
    const { env } = this.deps;
    const now = () => this.deps.now();
    const transaction = <T>(step: () => T): T => this.deps.transaction(step);
    const witnessed = (size: number) => this.#archiveDue(size);
    return {
      chain: this.chain,
      signer: auditSigner(env),
      verifiers: () => auditVerifiers(env),
      consumer,
      origin: auditOrigin(env, consumer),
      witness: env.AUDIT_WITNESS,
      witnessed,
      now,
      transaction,
    };
  }

  /** A checkpoint was witnessed: when tiles below it can be archived, the alarm is asked for. */
  #archiveDue(size: number): void {
    if (this.chain.tiles === undefined) return;
    const keep = keepEntries(this.deps.env.TOOLGATE_AUDIT_KEEP_ENTRIES);
    if (this.deps.transaction(() => archiveLimit(this.chain.store, this.chain.tree.size(), keep, size)) !== null)
      this.deps.alarms.set("audit", Date.now());
  }

  /** One bounded step of the chain's verification walk (`auditVerify`; `cursor`: where the last step stopped). */
  verify(consumer: string, token: string, cursor: string | null): Outcome<string> {
    const auth = this.gate.authenticate(consumer, token, "auditVerify");
    return auth.ok ? this.chain.verify(cursor, this.deps.limits()) : auth;
  }

  /** One tool call's stored records (`auditCallRecords`): for an auditor, or the admin secret (`token` null). */
  callRecords(consumer: string, token: string | null, callId: string): Outcome<string> {
    const who = this.gate.either(consumer, token, "auditCallRecords");
    return who.ok ? this.chain.callRecords(callId) : who;
  }

  /** One auditor call, authenticated for its operation ({@link AUDIT_CALL_OPERATION}; pages within the consumer's limits). */
  async call(consumer: string, token: string, call: AuditCall): Promise<Outcome<string>> {
    const auth = this.gate.authenticate(consumer, token, AUDIT_CALL_OPERATION[call.kind]);
    if (!auth.ok) return auth;
    return call.kind === "page"
      ? this.chain.page(call.request, this.deps.limits())
      : auditCall(this.#log(consumer), call);
  }

  /**
   * The alarm ran: the periodic checkpoint, if due, then one archive run (both idempotent). A run
   * that leaves tiles asks for the alarm again; a failed one (R2) is logged and retried later.
   */
  async alarm(consumer: string | undefined): Promise<void> {
    if (consumer === undefined) return;
    const log = this.#log(consumer);
    await periodicCheckpoint(log, AUDIT_CHECKPOINT_EVERY);
    // One run at a time (an alarm may start while a run awaits R2); a second would only repeat its writes.
    if (this.#archiving) return;
    this.#archiving = true;
    try {
      if (await archiveRun(log, keepEntries(this.deps.env.TOOLGATE_AUDIT_KEEP_ENTRIES)))
        this.deps.alarms.set("audit", Date.now());
    } catch (error) {
      console.error(`toolgate: audit archive run failed: ${error instanceof Error ? error.message : "error"}`);
      this.deps.alarms.set("audit", Date.now() + ARCHIVE_RETRY_MS);
    } finally {
      this.#archiving = false;
    }
  }
}
