import {
  TOOL_COMPLETIONS_MAX,
  writeWireJson,
  type CapabilityEngineState,
  type CapabilityRequestKey,
} from "../../../core/capability";
import type { CapabilityService } from "./service";
import { auditRecord } from "./schedule";

/** Completions one actor's mailbox holds at most: the engine's own queue bound, per actor. */
export const MAILBOX_CAPACITY = TOOL_COMPLETIONS_MAX;

/**
 * Run inside every host step after the engine: moves each completion the engine queued into
 * its actor's mailbox, so one actor's drain never takes (or sees) another's. A completion that
 * does not fit its actor's full mailbox is dropped, counted for that actor and recorded as
 * `capability.mailbox-full` in the audit chain.
 */
export function collectCompletions(host: CapabilityService, state: CapabilityEngineState): void {
  if (state.completions.length === 0) return;
  const completions = state.completions;
  host.apply(state, "drain-completions");
  for (const completion of completions) {
    // A tool call waiting for this request takes it (service.ts `claim`); the mailbox never sees it.
    if (host.handOver(completion)) continue;
    const actor = completion.request_key.actor_id;
    if (
      !host.mailbox.deliver(
        actor,
        capabilityOf(state, completion.request_key),
        completion.sequence,
        writeWireJson(completion),
        MAILBOX_CAPACITY,
      )
    ) {
      host.deps.audit.append(
        "capability.mailbox-full",
        host.deps.nowSeconds(),
        auditRecord({ request_key: completion.request_key, sequence: completion.sequence }),
      );
    }
  }
}

/** The capability of a request the engine holds (a completion names only its key). */
function capabilityOf(state: CapabilityEngineState, key: CapabilityRequestKey): string | null {
  const record = state.requests.find(
    (r) =>
      r.request.key.actor_id === key.actor_id &&
      r.request.key.local_id === key.local_id &&
      r.request.key.consumer_id === key.consumer_id,
  );
  return record === undefined ? null : record.request.capability_id;
}

/**
 * One actor's drain, inside a host step: its mailbox's completions (oldest first, removed;
 * `capabilities`: only those of the capabilities a credential's scope names),
 * the completions it lost (`dropped_since_last_drain` since its previous drain, `total_dropped`
 * in all: engine queue drops and full-mailbox drops of this actor), and the engine's
 * consumer-wide completion sequence state. The shape is the engine's `CapabilityCompletionBatch`.
 */
export function drainMailbox(
  host: CapabilityService,
  state: CapabilityEngineState,
  actorId: string,
  capabilities: readonly string[] | null,
): string {
  collectCompletions(host, state);
  const taken = host.mailbox.take(actorId, capabilities);
  const rest = writeWireJson({
    dropped_since_last_drain: taken.drops.sinceDrain,
    total_dropped: taken.drops.total,
    next_sequence: state.next_completion_sequence,
    sequence_exhausted: state.completion_sequence_exhausted,
  });
  return `{"completions":[${taken.envelopes.join(",")}],${rest.slice(1)}`;
}
