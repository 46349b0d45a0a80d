import { isTerminalStatus, type CapabilityEngineState } from "../../../core/capability";
import type { LeaseRow, OutboxRow } from "./store";

/** The farthest an alarm is scheduled ahead; a later deadline is reached by rescheduling. */
const MAX_ALARM_AHEAD_MS = 24 * 3600 * 1000;

/** The engine's next deadline (milliseconds of its clock): an open request's, or a lease's expiry. */
export function nextDeadline(state: CapabilityEngineState, leases: readonly LeaseRow[]): bigint | null {
  let next: bigint | null = null;
  for (const record of state.requests) {
    if (isTerminalStatus(record.snapshot.status)) continue;
    if (next === null || record.request.deadline_tick < next) next = record.request.deadline_tick;
  }
  for (const lease of leases) {
    const expires = BigInt(lease.expiresMs);
    if (next === null || expires < next) next = expires;
  }
  return next;
}

/**
 * The wall-clock time of the alarm for a deadline: `next − now` ahead of the wall clock (equal
 * when the engine clock is not pinned), so a pinned test clock never makes a past deadline fire
 * in a loop.
 */
export function alarmTime(next: bigint, engineNowMs: number, wallNowMs: number): number {
  const ahead = next - BigInt(engineNowMs);
  const capped = ahead > BigInt(MAX_ALARM_AHEAD_MS) ? MAX_ALARM_AHEAD_MS : Number(ahead);
  return wallNowMs + Math.max(0, capped);
}

/**
 * An engine value as an audit-chain record: the chain's canonical JSON is limited to
 * portable integers, so a u64 above 2^53 − 1 is written as its decimal string.
 */
export function auditRecord(value: unknown): unknown {
  if (typeof value === "bigint") return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(auditRecord);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, auditRecord(v)]),
    );
  }
  return value;
}

/** The gate → provider frame carrying one bound effect (the row's JSON spliced in as-is). */
export function effectMessage(row: OutboxRow): string {
  return `{"type":"effect","envelope":${row.envelope}}`;
}
