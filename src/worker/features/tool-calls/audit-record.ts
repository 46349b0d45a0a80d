/**
 * The audit record of a tool call (`tool_call`, `tool_call.status`, `tool_call.recovered`),
 * record version 2: the engine's protected audit (`tool-audit-v2`, every member as before) and
 * what happened, said plainly: the outcome, the error code, the subject, the tool, the approval
 * (or the standing approval that covered the call),
 * and the arguments as a digest (or whole, when the consumer keeps them: `audit_arguments`).
 * A record without `record_version` is version 1, the protected audit alone; the chain's
 * digests cover either as the canonical JSON it is, so old entries verify unchanged.
 * @module
 */
import { approvalBindingKey, type ApprovalRecord } from "../../../core/tool-result/approval-book";
import { canonicalJson, type JsonObject } from "../../../core/json";
import type { ToolRegistry } from "../../../core/tool-result/tool-spec";
import type { HashFn, Principal, ResultPackage, ToolCall } from "../../../core/tool-result/types";
import type { AuditArguments } from "../../../contracts/consumer";
import type { AuditChain, AuditRef } from "../audit/service";
import type { ToolErrorCause } from "../../targets/cause";
import type { ExternalOutcome } from "../../targets/executor";
import type { ApprovalOrigin } from "./approval-store";
import { visibleText } from "../../../core/text/visible";

/** The version of the record this module writes (docs/audit.md, "Tool-call records"). */
export const TOOL_CALL_RECORD_VERSION = 2;

/** What the record says beside the protected audit. */
/** What a call's record adds beyond its package: the approval it opened, the standing approval that covered it, a failed run's cause. */
export interface RecordExtras {
  readonly opened?: string | null;
  readonly standing?: string | null;
  readonly cause?: ToolErrorCause | null;
  /** The path the call came by, whose approvals it ran under (the App Facade's are its own). */
  readonly origin?: ApprovalOrigin;
}

export interface CallFacts {
  readonly principal: Principal;
  readonly call: ToolCall;
  /** The approval the call opened, waits for, or ran under; `null`: none. */
  readonly approvalId: string | null;
  /** The standing approval that covered the call instead of a per-call decision; `null` or absent: none. */
  readonly standingApprovalId?: string | null;
  /** Why the tool's run failed (operators only, never in the model's result); absent: no such cause. */
  readonly cause?: ToolErrorCause | null;
}

/** The record of one answered call, as the chain appends it. */
export function toolCallRecord(pkg: ResultPackage, facts: CallFacts, keep: AuditArguments, hash: HashFn): JsonObject {
  const argumentsText = canonicalJson(facts.call.arguments);
  return {
    ...pkg.protected_audit,
    record_version: TOOL_CALL_RECORD_VERSION,
    outcome: pkg.model_result.status,
    error_code: pkg.model_result.error?.code ?? null,
    subject_id: facts.principal.subject_id,
    tool: facts.call.name,
    approval_id: facts.approvalId,
    // Only on a call a standing approval covered: every other record keeps its members as before.
    ...(facts.standingApprovalId == null ? {} : { standing_approval_id: facts.standingApprovalId }),
    arguments_sha256: hash(argumentsText),
    ...(keep === "full" ? { arguments: facts.call.arguments } : {}),
    ...(failed(pkg, facts.cause) ? { cause: { ...facts.cause } } : {}),
  };
}

/** Whether the record keeps `cause`: only a run that did not succeed has one. */
function failed(pkg: ResultPackage, cause: ToolErrorCause | null | undefined): cause is ToolErrorCause {
  return cause !== undefined && cause !== null && pkg.model_result.status !== "succeeded";
}

/**
 * The operator's line of a failed run: one JSON object with the error code, the tool, the audit
 * entry that recorded the call (`GET …/audit/calls/{call_id}` and the audit pages show it whole)
 * and the cause; never the arguments, the model's or the host's ids, a secret or the target's query.
 */
export function causeLine(pkg: ResultPackage, call: ToolCall, cause: ToolErrorCause, auditSeq: number): string {
  return JSON.stringify({
    event: "toolgate.tool_error",
    code: pkg.model_result.error?.code ?? null,
    tool: visibleText(call.name),
    audit_seq: auditSeq,
    cause,
  });
}

/**
 * The approval a call ran under (or was refused by): the newest decided request of its exact
 * binding; `null` when none was ever opened.
 */
export function decidedApproval(
  byBinding: (bindingKey: string) => readonly ApprovalRecord[],
  call: ToolCall,
  requestSha256: string,
): string | null {
  const decided = byBinding(approvalBindingKey(call, requestSha256)).filter((r) => r.state !== "pending");
  return decided[decided.length - 1]?.approval_id ?? null;
}

/** A run's operator cause, or `null`. */
export type RunCause = ToolErrorCause | null;

/** The operator cause an external run gave, if it failed with one. */
export function runCause(ran: ExternalOutcome): RunCause {
  return ran.kind === "failed" || ran.kind === "not_sent" ? (ran.cause ?? null) : null;
}

/** Appends the tool-call service's records to the chain (inside the caller's transaction). */
export class CallRecords {
  constructor(
    private readonly chain: Pick<AuditChain, "append">,
    private readonly registry: ToolRegistry,
    private readonly book: { byBinding(bindingKey: string, origin: ApprovalOrigin): readonly ApprovalRecord[] },
    private readonly keep: AuditArguments,
  ) {}

  /**
   * One call's record: the approval it opened (`opened`), or for a write the decided approval of
   * its exact binding; and a failed run's `cause`, which also goes to the operators' log.
   */
  append(
    kind: string,
    now: number,
    pkg: ResultPackage,
    { principal, call }: { readonly principal: Principal; readonly call: ToolCall },
    hash: HashFn,
    { opened = null, standing = null, cause = null, origin = null }: RecordExtras = {},
  ): AuditRef {
    const write = this.registry.get(call.name)?.risk === "write";
    const request = pkg.protected_audit.binding.request_sha256;
    const approvalId =
      opened ?? (write ? decidedApproval((key) => this.book.byBinding(key, origin), call, request) : null);
    const recorded = this.chain.append(
      kind,
      now,
      toolCallRecord(pkg, { principal, call, approvalId, standingApprovalId: standing, cause }, this.keep, hash),
    );
    if (failed(pkg, cause)) console.warn(causeLine(pkg, call, cause, recorded.seq));
    return recorded;
  }
}
