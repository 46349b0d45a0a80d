/**
 * The reference's `query_status` for one consumer: for an external tool whose unknown outcome
 * belongs to this caller, the executor is asked first and its evidence recorded, so the engine
 * can reconcile it; the tool never runs again. The answer is audited in the same transaction.
 * @module
 */
import type { JsonObject } from "../../../core/json";
import { memoizeHash, requestDigest } from "../../../core/tool-result/digests";
import { idempotencyScope } from "../../../core/tool-result/dispatcher-state";
import type { ToolResultEngine } from "../../../core/tool-result/engine";
import {
  isOwnUnknownWrite,
  queryStatus,
  recordEvidence,
  type DownstreamEvidence,
} from "../../../core/tool-result/query-status";
import { storeKey } from "../../../core/tool-result/store";
import type { Principal, ToolCall } from "../../../core/tool-result/types";
import type { ObjectKernel } from "../../kernel/kernel";
import { ok, type Outcome } from "../../result";
import { fastSha256Hex } from "../../sha256";
import type { CallRecords } from "./audit-record";
import { callEvent } from "./events";
import { outcomeOf, type ToolCallOutcome, type ToolCallSetup } from "./outcome";
import { accepted, usage } from "./refusal";

/** What a status query uses of the tool-call service. */
export interface StatusHost {
  readonly kernel: Pick<ObjectKernel, "transaction" | "events">;
  readonly engine: ToolResultEngine;
  readonly executor: ToolCallSetup["executor"];
  readonly records: CallRecords;
}

/** A status query: the caller, its call, the `status_ref`, the clock, the verified claims and the caller's credential (named in the events it emits). */
export type StatusQuery = [
  principal: Principal,
  call: ToolCall,
  statusRef: string,
  now: number,
  claims?: JsonObject,
  credentialId?: string | null,
];

/** One status query of a call, by its `status_ref`. */
export async function callStatus(
  host: StatusHost,
  ...[principal, call, statusRef, now, claims = {}, credentialId = null]: StatusQuery
): Promise<Outcome<ToolCallOutcome>> {
  const { kernel, engine, executor, records } = host;
  const hash = memoizeHash(fastSha256Hex);
  const spec = engine.registry.get(call.name);
  const digest = spec === undefined ? "0".repeat(64) : requestDigest(principal, call, spec, hash);
  let evidence: DownstreamEvidence = { kind: "unknown" };
  if (
    spec?.execution.kind === "external" &&
    executor.canQuery(spec) &&
    isOwnUnknownWrite(engine, principal, call, statusRef, digest)
  ) {
    evidence = await executor.query(spec, principal, call, statusRef);
  }
  const pkg = usage(() =>
    kernel.transaction(() => {
      recordEvidence(engine, principal, call, statusRef, digest, evidence);
      // Reconciled now: the write was uncertain before this query and its receipt settled it.
      const key = call.idempotency_key === null ? null : storeKey(idempotencyScope(principal, call));
      const uncertain = key !== null && engine.store.get("uncertain_outcomes", key) !== undefined;
      const done = accepted(
        queryStatus(engine, {
          principal,
          call,
          status_ref: statusRef,
          expected_request_sha256: digest,
          now,
          hash,
          claims,
        }),
      );
      if (uncertain && done.model_result.status === "succeeded")
        kernel.events.emit(callEvent("call.reconciled", principal, call, done, now, credentialId), now);
      return { package: done, audit: records.append("tool_call.status", now, done, { principal, call }, hash) };
    }),
  );
  return pkg.ok ? ok(outcomeOf(pkg.value, hash)) : pkg;
}
