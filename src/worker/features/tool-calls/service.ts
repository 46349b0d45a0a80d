import { fastSha256Hex } from "../../sha256";
import type { ApprovalRecord } from "../../../core/tool-result/approval-book";
import {
  beginDispatch,
  completeDispatch,
  type BeginDispatchResult,
  type DispatchTicket,
  type HandlerOutcome,
} from "../../../core/tool-result/dispatcher";
import { memoizeHash } from "../../../core/tool-result/digests";
import { createEngine, type ToolResultEngine } from "../../../core/tool-result/engine";
import { errorPackage } from "../../../core/tool-result/packages";
import { recoverInFlight } from "../../../core/tool-result/query-status";
import { storeKey } from "../../../core/tool-result/store";
import type { HashFn, Principal, ResultPackage, ToolCall } from "../../../core/tool-result/types";
import type { ToolExecution } from "../../../core/tool-result/tool-spec";
import type { ApprovalList } from "../../../contracts/approval";
import { problem } from "../../http/problem";
import { fail, ok, type Outcome } from "../../result";
import type { AuditRef } from "../audit/service";
import { approvalPage } from "./approval-view";
import { approvalStatus, callEvent } from "./events";
import { SqlApprovalBook, type ApprovalOrigin } from "./approval-store";
import { SqlToolResultStore } from "./store";
import type { ObjectKernel } from "../../kernel/kernel";
import { decide, type DecisionAnswer, type EndUserDecider } from "./approval-decision";
import { callStatus, type StatusQuery } from "./status";
import {
  IN_PROGRESS_RETRY_SECONDS,
  outcomeOf,
  type Decision,
  type DispatchOptions,
  type Recorded,
  type ToolCallOutcome,
  type ToolCallSetup,
} from "./outcome";
import { ApprovalWatch, endDownstreamSpan, startDownstreamSpan } from "../../trace/tool-call";
import { callBook } from "../standing/cover";
import { CallRecords, runCause, type RunCause } from "./audit-record";
import { accepted, usage } from "./refusal";
import { markFacadeInFlight, takeFacadeInFlight } from "./facade-in-flight";

/** How an in-process tool runs. */
type InProcessExecution = Extract<ToolExecution, { kind: "in_process" }>;

/** What the service uses of the kernel: its tables, the audit chain, one transaction step, the limits, the events bus and retention's clock. */
type ToolCallKernel = Pick<ObjectKernel, "sql" | "audit" | "transaction" | "limits" | "events" | "retention">;

/**
 * The tool-call service of one consumer: each engine step in one transaction with its audit
 * entry; a tool the host executes runs between two steps (a write is durably in flight first).
 */
export class ToolCallService {
  readonly engine: ToolResultEngine;
  readonly book: SqlApprovalBook;
  readonly #kernel: ToolCallKernel;
  readonly #setup: ToolCallSetup;
  readonly #records: CallRecords;
  readonly #store: SqlToolResultStore;

  constructor(kernel: ToolCallKernel, setup: ToolCallSetup) {
    this.#kernel = kernel;
    this.#setup = setup;
    const opened = (record: ApprovalRecord, openedBy: string | null) =>
      kernel.events.emit(
        { type: "approval.requested", data: approvalStatus(record, record.requested_at), credentialId: openedBy },
        record.requested_at,
      );
    this.book = new SqlApprovalBook(kernel.sql, () => kernel.limits(), opened);
    this.#store = new SqlToolResultStore(kernel.sql, () => kernel.retention.now());
    this.engine = createEngine({
      registry: setup.registry,
      store: this.#store,
      approvers: new Set(setup.approvers),
    });
    this.#records = new CallRecords(kernel.audit, setup.registry, this.book, setup.auditArguments);
  }

  /**
   * After a restart, a write still in flight may have committed: it becomes an unknown outcome
   * with its status_ref, never a second execution. Runs inside the caller's transaction.
   */
  recover(now: number): void {
    for (const recovered of recoverInFlight(this.engine, now)) {
      const origin = takeFacadeInFlight(this.#kernel.sql, storeKey(recovered.scope)) ? "facade" : null;
      this.#records.append("tool_call.recovered", now, recovered.package, recovered, fastSha256Hex, { origin });
      this.#kernel.events.emit(
        callEvent("call.outcome_unknown", recovered.principal, recovered.call, recovered.package, now, null),
        now,
      );
    }
  }

  /**
   * One call: step one (bind, validate, authorize, deduplicate, approvals); for a write that may
   * run, its in-flight mark; the execution; step two. `prepareOnly` never executes (a prepared
   * action opens its approval); `notify` takes this one call's downstream notifications.
   */
  async dispatch(
    principal: Principal,
    call: ToolCall,
    now: number,
    options: DispatchOptions = {},
  ): Promise<Outcome<ToolCallOutcome>> {
    const hash = memoizeHash(fastSha256Hex);
    let audit: AuditRef | undefined;
    let standing: string | null = null;
    const cover = { principal, call, now, spec: this.engine.registry.get(call.name) };
    const book = callBook(this.book, cover, this.#setup.standing, options, (id) => (standing = id));
    const watch = options.span === undefined ? undefined : new ApprovalWatch(book, options.span);
    const origin = options.facade === true ? "facade" : null;
    // An in-process tool runs in step one's transaction: its handler is synchronous and its
    // effects are this object's rows, so its call identity, run and audit entry commit together.
    let ranInline: Recorded | undefined;
    const begun = usage(() =>
      this.#stepOne(() =>
        this.book.remembering(() => {
          const claims = options.claims === undefined ? {} : { claims: options.claims };
          this.book.opener = options.credentialId ?? null;
          this.book.origin = origin;
          this.book.rationale = options.rationale ?? null;
          // The end user confirms only where its tool says so and the call proved who it is (a verified token).
          this.book.confirmedBy =
            cover.spec?.confirmedBy === "end_user" && options.endUser === true ? "end_user" : null;
          let result: BeginDispatchResult;
          try {
            result = accepted(
              beginDispatch(this.engine, {
                principal,
                call,
                book: watch?.book ?? book,
                prepareOnly: options.prepareOnly === true,
                now,
                hash,
                ...claims,
              }),
            );
          } finally {
            this.book.opener = null;
            this.book.origin = null;
            this.book.rationale = null;
            this.book.confirmedBy = null;
          }
          this.#setup.shadow?.({ principal, call, now, claims: options.claims, result, hash, span: options.span });
          if (result.kind === "final" || result.kind === "needs_approval") {
            const opened = result.kind === "needs_approval" ? result.approval_id : null;
            audit = this.#records.append("tool_call", now, result.package, { principal, call }, hash, {
              opened,
              standing,
              origin,
            });
          }
          if (result.kind === "execute" && options.prepareOnly !== true) {
            const spec = this.engine.registry.get(result.ticket.tool);
            if (spec?.execution.kind === "in_process")
              ranInline = this.#complete(result.ticket, this.#runInProcess(result.ticket, spec.execution), hash, {
                standing,
                credentialId: options.credentialId ?? null,
                origin,
              });
            else if (origin === "facade" && result.ticket.scope !== null)
              markFacadeInFlight(this.#kernel.sql, storeKey(result.ticket.scope), this.#kernel.retention.now());
          }
          return result;
        }),
      ),
    );
    if (!begun.ok) return begun;
    this.#kernel.retention.stored();
    const result = begun.value;
    watch?.end(result, now);
    const recorded = (pkg: ResultPackage): Recorded => {
      if (audit === undefined) throw new Error("a final package was not audited");
      return { package: pkg, audit };
    };
    switch (result.kind) {
      case "final":
        return ok(outcomeOf(recorded(result.package), hash));
      case "needs_approval":
        return ok(outcomeOf(recorded(result.package), hash, result.approval_id));
      case "in_progress":
        return fail(
          problem(
            "IDEMPOTENCY_IN_PROGRESS",
            "The same call is still executing; retry later.",
            IN_PROGRESS_RETRY_SECONDS,
          ),
        );
      case "quota_exceeded":
        return fail(
          problem(
            "QUOTA_EXCEEDED",
            "The subject, or the credential, has as many pending approvals as its quota allows (pending_approvals_per_subject, pending_approvals_per_credential); nothing was opened or run.",
            result.retry_after_seconds,
          ),
        );
      case "execute":
        if (options.prepareOnly === true) throw new Error("a prepared call reached its execution");
        if (ranInline !== undefined) return ok(outcomeOf(ranInline, hash));
        return ok(outcomeOf(await this.#execute(result.ticket, hash, options, { standing, origin }), hash));
    }
  }

  /**
   * Step one's transaction. Its in-flight marks are held until its end (SqlToolResultStore
   * holdingMarks): an in-process tool's mark, set and cleared there, is never written; an
   * external write's mark is written before the transaction commits, so it is durable before
   * the tool is called.
   */
  #stepOne<T>(step: () => T): T {
    return this.#kernel.transaction(() => this.#store.holdingMarks(step));
  }

  async #execute(
    ticket: DispatchTicket,
    hash: HashFn,
    options: DispatchOptions,
    { standing, origin }: { standing: string | null; origin: ApprovalOrigin },
  ): Promise<Recorded> {
    const { notify, span, credentialId = null } = options;
    const spec = this.engine.registry.get(ticket.tool);
    if (spec === undefined) throw new Error("ticket names an unregistered tool");
    const execution = spec.execution;
    if (execution.kind === "in_process") {
      // Reached only when step one did not run it (dispatch runs an in-process tool in its transaction).
      return this.#kernel.transaction(() =>
        this.#complete(ticket, this.#runInProcess(ticket, execution), hash, { standing, credentialId, origin }),
      );
    }
    const downstream = startDownstreamSpan(span, this.#setup.executor, spec);
    const ran = await this.#setup.executor.run(spec, ticket.principal, ticket.call, ticket.status_ref, notify);
    endDownstreamSpan(downstream, ran);
    const value = ran.kind === "result" ? ran.result : ran.kind === "failed" ? "threw" : ran.kind;
    const cause = runCause(ran);
    return this.#kernel.transaction(() => {
      // dispatch marked a facade write to an external tool in flight; the mark goes with the engine's.
      if (origin === "facade" && ticket.scope !== null) takeFacadeInFlight(this.#kernel.sql, storeKey(ticket.scope));
      return this.#complete(ticket, value, hash, { standing, credentialId, cause, origin });
    });
  }

  /** An in-process handler's outcome: synchronous, a throw is the handler's failure. */
  #runInProcess(ticket: DispatchTicket, execution: InProcessExecution): HandlerOutcome {
    try {
      const raw = execution.handler(ticket.call.arguments, { store: this.engine.store });
      if (raw instanceof Promise) throw new Error("in-process handlers must be synchronous");
      return raw;
    } catch {
      return "threw";
    }
  }

  /** Step two with its audit entry, inside the caller's transaction. */
  #complete(
    ticket: DispatchTicket,
    value: HandlerOutcome | "rate_limited" | "not_sent",
    hash: HashFn,
    {
      standing,
      credentialId,
      cause = null,
      origin,
    }: { standing: string | null; credentialId: string | null; cause?: RunCause; origin: ApprovalOrigin },
  ): Recorded {
    const done =
      value === "rate_limited" || value === "not_sent"
        ? this.#failBeforeEffect(ticket, value === "rate_limited" ? "RATE_LIMIT" : "TOOL_ERROR", hash)
        : completeDispatch(this.engine, ticket, value, { hash });
    if (done.model_result.status === "unknown")
      this.#kernel.events.emit(
        callEvent("call.outcome_unknown", ticket.principal, ticket.call, done, ticket.now, credentialId),
        ticket.now,
      );
    return {
      package: done,
      audit: this.#records.append("tool_call", ticket.now, done, ticket, hash, { standing, cause, origin }),
    };
  }

  /** A failure known to precede any effect (rate limit, nothing sent): drop the in-flight mark, answer the catalog error. */
  #failBeforeEffect(ticket: DispatchTicket, code: "RATE_LIMIT" | "TOOL_ERROR", hash: HashFn): ResultPackage {
    if (ticket.scope !== null) this.engine.store.delete("in_flight", storeKey(ticket.scope));
    const { principal, call, tool, request_sha256: request, now } = ticket;
    return errorPackage(principal, call, this.engine.registry.get(tool), code, request, now, hash, null);
  }

  /** The reference's `query_status` (./status.ts): an external tool's own unknown write is asked about first, never run again. */
  status(...query: StatusQuery): Promise<Outcome<ToolCallOutcome>> {
    const host = { kernel: this.#kernel, engine: this.engine, executor: this.#setup.executor, records: this.#records };
    return callStatus(host, ...query);
  }

  /** One page of pending, unexpired approvals for an approver (./approval-view.ts). */
  listApprovals(
    request: { tenantId: string; approverId: string; cursor: string | null; pageItems: number },
    now: number,
  ): Outcome<ApprovalList> {
    return approvalPage(this.book, this.engine.registry, request, now);
  }

  /** One decision (approval-decision.ts), recorded and audited in one transaction; `endUser`: the requester's in-chat confirmation. */
  decide(
    approvalId: string,
    approverId: string,
    decision: Decision,
    now: number,
    endUser?: EndUserDecider,
  ): Outcome<DecisionAnswer> {
    const host = { kernel: this.#kernel, book: this.book, registry: this.engine.registry, setup: this.#setup };
    return decide(host, approvalId, approverId, decision, now, endUser);
  }

  /** Withdraws a pending approval (its prepared action was rejected); inside the caller's transaction. */
  withdraw(approvalId: string, now: number): void {
    this.book.withdraw(approvalId, now);
  }
}
